// The seeded-bug catalogue's CUDA forms (properties/mutants.hpp): the same
// warp-per-row sampler as the host form in mutants.cpp, written again in
// CUDA, with the same one-place mutations (marked MUTATION). It shares only
// rng/ with the host form. Every CUDA call and launch is checked.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/launch.hpp"  // DeviceScratch
#include "properties/detail/mutation.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::properties {

namespace {

constexpr int kW = 32;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kNone = 0x7fffffff;
constexpr int kWarpsPerBlock = 4;

__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float below(float x) { return nextafterf(x, 0.0f); }
__device__ __forceinline__ double below(double x) { return nextafter(x, 0.0); }

template <class T, Mutation M>
__device__ T add(T a, T b) {
  if constexpr (M == Mutation::FloatAccumulation) return static_cast<T>(__fadd_rn(static_cast<float>(a), static_cast<float>(b)));  // MUTATION
  return add_rn(a, b);
}

template <class T, Mutation M>
__device__ T load(const T* w, int r, int k, int j, T previous) {
  const int bound = M == Mutation::LoadBoundOffByOne ? k + 1 : k;  // MUTATION load-bound-off-by-one
  T x = M == Mutation::StalePadding ? previous : T(0);             // MUTATION stale-padding
  if (j < bound) x = w[static_cast<std::size_t>(r) * static_cast<std::size_t>(k) + static_cast<std::size_t>(j)];
  if constexpr (M == Mutation::ZeroGuardEpsilon) x = x > T(1e-30) ? x : T(1e-30);  // MUTATION zero-guard-epsilon
  return x;
}

// carry + x[0] + ... + x[lane], in order.
template <class T, Mutation M>
__device__ T scan_in_order(T x, T carry, int lane) {
  T s = lane == 0 ? add<T, M>(carry, x) : x;
  for (int step = 1; step < kW; ++step) {
    const T y = __shfl_up_sync(kFull, s, 1);
    if (lane > 0) s = add<T, M>(y, x);
  }
  return s;
}

template <class T, Mutation M>
__global__ void warp_per_row(const T* w, int m, int k, std::uint64_t seed, int* out) {
  __shared__ T slot[kWarpsPerBlock];
  const int lane = static_cast<int>(threadIdx.x) % kW;
  const int wib = static_cast<int>(threadIdx.x) / kW;
  const int q = static_cast<int>(blockIdx.x) * kWarpsPerBlock + wib;
  if (q * kW >= m) return;  // whole warps leave together
  const int blocks = M == Mutation::RemnantSkipped ? k / kW : (k + kW - 1) / kW;  // MUTATION remnant-skipped
  std::uint64_t own_row = static_cast<std::uint64_t>(q * kW + lane);
  if constexpr (M == Mutation::SameUniformTwoRows) own_row &= ~std::uint64_t{1};  // MUTATION same-uniform-two-rows
  if constexpr (M == Mutation::StreamByLane) own_row = static_cast<std::uint64_t>(lane);  // MUTATION stream-by-lane
  T u_own;
  if constexpr (M == Mutation::SinglePrecisionUniform) {
    u_own = static_cast<T>(rng::uniform<float>(seed, own_row));  // MUTATION single-precision-uniform
  } else {
    u_own = rng::uniform<T>(seed, own_row);
  }
  T x = 0;  // the lane's weight register, reused block after block and row after row
  for (int i = 0; i < kW && q * kW + i < m; ++i) {
    const int r = q * kW + i;
    T u = __shfl_sync(kFull, u_own, M == Mutation::OtherLanesUniform ? (i + 1) % kW : i);  // MUTATION other-lanes-uniform
    if constexpr (M == Mutation::UniformOpenClosed) u = T(1) - u;                           // MUTATION uniform-open-closed
    // Pass 1: the total.
    T carry = 0;
    for (int b = 0; b < blocks; ++b) {
      x = load<T, M>(w, r, k, b * kW + lane, x);
      const T s = scan_in_order<T, M>(x, carry, lane);
      carry = __shfl_sync(kFull, s, M == Mutation::WrongSourceLane ? kW - 2 : kW - 1);  // MUTATION wrong-source-lane
    }
    const T product = mul_rn(carry, u);
    const T target = product < carry ? product : below(carry);
    // Pass 2: the first j with u' < P[j].
    const int last = M == Mutation::LastNeverDrawn ? k - 2 : k - 1;  // MUTATION last-never-drawn
    int found = last;
    carry = 0;
    for (int b = 0; b < blocks; ++b) {
      x = load<T, M>(w, r, k, b * kW + lane, x);
      const T s = scan_in_order<T, M>(x, M == Mutation::RunningSumResetPerBlock ? T(0) : carry, lane);  // MUTATION running-sum-reset
      if (lane == kW - 1) slot[wib] = s;
      if constexpr (M != Mutation::MissingSyncwarp) __syncwarp();  // MUTATION missing-syncwarp
      // Lane 0's read decides for the warp (a broadcast keeps the branch
      // uniform even where the read races: a divergent warp would then
      // deadlock in the next __shfl_sync instead of drawing a wrong index).
      const T end = __shfl_sync(kFull, slot[wib], 0);
      __syncwarp();
      const bool enter = M == Mutation::ZeroAfterHeavy ? target <= end : target < end;  // MUTATION zero-after-heavy
      if (!enter) {
        carry = end;
        continue;
      }
      const int j = b * kW + lane;
      const bool hit = M == Mutation::LessEqualAtBoundary ? target <= s : target < s;  // MUTATION less-equal-at-boundary
      int cand = j <= last && hit ? j : kNone;
      for (int d = M == Mutation::WrongXorDistance ? kW / 4 : kW / 2; d >= 1; d /= 2) {  // MUTATION wrong-xor-distance
        cand = min(cand, __shfl_xor_sync(kFull, cand, d));
      }
      found = cand != kNone ? cand : min(last, b * kW + kW - 1);
      break;
    }
    if (lane == 0) out[r] = found;
  }
}

template <class T, Mutation M>
std::vector<int> run(const T* weights, int rows, int cols, std::uint64_t seed) {
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  gpu::DeviceScratch<T> w;
  gpu::DeviceScratch<int> out;
  T* dw = w.ensure(n);
  int* dout = out.ensure(static_cast<std::size_t>(rows));
  WARPSIM_CUDA(cudaMemcpy(dw, weights, n * sizeof(T), cudaMemcpyHostToDevice));
  const int warps = (rows + kW - 1) / kW;
  warp_per_row<T, M><<<(warps + kWarpsPerBlock - 1) / kWarpsPerBlock, kWarpsPerBlock * kW>>>(dw, rows, cols, seed, dout);
  WARPSIM_CUDA_LAUNCH("warp_per_row mutant");
  std::vector<int> idx(static_cast<std::size_t>(rows));
  WARPSIM_CUDA(cudaMemcpy(idx.data(), dout, idx.size() * sizeof(int), cudaMemcpyDeviceToHost));
  return idx;
}

template <class T>
std::vector<int> dispatch(Mutation m, const T* weights, int rows, int cols, std::uint64_t seed) {
  switch (m) {
#define WARPSIM_MUTANT(X) \
  case Mutation::X:       \
    return run<T, Mutation::X>(weights, rows, cols, seed);
    WARPSIM_MUTANT(None)
    WARPSIM_MUTANT(LoadBoundOffByOne)
    WARPSIM_MUTANT(LastNeverDrawn)
    WARPSIM_MUTANT(LessEqualAtBoundary)
    WARPSIM_MUTANT(UniformOpenClosed)
    WARPSIM_MUTANT(FloatAccumulation)
    WARPSIM_MUTANT(WrongXorDistance)
    WARPSIM_MUTANT(WrongSourceLane)
    WARPSIM_MUTANT(RemnantSkipped)
    WARPSIM_MUTANT(OtherLanesUniform)
    WARPSIM_MUTANT(MissingSyncwarp)
    WARPSIM_MUTANT(SameUniformTwoRows)
    WARPSIM_MUTANT(RunningSumResetPerBlock)
    WARPSIM_MUTANT(ZeroAfterHeavy)
    WARPSIM_MUTANT(ZeroGuardEpsilon)
    WARPSIM_MUTANT(StalePadding)
    WARPSIM_MUTANT(StreamByLane)
    WARPSIM_MUTANT(SinglePrecisionUniform)
#undef WARPSIM_MUTANT
  }
  return {};
}

}  // namespace

namespace detail {

std::vector<int> cuda_warp_per_row(Mutation m, const float* weights, int rows, int cols, std::uint64_t seed) {
  return dispatch(m, weights, rows, cols, seed);
}
std::vector<int> cuda_warp_per_row(Mutation m, const double* weights, int rows, int cols, std::uint64_t seed) {
  return dispatch(m, weights, rows, cols, seed);
}

}  // namespace detail
}  // namespace warpsim::properties
