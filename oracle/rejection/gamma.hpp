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
// further uniform. Every operation is in the precision R (double; float for
// fp32 variates), one rounding each, in the order written (the kernels write
// the same order with __dmul_rn / __fmul_rn and friends: no contraction
// into FMA).
//
// The Philox mapping (task t: a draw's own number; attempt j = 0, 1, ...):
// attempt j of task t takes rng/'s block (seed, stream 2^63 + t, draw j):
//   double: u1 = ((x0 x1 >> 11) + 1/2) 2^-53 in (0, 1), angle = (x2 + 1/2) 2^-32,
//           u = (x3 + 1/2) 2^-32;
//   float:  u1, angle, u = ((x >> 9) + 1/2) 2^-23 of x0, x2, x3 (the normal's
//           tails end at 5.9 sigma, a probability of 4e-9 moved);
//   x = sqrt(-2 log u1) cos(2 pi angle)   (Box-Muller, one of its pair);
// the boost's U for a < 1 is u1 of the block (seed, 2^63 + t, 0, word3 1).
// The streams from 2^63 on keep clear of the z draws' (token t: stream t).
//
// The kernels equal these draws to within their log, cos and exp (CUDA's are
// within 1-2 ulp, glibc's correctly rounded or nearly): the same attempt
// accepted but where a comparison falls within those ulps (tests: in double
// none in 600,000 draws, values within 1e-9 relative; in float a handful in
// 10^6, values otherwise within 1e-5), and the law is checked against
// Boost.Math's gamma CDF (stats::ks_continuous_test).
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

/// The two numbers of an attempt, in the precision R the variate is computed in.
template <class R>
struct GammaAttempt {
  R normal = 0, u = 0;
};

