// e^x in float, the same bits on the host and on a GPU: the one exp that the
// token law (oracle/token/) and its kernels (gpu/token/) share, as they share
// rng/philox_uniform.hpp. CUDA's expf and glibc's differ in the last bit for
// some x, and weights that differ by an ulp are not the same law bit for bit;
// this one is made of operations both sides round alike:
//
//   k = rint(x * log2(e))                          (one float product, then round half to even)
//   r = fma(-k, ln2_hi, x); r = fma(-k, ln2_lo, r) (Cody-Waite: |r| <= 0.3466)
//   p = 1 + r + r^2/2! + ... + r^7/7!              (Horner, every step an explicit fmaf)
//   e^x = p * 2^k                                  (2^k built from its bits; one rounding
//                                                   where the result is subnormal)
//
// Every multiply-add is written as fmaf (std::fma on the host, fmaf on the
// device), so no compiler contracts or splits differently, and nothing reads
// the rounding mode or flush-to-zero (nvcc's defaults keep denormals).
// Accuracy: within 2 ulp of e^x over [-87, 88] (tests/unit/token_law_test.cpp,
// SharedExp, measures it against double); exp(0) = 1 exactly; x < -87 gives
// 0 (e^-87 is 2^-125.5: the token law's weights quantise far above that), x > 88
// gives inf, NaN gives NaN, -inf gives 0.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define WARPSIM_EXP_HOST_DEVICE __host__ __device__
#else
#define WARPSIM_EXP_HOST_DEVICE
#endif

namespace warpsim::rng {

WARPSIM_EXP_HOST_DEVICE inline float exp_f32(float x) {
  if (x != x) return x;              // NaN
  if (x < -87.0f) return 0.0f;       // (and -inf)
  if (x > 88.0f) return HUGE_VALF;   // (and +inf)
  constexpr float kLog2e = 1.44269502e+00f;
  constexpr float kLn2Hi = 6.93145752e-01f;  // 0x1.62e4p-1: ln 2's high bits
  constexpr float kLn2Lo = 1.42860677e-06f;  // ln 2 - hi, rounded to float
#if defined(__CUDA_ARCH__)
  const float k = rintf(__fmul_rn(x, kLog2e));
  float r = fmaf(-k, kLn2Hi, x);
  r = fmaf(-k, kLn2Lo, r);
#else
  const float k = std::nearbyint(x * kLog2e);
  float r = std::fma(-k, kLn2Hi, x);
  r = std::fma(-k, kLn2Lo, r);
#endif
  // 1/n! for n = 7 .. 2, rounded to float
  constexpr float c[] = {1.98412701e-04f, 1.38888892e-03f, 8.33333377e-03f, 4.16666679e-02f, 1.66666672e-01f, 5.0e-01f};
  float p = c[0];
#if defined(__CUDA_ARCH__)
  for (int i = 1; i < 6; ++i) p = fmaf(p, r, c[i]);
  p = fmaf(p, r, 1.0f);
  p = fmaf(p, r, 1.0f);
#else
  for (int i = 1; i < 6; ++i) p = std::fma(p, r, c[i]);
  p = std::fma(p, r, 1.0f);
  p = std::fma(p, r, 1.0f);
#endif
  // 2^k for k in [-126, 127] (x in [-87, 88]), exact; one product rounds
  const std::uint32_t bits = static_cast<std::uint32_t>(static_cast<int>(k) + 127) << 23;
  float scale;
#if defined(__CUDA_ARCH__)
  scale = __uint_as_float(bits);
  return __fmul_rn(p, scale);
#else
  std::memcpy(&scale, &bits, 4);
  return p * scale;
#endif
}

}  // namespace warpsim::rng
