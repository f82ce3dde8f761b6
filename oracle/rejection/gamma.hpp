// Gamma variates by Marsaglia and Tsang's rejection method ("A simple method
// for generating gamma variables", ACM TOMS 26(3), 2000), the second user of
// the warp rejection loop (gpu/warp_rejection.cuh), and from them the
// Dirichlet draws of theta and phi that complete seed 000's uncollapsed LDA
// sweep (Sec. 4: z given theta and phi; theta and phi given z).
//
// For shape a >= 1, with d = a - 1/3 and c = 1 / sqrt(9 d), an attempt takes
// a standard normal x and a uniform u: v = (1 + c x)^3; rejected if v <= 0;
// accepted if u < 1 - 0.0331 x^4 (the squeeze) or log u < x^2 / 2 + d (1 -
// v + log v); the variate is d v. For a < 1: Gamma(a + 1) U^(1/a), U a
// further uniform. Every operation is in double, one rounding each, in the
// order written (the kernels write the same order with __dmul_rn and
// friends: no contraction into FMA).
//
// The Philox mapping (task t: a draw's own number; attempt j = 0, 1, ...):
// attempt j of task t takes rng/'s block (seed, stream 2^63 + t, draw j):
//   u1 = ((x0 x1 >> 11) + 1/2) 2^-53 in (0, 1), angle = (x2 + 1/2) 2^-32,
//   x = sqrt(-2 log u1) cos(2 pi angle)   (Box-Muller, one of its pair),
//   u = (x3 + 1/2) 2^-32;
// the boost's U for a < 1 is u1 of the block (seed, 2^63 + t, 0, word3 1).
// The streams from 2^63 on keep clear of the z draws' (token t: stream t).
//
// The kernels equal these draws to within their log and cos (CUDA's are
// within 1-2 ulp, glibc's correctly rounded or nearly): the same attempt
// accepted but where a comparison falls within those ulps (tests: no such
// case in 10^6 draws; values within 1e-9 relative), and the law is checked
// against Boost.Math's gamma CDF (stats::ks_continuous_test).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "rng/philox_uniform.hpp"

