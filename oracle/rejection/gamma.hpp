// Gamma variates by Marsaglia and Tsang's rejection method ("A simple method
// for generating gamma variables", ACM TOMS 26(3), 2000), the second user of
// the warp rejection loop (gpu/warp_rejection.cuh), and from them the
// Dirichlet draws of theta and phi that complete seed 000's uncollapsed LDA
// sweep (Sec. 4: z given theta and phi; theta and phi given z).
//
// For shape a >= 1, with d = a - 1/3 and c = 1 / sqrt(9 d), an attempt takes
// a standard normal x and a uniform u: t = 1 + c x, rejected if t <= 0; v =
// t^3; accepted if u < 1 - 0.0331 x^4 (the squeeze) or log u < x^2 / 2 + d (1
// - v + log v); the variate is d v. For a < 1: Gamma(a + 1) U^(1/a), U a
// further uniform, computed as G e with e = U^(1/a) where e is a normal
// number, else (e underflowed) with G folded in first (gamma_boost: base 2
// in float, whose exp2 a GPU computes in one instruction; natural in
// double).
//
// Underflow (one rule, both precisions): a variate below the smallest normal
// number of R (FLT_MIN = 2^-126, DBL_MIN = 2^-1022) is returned as that
// number, as PyTorch's _standard_gamma clamps -- every variate is > 0 and
// normal, so log x is finite. It happens for a < 1 only (the boost): at a =
// 0.01, P(X < FLT_MIN) = 0.420 and P(X < DBL_MIN) = 8.4e-4. Above it the law
// is exact; P(X = min) is the law's P(X <= min) (tests/unit/gamma_test.cpp).
//
// Every operation is in the precision R (double; float for fp32 variates),
// one rounding each (fma where written), in the order written: the kernels
// write the same order with __fmul_rn / fmaf and friends.
//
// The normal is rng/ziggurat.hpp's ziggurat, so the common attempt computes
// no log, cos or exp: a layer, a sign and an abscissa from one block, an
// integer test, one multiplication. An attempt whose ziggurat draw is
// rejected (wedge or tail test failed: 0.7% of draws) is a rejected attempt
// -- attempts are independent, so the accepted normal is exactly N(0, 1).
//
// The Philox mapping (task t: a draw's own number; attempt j = 0, 1, ...),
// every word of a block used where the common attempt needs it:
//   float: tasks 2P and 2P + 1 share the blocks of stream 2^63 + P (half h
//          = t mod 2). Attempt j takes the block (seed, 2^63 + P, draw j):
//          zig = x[2h], layer = zig & 255, sign = bit 8, m = zig >> 9 (23
//          bits); u = ((x[2h+1] >> 9) + 1/2) 2^-23. The boost's U: the same of
//          x[h] of the block (seed, 2^63 + P, 0, word3 1).
//   double: task t has stream 2^63 + t (h = 0). Attempt j: layer = x1 & 255,
//          sign = bit 8 of x1, m = (x0 x1) >> 11 (53 bits); u =
//          open_uniform53(x2, x3). The boost's U: tasks 2P and 2P + 1
//          share a block as in float: open_uniform53(x[2h], x[2h+1]) of
//          (seed, 2^63 + P, 0, word3 1), h = t mod 2.
//   the ziggurat's wedge and tail (rare) take U1, U2 from the block (seed,
//   stream, j, word3 2): float y[2h], y[2h+1]; double (y0 y1), (y2 y3).
// So an fp32 variate of shape >= 1 costs half a block, an fp64 one a block.
// The streams from 2^63 on keep clear of the z draws' (token t: stream t).
//
// The kernels equal these draws bit for bit on the common path (the
// ziggurat's fast test, the squeeze; a >= 1), and to within their log,
// exp, log2 and exp2 (CUDA's within 1-2 ulp, glibc's correctly rounded or
// nearly) where those are called -- the boost, the wedge and tail, the
// squeeze's second test: the same attempt accepted but where a comparison
// falls within those ulps (tests/gpu/gamma_test.cpp counts them), and the
// law is checked against Boost.Math's gamma CDF (stats::ks_continuous_test).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "rng/philox_uniform.hpp"
#include "rng/ziggurat.hpp"

