// Arithmetic rounded once, the same on host and device: on the device the
// _rn intrinsics, which nvcc never contracts into an FMA; on the host plain
// IEEE operations (x86-64 SSE: one rounding each, no contraction without FMA
// code generation). Host code includes this only to test device code paths.
#pragma once

#include "gpu/detail/host_device.hpp"

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace warpsim::gpu::detail {

#if defined(__CUDA_ARCH__)
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
#else
template <class T>
inline T add_rn(T a, T b) {
  volatile T r = a + b;  // volatile: one rounding to T, never fused with a neighbour
  return r;
}
template <class T>
inline T sub_rn(T a, T b) {
  volatile T r = a - b;
  return r;
}
template <class T>
inline T mul_rn(T a, T b) {
  volatile T r = a * b;
  return r;
}
#endif

#if defined(__CUDA_ARCH__)
__device__ __forceinline__ float below(float sum) { return nextafterf(sum, 0.0f); }
__device__ __forceinline__ double below(double sum) { return nextafter(sum, 0.0); }
#else
template <class T>
inline T below(T sum) {
  return std::nextafter(sum, T{0});
}
#endif

// u' = sum * u rounded once, kept below the total: once the total is
// subnormal the product can round up to it, and every search would then fall
// off an end of the array onto a weight of 0 (docs/errata.md, E9). Below the
// total, it lands on the last index of non-zero weight. Never acts for a
// normal total.
template <class T>
WARPSIM_HD inline T scaled_target(T sum, T u) {
  const T t = mul_rn(sum, u);
  return t < sum ? t : below(sum);
}

}  // namespace warpsim::gpu::detail
