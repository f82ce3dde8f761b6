// Binomial variates from rng/'s uniforms, the same on the host and the
// device: the sectioned alias sampler divides its draws among sections with
// them (oracle/alias/sectioned.hpp and gpu/alias_table.cu both call this, so a
// section's count is the same number in both).
//
//   binomial(n, p, next)       next() returns the next uniform in [0, 1)
//     p = 0 or n = 0: 0; p = 1: n; p > 1/2: n - binomial(n, 1 - p)
//     n p < 10: geometric gaps (floor(log U / log q) failures before each
//               success), about n p + 1 uniforms
//     n p >= 10: BTRS, Hormann's transformed rejection with squeeze (W.
//               Hormann, "The generation of binomial random variates", J.
//               Statist. Comput. Simul. 46, 1993), two uniforms a try,
//               accepting with probability above 0.8 for n p >= 10
//   section_split(seed, batch, node, n, left, rows)
//     Binomial(n, left / rows) on uniforms (seed, stream batch, draw node,
//     fourth counter word 1, 2, ...) of the Philox mapping
//
// Both methods are exact in law in real arithmetic; here every step is one
// IEEE double operation rounded to nearest (on the device the _rn
// intrinsics, which nvcc never fuses into an FMA), and the logarithm is
// computed from those operations alone (log_rn, within a few ulp), because
// the host's and CUDA's log differ in the last bits. So host and device
// return the same k for the same uniforms; the law is the binomial's up to
// those roundings (p itself is a double: relative error 2^-53), which the
// tests check with a chi-square of 10^5 draws per (n, p) against Boost.Math.
#pragma once

#include <cstdint>
#include <cstring>

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

#include "rng/philox_uniform.hpp"

