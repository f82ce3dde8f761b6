// e^x in float, the same bits on the host and on a GPU: the one exp that the
// token law (oracle/token/) and its kernels (gpu/token/) share, as they share
// rng/philox_uniform.hpp. CUDA's expf and glibc's differ in the last bit for
// some x, and weights that differ by an ulp are not the same law bit for bit;
// this one is made of operations both sides round alike:
//
//   t = fma(x, log2(e), 1.5 2^23)                 (x log2(e) rounded to an integer k, half to even,
//                                                   in one rounding; k read from t's low bits)
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

namespace detail {

// p(r) 2^k for x in [-87, 88] (the callers clamp): the steps above.
WARPSIM_EXP_HOST_DEVICE inline float exp_f32_core(float x) {
  constexpr float kLog2e = 1.44269502e+00f;
  constexpr float kShifter = 12582912.0f;    // 1.5 2^23: adding it rounds to an integer, kept in the low bits
  constexpr float kLn2Hi = 6.93145752e-01f;  // 0x1.62e4p-1: ln 2's high bits
  constexpr float kLn2Lo = 1.42860677e-06f;  // ln 2 - hi, rounded to float
  // 1/n! for n = 7 .. 2, rounded to float
  constexpr float c7 = 1.98412701e-04f, c6 = 1.38888892e-03f, c5 = 8.33333377e-03f, c4 = 4.16666679e-02f, c3 = 1.66666672e-01f,
                  c2 = 5.0e-01f;
#if defined(__CUDA_ARCH__)
  const float t = fmaf(x, kLog2e, kShifter);
  const float k = __fsub_rn(t, kShifter);
  const int ki = __float_as_int(t) - __float_as_int(kShifter);
  float r = fmaf(-k, kLn2Hi, x);
  r = fmaf(-k, kLn2Lo, r);
  float p = fmaf(c7, r, c6);
  p = fmaf(p, r, c5);
  p = fmaf(p, r, c4);
  p = fmaf(p, r, c3);
  p = fmaf(p, r, c2);
  p = fmaf(p, r, 1.0f);
  p = fmaf(p, r, 1.0f);
  return __fmul_rn(p, __int_as_float((ki + 127) << 23));  // 2^k for k in [-126, 127], exact
#else
  const float t = std::fma(x, kLog2e, kShifter);
  const float k = t - kShifter;
  std::int32_t tb, sb;
  std::memcpy(&tb, &t, 4);
  std::memcpy(&sb, &kShifter, 4);
  const std::int32_t ki = tb - sb;
  float r = std::fma(-k, kLn2Hi, x);
  r = std::fma(-k, kLn2Lo, r);
  float p = std::fma(c7, r, c6);
  p = std::fma(p, r, c5);
  p = std::fma(p, r, c4);
  p = std::fma(p, r, c3);
  p = std::fma(p, r, c2);
  p = std::fma(p, r, 1.0f);
  p = std::fma(p, r, 1.0f);
  const auto bits = static_cast<std::uint32_t>(ki + 127) << 23;  // 2^k for k in [-126, 127], exact
  float scale;
  std::memcpy(&scale, &bits, 4);
  return p * scale;
#endif
}

}  // namespace detail

// The edge cases are selected at the end rather than branched to, so a
// kernel's loop over weights stays one straight line.
WARPSIM_EXP_HOST_DEVICE inline float exp_f32(float x) {
  const bool under = x < -87.0f, over = x > 88.0f, nan = x != x;  // (-inf is under, +inf over)
  const float e = detail::exp_f32_core(under || over || nan ? 0.0f : x);
  return nan ? x : under ? 0.0f : over ? HUGE_VALF : e;
}

// exp_f32 for x <= 0 (and -inf), where the token law calls it (a logit
// times 1 / T less the largest): the same value, bit for bit (tested), with
// the NaN and overflow cases left out of a kernel's hottest loop.
WARPSIM_EXP_HOST_DEVICE inline float exp_f32_nonpositive(float x) {
  const bool under = x < -87.0f;
  const float e = detail::exp_f32_core(under ? 0.0f : x);
  return under ? 0.0f : e;
}

}  // namespace warpsim::rng