namespace warpsim::oracle::rejection {

inline constexpr std::uint64_t kGammaStreams = std::uint64_t{1} << 63;
inline constexpr std::size_t kLdaSumChunk = 256;  // the words a partial sum of phi's columns adds

/// The three numbers of an attempt.
struct GammaAttempt {
  double normal = 0, u = 0;
};

inline double open_uniform53(std::uint32_t hi, std::uint32_t lo) {
  return (static_cast<double>(((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11) + 0.5) * 0x1p-53;
}

inline GammaAttempt gamma_attempt_numbers(std::uint64_t seed, std::uint64_t task, std::uint32_t attempt) {
  const auto x = rng::philox_bits(seed, kGammaStreams + task, attempt);
  const double u1 = open_uniform53(x.v[0], x.v[1]);
  const double angle = (static_cast<double>(x.v[2]) + 0.5) * 0x1p-32;
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double turn = 2.0 * std::numbers::pi * angle;
  return {radius * std::cos(turn), (static_cast<double>(x.v[3]) + 0.5) * 0x1p-32};
}

/// Marsaglia-Tsang's constants for shape a' >= 1.
struct GammaConstants {
  double d = 0, c = 0;
  explicit GammaConstants(double shape) : d(shape - 1.0 / 3.0), c(1.0 / std::sqrt(9.0 * d)) {}
};

/// One attempt for shape a' >= 1: the variate d v if accepted, else a negative number.
inline double gamma_try(const GammaConstants& k, const GammaAttempt& a) {
  const double t = 1.0 + k.c * a.normal;
  if (t <= 0) return -1;  // v = t^3 <= 0
  const double v = t * t * t;
  const double x2 = a.normal * a.normal;
  if (a.u < 1.0 - 0.0331 * (x2 * x2)) return k.d * v;
  if (std::log(a.u) < 0.5 * x2 + k.d * (1.0 - v + std::log(v))) return k.d * v;
  return -1;
}

/// Gamma(shape) for task `task` (shape > 0; scale 1). `attempts`, if given, is added to.
inline double gamma_draw(double shape, std::uint64_t seed, std::uint64_t task, std::uint64_t* attempts = nullptr) {
  const GammaConstants k(shape < 1 ? shape + 1 : shape);
  double g = -1;
  for (std::uint32_t j = 0; g < 0; ++j) {
    g = gamma_try(k, gamma_attempt_numbers(seed, task, j));
    if (attempts) ++*attempts;
  }
  if (shape < 1) {
    const auto x = rng::philox_bits(seed, kGammaStreams + task, 0, 1);
    g *= std::exp(std::log(open_uniform53(x.v[0], x.v[1])) / shape);
  }
  return g;
}

/// A Dirichlet(alpha) draw: Gamma(alpha_i) for tasks first + i, normalised.
inline std::vector<double> dirichlet_draw(const std::vector<double>& alpha, std::uint64_t seed, std::uint64_t first) {
  std::vector<double> x(alpha.size());
  double s = 0;
  for (std::size_t i = 0; i < alpha.size(); ++i) s += x[i] = gamma_draw(alpha[i], seed, first + i);
  for (auto& v : x) v /= s;
  return x;
}

/// The theta and phi half of the uncollapsed LDA sweep (gpu::LdaTopicSampler):
/// n[m, k] and n[c, k] counted from z; theta[m, k] = Gamma(alpha + n[m, k])
/// (task m K + k), phi[c, k] = Gamma(beta + n[c, k]) / S_k (task M K + c K
/// + k), S_k added in chunks of kLdaSumChunk words (each in word order),
/// then the chunks in order.
struct LdaTopics {
  std::vector<int> theta_counts, phi_counts;  // M x K, V x K
  std::vector<double> theta, phi;             // M x K, V x K
};

inline LdaTopics lda_topic_draws(const std::vector<int>& z, const std::vector<int>& offsets, const std::vector<int>& words, int vocabulary, int k,
                                 double alpha, double beta, std::uint64_t seed) {
  const auto documents = static_cast<std::size_t>(offsets.size() - 1), kk = static_cast<std::size_t>(k), v = static_cast<std::size_t>(vocabulary);
  LdaTopics r{std::vector<int>(documents * kk, 0), std::vector<int>(v * kk, 0), std::vector<double>(documents * kk), std::vector<double>(v * kk)};
  for (std::size_t m = 0; m < documents; ++m) {
    for (int t = offsets[m]; t < offsets[m + 1]; ++t) {
      ++r.theta_counts[m * kk + static_cast<std::size_t>(z[static_cast<std::size_t>(t)])];
      ++r.phi_counts[static_cast<std::size_t>(words[static_cast<std::size_t>(t)]) * kk + static_cast<std::size_t>(z[static_cast<std::size_t>(t)])];
    }
  }
  for (std::size_t i = 0; i < r.theta.size(); ++i) r.theta[i] = gamma_draw(alpha + r.theta_counts[i], seed, i);
  for (std::size_t i = 0; i < r.phi.size(); ++i) r.phi[i] = gamma_draw(beta + r.phi_counts[i], seed, r.theta.size() + i);
  // S_k in two levels (the kernel's parallel order): chunks of kLdaSumChunk
  // words each added in word order, then the chunks' sums in chunk order.
  std::vector<double> sums(kk, 0.0);
  for (std::size_t first = 0; first < v; first += kLdaSumChunk) {
    std::vector<double> chunk(kk, 0.0);
    for (std::size_t c = first; c < std::min(v, first + kLdaSumChunk); ++c)
      for (std::size_t j = 0; j < kk; ++j) chunk[j] += r.phi[c * kk + j];
    for (std::size_t j = 0; j < kk; ++j) sums[j] += chunk[j];
  }
  for (std::size_t i = 0; i < r.phi.size(); ++i) r.phi[i] /= sums[i % kk];
  return r;
}

}  // namespace warpsim::oracle::rejection