namespace warpsim::rng {

namespace detail {

// One rounding each, never fused.
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double div_rn(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ double sqrt_rn(double a) { return __dsqrt_rn(a); }
__device__ __forceinline__ double floor_exact(double a) { return floor(a); }
#else
inline double add_rn(double a, double b) {
  volatile double r = a + b;
  return r;
}
inline double sub_rn(double a, double b) {
  volatile double r = a - b;
  return r;
}
inline double mul_rn(double a, double b) {
  volatile double r = a * b;
  return r;
}
inline double div_rn(double a, double b) {
  volatile double r = a / b;
  return r;
}
inline double sqrt_rn(double a) { return std::sqrt(a); }  // IEEE: correctly rounded
inline double floor_exact(double a) { return std::floor(a); }
#endif

WARPSIM_HOST_DEVICE inline std::uint64_t bits_of(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
WARPSIM_HOST_DEVICE inline double double_of(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

}  // namespace detail

// The natural logarithm from rounded +, -, *, / alone: x = m 2^e with m in
// [sqrt(1/2), sqrt(2)), log m = 2 atanh(s) = 2 (s + s^3/3 + ... + s^23/23)
// with s = (m - 1) / (m + 1), |s| < 0.172 (the next term is below 2^-60 of
// the sum), and e log 2 in two parts (fdlibm's ln2_hi has trailing zeros,
// so e ln2_hi is exact). log_rn(0) = -infinity; x must not be negative or NaN.
WARPSIM_HOST_DEVICE inline double log_rn(double x) {
  using detail::add_rn;
  using detail::bits_of;
  using detail::div_rn;
  using detail::double_of;
  using detail::mul_rn;
  using detail::sub_rn;
  if (x == 0) return double_of(0xfff0000000000000ull);  // -infinity
  std::uint64_t b = bits_of(x);
  int e = static_cast<int>((b >> 52) & 0x7ff);
  if (e == 0) {  // subnormal: scale into the normal range, exactly
    b = bits_of(mul_rn(x, 0x1p54));
    e = static_cast<int>((b >> 52) & 0x7ff) - 54;
  }
  e -= 1023;
  double m = double_of((b & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1023} << 52));  // [1, 2)
  if (m > 0x1.6a09e667f3bcdp+0) {  // sqrt(2)
    m = mul_rn(m, 0.5);
    e += 1;
  }
  const double s = div_rn(sub_rn(m, 1.0), add_rn(m, 1.0));
  const double z = mul_rn(s, s);
  // 1 + z/3 + z^2/5 + ... + z^11/23, by Horner from the inside.
  constexpr double c[12] = {1.0,        1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,  1.0 / 11,
                            1.0 / 13,   1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23};
  double poly = c[11];
  for (int k = 10; k >= 0; --k) poly = add_rn(mul_rn(poly, z), c[k]);
  const double log_m = mul_rn(mul_rn(2.0, s), poly);
  const double ln2_hi = 0x1.62e42fee00000p-1, ln2_lo = 0x1.a39ef35793c76p-33;
  const double de = static_cast<double>(e);
  return add_rn(mul_rn(de, ln2_hi), add_rn(mul_rn(de, ln2_lo), log_m));
}

namespace detail {

// log(k!) - ((k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2): exact values
// below 10, Stirling's series in 1/(k + 1) to the fifth power above.
WARPSIM_HOST_DEVICE inline double stirling_tail(double k) {
  if (k < 10) {
    constexpr double table[10] = {0x1.4c071bcda0a5bp-4, 0x1.52a9b923ea649p-5, 0x1.c579a268d80b3p-6, 0x1.54a2662fd78a9p-6,
                                  0x1.10b4e513fcbedp-6, 0x1.c6b167bebdf36p-7, 0x1.85d4d612e4a86p-7, 0x1.552805e7b3076p-7,
                                  0x1.2f4871b12ab64p-7, 0x1.10f9d4c0743a7p-7};
    return table[static_cast<int>(k)];
  }
  const double x = add_rn(k, 1.0), x2 = mul_rn(x, x);
  // (1/12 - (1/360 - (1/1260) / x^2) / x^2) / x
  return div_rn(sub_rn(1.0 / 12, div_rn(sub_rn(1.0 / 360, div_rn(1.0 / 1260, x2)), x2)), x);
}

// n p < 10, p <= 1/2: successes among n trials from the geometric gaps
// between them.
template <class Next>
WARPSIM_HOST_DEVICE std::uint64_t binomial_gaps(std::uint64_t n, double p, Next& next) {
  const double log_q = log_rn(sub_rn(1.0, p));  // < 0
  const double dn = static_cast<double>(n);
  double trials = 0;
  std::uint64_t k = 0;
  while (true) {
    const double gap = floor_exact(div_rn(log_rn(next()), log_q));  // failures before the next success; +inf for U = 0
    trials = add_rn(trials, add_rn(gap, 1.0));
    if (!(trials <= dn)) return k;
    ++k;
  }
}

// n p >= 10, p <= 1/2: BTRS.
template <class Next>
WARPSIM_HOST_DEVICE std::uint64_t binomial_btrs(std::uint64_t n, double p, Next& next) {
  const double dn = static_cast<double>(n);
  const double q = sub_rn(1.0, p);
  const double spq = sqrt_rn(mul_rn(mul_rn(dn, p), q));
  const double b = add_rn(1.15, mul_rn(2.53, spq));
  const double a = add_rn(add_rn(-0.0873, mul_rn(0.0248, b)), mul_rn(0.01, p));
  const double c = add_rn(mul_rn(dn, p), 0.5);
  const double v_r = sub_rn(0.92, div_rn(4.2, b));
  const double alpha = mul_rn(add_rn(2.83, div_rn(5.1, b)), spq);
  const double r = div_rn(p, q);
  const double m = floor_exact(mul_rn(add_rn(dn, 1.0), p));
  const double n1 = add_rn(dn, 1.0);
  // The log of the pmf ratio's bound at the mode, which every try reuses.
  const double at_mode = add_rn(mul_rn(add_rn(m, 0.5), log_rn(div_rn(add_rn(m, 1.0), mul_rn(r, sub_rn(n1, m))))),
                                add_rn(stirling_tail(m), stirling_tail(sub_rn(dn, m))));
  while (true) {
    const double u = sub_rn(next(), 0.5);
    double v = next();
    const double us = sub_rn(0.5, u < 0 ? -u : u);
    const double k = floor_exact(add_rn(mul_rn(add_rn(div_rn(mul_rn(2.0, a), us), b), u), c));
    if (!(k >= 0 && k <= dn)) continue;  // also -inf (us = 0)
    if (us >= 0.07 && v <= v_r) return static_cast<std::uint64_t>(k);
    v = log_rn(div_rn(mul_rn(v, alpha), add_rn(div_rn(a, mul_rn(us, us)), b)));
    const double nk = sub_rn(n1, k);
    const double bound = sub_rn(add_rn(add_rn(at_mode, mul_rn(n1, log_rn(div_rn(sub_rn(n1, m), nk)))),
                                       mul_rn(add_rn(k, 0.5), log_rn(div_rn(mul_rn(nk, r), add_rn(k, 1.0))))),
                                add_rn(stirling_tail(k), stirling_tail(sub_rn(dn, k))));
    if (v <= bound) return static_cast<std::uint64_t>(k);
  }
}

}  // namespace detail

// Binomial(n, p), n < 2^53, p in [0, 1]; next() gives the uniforms.
template <class Next>
WARPSIM_HOST_DEVICE std::uint64_t binomial(std::uint64_t n, double p, Next&& next) {
  using namespace detail;
  if (n == 0 || !(p > 0)) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(n, sub_rn(1.0, p), next);
  if (mul_rn(static_cast<double>(n), p) < 10) return binomial_gaps(n, p, next);
  return binomial_btrs(n, p, next);
}

// Binomial(n, left / rows): node `node` of the sectioned sampler's split
// tree, in the batch whose first draw is `batch`; its j-th uniform (j = 1,
// 2, ...) is the Philox block (seed, stream batch, draw node, word3 j).
WARPSIM_HOST_DEVICE inline std::uint64_t section_split(std::uint64_t seed, std::uint64_t batch, std::uint32_t node, std::uint64_t n,
                                                       std::uint64_t left, std::uint64_t rows) {
  std::uint32_t j = 0;
  auto next = [&] { return uniform<double>(seed, batch, node, ++j); };
  return binomial(n, detail::div_rn(static_cast<double>(left), static_cast<double>(rows)), next);
}

}  // namespace warpsim::rng
