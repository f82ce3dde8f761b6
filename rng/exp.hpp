// e^x in double, the same bits on the host and on a GPU: the one exp that
// token laws (oracle/token/) and their kernels share, as they share
// rng/philox_uniform.hpp. glibc's exp and CUDA's differ in the last bit for
// some x, and a law whose weights differ by an ulp is not the same law bit
// for bit; this one is made of operations both sides round alike:
//
//   k = nearbyint(x * log2(e))              (round half to even, both sides)
//   r = fma(-k, ln2_hi, x); r = fma(-k, ln2_lo, r)   (Cody-Waite: |r| <= 0.3466)
//   p = 1 + r + r^2/2! + ... + r^13/13!     (Horner, every step an explicit fma)
//   e^x = p * 2^k                           (ldexp: exact, subnormal results rounded once)
//
// Every multiply-add is written as fma (std::fma on the host, fma on the
// device), so no compiler contracts or splits differently. Accuracy: within
// 1 ulp of e^x over [-745, 709] (tests/unit/token_law_test.cpp, SharedExp:
// 2 x 10^5 points against long double); exp(0) = 1 exactly; x < -745.2 gives 0, x > 709.78 gives inf,
// NaN gives NaN, -inf gives 0.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define WARPSIM_EXP_HOST_DEVICE __host__ __device__
#else
#define WARPSIM_EXP_HOST_DEVICE
#endif

namespace warpsim::rng {

WARPSIM_EXP_HOST_DEVICE inline double exp(double x) {
  using std::fma;
  using std::ldexp;
  using std::nearbyint;
  if (x != x) return x;                // NaN
  if (x < -745.2) return 0.0;          // below the least subnormal's half (and -inf)
  if (x > 709.79) return HUGE_VAL;     // past the largest double (and +inf)
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2's high bits (trailing zeros: k * hi is exact)
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - hi
  const double k = nearbyint(x * kLog2e);
  double r = fma(-k, kLn2Hi, x);
  r = fma(-k, kLn2Lo, r);
  // 1/n! for n = 13 .. 2, rounded to double
  constexpr double c[] = {1.6059043836821613e-10, 2.08767569878681e-09, 2.505210838544172e-08, 2.755731922398589e-07,
                          2.7557319223985893e-06, 2.48015873015873e-05, 0.0001984126984126984, 0.001388888888888889,
                          0.008333333333333333,  0.041666666666666664, 0.16666666666666666,  0.5};
  double p = c[0];
  for (int i = 1; i < 12; ++i) p = fma(p, r, c[i]);
  p = fma(p, r, 1.0);
  p = fma(p, r, 1.0);
  return ldexp(p, static_cast<int>(k));
}

}  // namespace warpsim::rng