inline double open_uniform53(std::uint32_t hi, std::uint32_t lo) {
  return (static_cast<double>(((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11) + 0.5) * 0x1p-53;
}
inline double open_uniform32(std::uint32_t x) { return (static_cast<double>(x) + 0.5) * 0x1p-32; }
// fp32: 23 bits, (k + 1/2) 2^-23 (exact in float), in (0, 1).
inline float open_uniform23(std::uint32_t x) { return (static_cast<float>(x >> 9) + 0.5f) * 0x1p-23f; }

template <class R = double>
GammaAttempt<R> gamma_attempt_numbers(std::uint64_t seed, std::uint64_t task, std::uint32_t attempt) {
  const auto x = rng::philox_bits(seed, kGammaStreams + task, attempt);
  R u1, angle, u;
  if constexpr (sizeof(R) == 8) {
    u1 = open_uniform53(x.v[0], x.v[1]);
    angle = open_uniform32(x.v[2]);
    u = open_uniform32(x.v[3]);
  } else {
    u1 = open_uniform23(x.v[0]);
    angle = open_uniform23(x.v[2]);
    u = open_uniform23(x.v[3]);
  }
  const R radius = std::sqrt(R(-2) * std::log(u1));
  const R turn = R(2 * std::numbers::pi) * angle;
  return {radius * std::cos(turn), u};
}

/// Marsaglia-Tsang's constants for shape a' >= 1.
template <class R = double>
struct GammaConstants {
  R d = 0, c = 0;
  explicit GammaConstants(R shape) : d(shape - R(1) / R(3)), c(R(1) / std::sqrt(R(9) * d)) {}
};

/// One attempt for shape a' >= 1: the variate d v if accepted, else a negative number.
template <class R>
R gamma_try(const GammaConstants<R>& k, const GammaAttempt<R>& a) {
  const R t = R(1) + k.c * a.normal;
  if (t <= 0) return -1;  // v = t^3 <= 0
  const R v = t * t * t;
  const R x2 = a.normal * a.normal;
  if (a.u < R(1) - R(0.0331) * (x2 * x2)) return k.d * v;
  if (std::log(a.u) < R(0.5) * x2 + k.d * (R(1) - v + std::log(v))) return k.d * v;
  return -1;
}

/// Gamma(shape) for task `task` (shape > 0; scale 1), computed in R (double,
/// or float for fp32 variates: gpu::gamma_sample<T> computes in T).
/// `attempts`, if given, is added to.
template <class R = double>
R gamma_draw(R shape, std::uint64_t seed, std::uint64_t task, std::uint64_t* attempts = nullptr) {
  const GammaConstants<R> k(shape < 1 ? shape + R(1) : shape);
  R g = -1;
  for (std::uint32_t j = 0; g < 0; ++j) {
    g = gamma_try(k, gamma_attempt_numbers<R>(seed, task, j));
    if (attempts) ++*attempts;
  }
  if (shape < 1) {
    const auto x = rng::philox_bits(seed, kGammaStreams + task, 0, 1);
    const R big_u = sizeof(R) == 8 ? static_cast<R>(open_uniform53(x.v[0], x.v[1])) : static_cast<R>(open_uniform23(x.v[0]));
    g *= std::exp(std::log(big_u) / shape);
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

/// The theta and phi half of the uncollapsed LDA sweep (gpu::LdaTopicSampler<R>):
/// n[m, k] and n[c, k] counted from z; theta[m, k] = Gamma(alpha + n[m, k])
/// (task m K + k), phi[c, k] = Gamma(beta + n[c, k]) / S_k (task M K + c K
/// + k), the variates computed in R, the shapes alpha + n in double then
/// rounded to R; S_k in double, added in chunks of kLdaSumChunk words (each
/// in word order), then the chunks in order; phi = R(double(variate) / S_k).
template <class R = double>
struct LdaTopics {
  std::vector<int> theta_counts, phi_counts;  // M x K, V x K
  std::vector<R> theta, phi;                  // M x K, V x K
};

template <class R = double>
LdaTopics<R> lda_topic_draws(const std::vector<int>& z, const std::vector<int>& offsets, const std::vector<int>& words, int vocabulary, int k,
                             double alpha, double beta, std::uint64_t seed) {
  const auto documents = static_cast<std::size_t>(offsets.size() - 1), kk = static_cast<std::size_t>(k), v = static_cast<std::size_t>(vocabulary);
  LdaTopics<R> r{std::vector<int>(documents * kk, 0), std::vector<int>(v * kk, 0), std::vector<R>(documents * kk), std::vector<R>(v * kk)};
  for (std::size_t m = 0; m < documents; ++m) {
    for (int t = offsets[m]; t < offsets[m + 1]; ++t) {
      ++r.theta_counts[m * kk + static_cast<std::size_t>(z[static_cast<std::size_t>(t)])];
      ++r.phi_counts[static_cast<std::size_t>(words[static_cast<std::size_t>(t)]) * kk + static_cast<std::size_t>(z[static_cast<std::size_t>(t)])];
    }
  }
  for (std::size_t i = 0; i < r.theta.size(); ++i) r.theta[i] = gamma_draw<R>(static_cast<R>(alpha + r.theta_counts[i]), seed, i);
  std::vector<R> raw(r.phi.size());
  for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = gamma_draw<R>(static_cast<R>(beta + r.phi_counts[i]), seed, r.theta.size() + i);
  // S_k in two levels (the kernel's parallel order): chunks of kLdaSumChunk
  // words each added in word order, then the chunks' sums in chunk order.
  std::vector<double> sums(kk, 0.0);
  for (std::size_t first = 0; first < v; first += kLdaSumChunk) {
    std::vector<double> chunk(kk, 0.0);
    for (std::size_t c = first; c < std::min(v, first + kLdaSumChunk); ++c)
      for (std::size_t j = 0; j < kk; ++j) chunk[j] += static_cast<double>(raw[c * kk + j]);
    for (std::size_t j = 0; j < kk; ++j) sums[j] += chunk[j];
  }
  for (std::size_t i = 0; i < r.phi.size(); ++i) r.phi[i] = static_cast<R>(static_cast<double>(raw[i]) / sums[i % kk]);
  return r;
}

}  // namespace warpsim::oracle::rejection