namespace warpsim::oracle::rejection {

inline constexpr std::uint64_t kGammaStreams = std::uint64_t{1} << 63;
inline constexpr std::uint32_t kGammaBoostWord = 1, kGammaSlowWord = 2;  // the counter's fourth word of those blocks
inline constexpr std::size_t kLdaSumChunk = 256;  // the words a partial sum of phi's columns adds

inline double open_uniform53(std::uint32_t hi, std::uint32_t lo) {
  return (static_cast<double>(((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11) + 0.5) * 0x1p-53;
}
inline double open_uniform32(std::uint32_t x) { return (static_cast<double>(x) + 0.5) * 0x1p-32; }
// fp32: 23 bits, (k + 1/2) 2^-23 (exact in float), in (0, 1).
inline float open_uniform23(std::uint32_t x) { return (static_cast<float>(x >> 9) + 0.5f) * 0x1p-23f; }

template <class R>
const rng::ZigguratTables<R>& ziggurat_tables() {
  static const auto tables = rng::make_ziggurat_tables<R>();
  return tables;
}

/// The two numbers of an attempt, in the precision R the variate is computed
/// in; `ok` false where the ziggurat rejected its draw (the attempt is then
/// rejected).
template <class R>
struct GammaAttempt {
  bool ok = false;
  R normal = 0, u = 0;
};

/// The stream of task `task`'s blocks and the half of each it takes.
template <class R>
std::uint64_t gamma_stream(std::uint64_t task) {
  return kGammaStreams + (sizeof(R) == 4 ? task / 2 : task);
}
template <class R>
int gamma_half(std::uint64_t task) {
  return sizeof(R) == 4 ? static_cast<int>(task & 1) : 0;
}

/// Attempt `attempt` of task `task`: the ziggurat's normal and u.
template <class R = double>
GammaAttempt<R> gamma_attempt_numbers(std::uint64_t seed, std::uint64_t task, std::uint32_t attempt) {
  const auto& z = ziggurat_tables<R>();
  const std::uint64_t stream = gamma_stream<R>(task);
  const int h = gamma_half<R>(task);
  const auto x = rng::philox_bits(seed, stream, attempt);
  int layer;
  bool negative;
  R unit, u;
  typename rng::ZigguratTables<R>::Bits m;
  if constexpr (sizeof(R) == 4) {
    const std::uint32_t zig = x.v[2 * h];
    layer = static_cast<int>(zig & 255u);
    negative = ((zig >> 8) & 1u) != 0;
    m = zig >> 9;
    unit = open_uniform23(zig);
    u = open_uniform23(x.v[2 * h + 1]);
  } else {
    layer = static_cast<int>(x.v[1] & 255u);
    negative = ((x.v[1] >> 8) & 1u) != 0;
    m = ((static_cast<std::uint64_t>(x.v[0]) << 32) | x.v[1]) >> 11;
    unit = open_uniform53(x.v[0], x.v[1]);
    u = open_uniform53(x.v[2], x.v[3]);
  }
  R a = unit * z.x[layer];
  bool ok = m < z.fast[layer];
  if (!ok) {
    const auto y = rng::philox_bits(seed, stream, attempt, kGammaSlowWord);
    const R u1 = sizeof(R) == 4 ? static_cast<R>(open_uniform23(y.v[2 * h])) : static_cast<R>(open_uniform53(y.v[0], y.v[1]));
    const R u2 = sizeof(R) == 4 ? static_cast<R>(open_uniform23(y.v[2 * h + 1])) : static_cast<R>(open_uniform53(y.v[2], y.v[3]));
    if (layer == 0) {  // the tail beyond r
      const R r = static_cast<R>(rng::kZigguratR);
      const R t = -std::log(u1) / r;
      ok = R(-2) * std::log(u2) > t * t;
      a = r + t;
    } else {  // the wedge
      ok = z.f[layer] + u1 * (z.f[layer + 1] - z.f[layer]) < std::exp(R(-0.5) * (a * a));
    }
  }
  return {ok, negative ? -a : a, u};
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
  if (!a.ok) return -1;
  const R t = std::fma(k.c, a.normal, R(1));
  if (!(t > 0)) return -1;  // v = t^3 <= 0
  const R v = t * t * t;
  const R x2 = a.normal * a.normal;
  if (a.u < std::fma(R(-0.0331), x2 * x2, R(1))) return k.d * v;
  if (std::log(a.u) < std::fma(R(0.5), x2, k.d * ((R(1) - v) + std::log(v)))) return k.d * v;
  return -1;
}

/// The boost's U for task `task` (shape < 1): tasks 2P and 2P + 1 share
/// the block (seed, 2^63 + P, 0, word3 1), in both precisions.
template <class R = double>
R gamma_boost_uniform(std::uint64_t seed, std::uint64_t task) {
  const auto x = rng::philox_bits(seed, kGammaStreams + task / 2, 0, kGammaBoostWord);
  const auto h = static_cast<int>(task & 1);
  if constexpr (sizeof(R) == 4) return open_uniform23(x.v[h]);
  else return open_uniform53(x.v[2 * h], x.v[2 * h + 1]);
}

/// G U^(1/a), at least R's smallest normal number (1/a rounded once: a
/// kernel keeps it for a run of equal shapes). float: G e with e = 2^l, l =
/// log2(U) (1/a), where e is a normal number, else (G 2^(l + 64)) 2^-64 (l
/// + 64 is exact there, and the last multiplication exact unless its result
/// is below the clamp); base 2 because a GPU's exp2f is one hardware
/// instruction. double: G e with e = exp(l), l = log(U) (1/a), else exp(log
/// G + l).
template <class R>
R gamma_boost(R g, R shape, R big_u) {
  constexpr R min = std::numeric_limits<R>::min();
  if constexpr (sizeof(R) == 4) {
    const float l = std::log2(big_u) * (1.0f / shape), e = std::exp2(l);
    return std::max(e >= min ? g * e : g * std::exp2(l + 64.0f) * 0x1p-64f, min);
  } else {
    const double l = std::log(big_u) * (1.0 / shape), e = std::exp(l);
    return std::max(e >= min ? g * e : std::exp(std::log(g) + l), min);
  }
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
  return shape < 1 ? gamma_boost(g, shape, gamma_boost_uniform<R>(seed, task)) : g;
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
/// in word order), then the chunks in order; phi = R(double(variate) (1 / S_k)),
/// 1 / S_k rounded once (a multiplication an entry, not a division).
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
  for (auto& s : sums) s = 1 / s;
  for (std::size_t i = 0; i < r.phi.size(); ++i) r.phi[i] = static_cast<R>(static_cast<double>(raw[i]) * sums[i % kk]);
  return r;
}

}  // namespace warpsim::oracle::rejection
