#include <algorithm>
#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/draw_algorithms.cuh"
#include "gpu/lda_sampler.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

using namespace detail;
constexpr int kThreads = 256;

// Baseline: a thread reads its document's theta row and the word's phi row itself.
template <class T>
struct OwnRowsSource {
  const T* __restrict__ theta_row;
  const T* __restrict__ phi_row;
  __device__ T own(int j) const { return mul_rn(theta_row[j], phi_row[j]); }
  __device__ void block(int, T (&)[kW]) const {}
};

template <class T>
__global__ void lda_baseline_kernel(const T* __restrict__ theta, const T* __restrict__ phi, const int* __restrict__ offsets,
                                    const int* __restrict__ words, int documents, int k, std::uint64_t seed, int* __restrict__ z,
                                    T* __restrict__ scratch) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T* p = scratch + tid;
  for (std::size_t m = tid; m < static_cast<std::size_t>(documents); m += threads) {
    for (int t = offsets[m]; t < offsets[m + 1]; ++t) {
      const OwnRowsSource<T> src{theta + m * k, phi + static_cast<std::size_t>(words[t]) * k};
      z[t] = draw_baseline(src, p, threads, k, rng::uniform<T>(seed, static_cast<std::uint64_t>(t)));
    }
  }
}

// The cooperative algorithms' source (Alg. 6 and 8): theta cached in
// theta_local (Alg. 5: the remnant the lane's own, the blocks transposed),
// the words of the warp's current tokens in registers (c_warp), phi read with
// transposed (coalesced) access.
template <class T>
struct LdaWarpSource {
  const T* theta_local;  // the lane's theta_local[i] at theta_local[i * W]
  const T* __restrict__ phi;
  int k;
  int word;          // this lane's
  int c_warp[kW];    // lane kk's word
  __device__ T own(int j) const { return mul_rn(theta_local[static_cast<std::size_t>(j) * kW], phi[static_cast<std::size_t>(word) * k + j]); }
  __device__ __forceinline__ void block(int j, T (&a)[kW]) const {
    const int lane = threadIdx.x & (kW - 1);
#pragma unroll
    for (int kk = 0; kk < kW; ++kk) {
      a[kk] = mul_rn(theta_local[static_cast<std::size_t>(j + kk) * kW],
                     __ldg(phi + static_cast<std::size_t>(c_warp[kk]) * k + j + lane));
    }
  }
  // The lane's own weights j .. j+W-1 of a block, recomputed: the same
  // products of the same values. theta_local holds blocks transposed (lane i
  // keeps the column j + i of every document of the warp), so the lane's own
  // document's theta for the block is row j + lane of theta_local, across lanes.
  __device__ __forceinline__ void own_block(int j, T (&x)[kW]) const {
    const int lane = threadIdx.x & (kW - 1);
    const T* theta_row = theta_local - lane + static_cast<std::size_t>(j + lane) * kW;
    const T* phi_row = phi + static_cast<std::size_t>(word) * k + j;
#pragma unroll
    for (int i = 0; i < kW; ++i) x[i] = mul_rn(theta_row[i], __ldg(phi_row + i));
  }
};

enum class Coop { Transposed, ButterflyStandard, ButterflyAddSub };

// What a lane keeps besides theta_local (K values): p' or the running sums
// (Full), or, past shared memory, only the remnant's and blocks' running
// sums (Sums: draw_transposed_recompute, draw_butterfly_recompute).
enum class Storage { Full, Sums };

__host__ __device__ constexpr int kept_values(int k, Storage st) { return st == Storage::Sums ? k % kW + k / kW : k; }

template <class T, Coop C, Storage St>
__global__ void lda_cooperative_kernel(const T* __restrict__ theta, const T* __restrict__ phi, const int* __restrict__ offsets,
                                       const int* __restrict__ words, int documents, int k, std::uint64_t seed,
                                       int* __restrict__ z, T* __restrict__ scratch) {
  const int lane = threadIdx.x & (kW - 1);
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kW;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kW;
  // theta_local's K values, then p' or the sums, per lane (stride W)
  T* theta_local = warp_scratch(scratch, warp, k + kept_values(k, St), lane);
  T* p = theta_local + static_cast<std::size_t>(k) * kW;
  const int r = k % kW;
  for (std::size_t q = warp; q * kW < static_cast<std::size_t>(documents); q += warps) {
    const bool real = q * kW + lane < static_cast<std::size_t>(documents);
    const std::size_t m = min(q * kW + lane, static_cast<std::size_t>(documents - 1));
    // Alg. 5: cache theta (the remnant as is, the blocks with transposed access)
    for (int j = 0; j < r; ++j) theta_local[static_cast<std::size_t>(j) * kW] = theta[m * k + j];
    for (int j = r; j < k; j += kW) {
#pragma unroll 8
      for (int kk = 0; kk < kW; ++kk) {
        const std::size_t doc = min(q * kW + kk, static_cast<std::size_t>(documents - 1));
        theta_local[static_cast<std::size_t>(j + kk) * kW] = theta[doc * k + j + lane];
      }
    }
    __syncwarp();
    // The master-index loop: every lane stays awake until the warp's longest
    // document is done, repeating its last token (same token, same u, same z).
    const int first = offsets[m], n = offsets[m + 1] - first;
    for (int i_master = 0; __any_sync(kFull, i_master < n); ++i_master) {
      const int i = min(i_master, n - 1);
      const int t = first + max(i, 0);
      LdaWarpSource<T> src{theta_local, phi, k, n > 0 ? words[t] : 0, {}};
#pragma unroll
      for (int kk = 0; kk < kW; ++kk) src.c_warp[kk] = __shfl_sync(kFull, src.word, kk);
      const T u = rng::uniform<T>(seed, static_cast<std::uint64_t>(t));
      int zi;
      if constexpr (C == Coop::Transposed && St == Storage::Sums) {
        zi = draw_transposed_recompute(src, p, k, lane, u);
      } else if constexpr (C == Coop::Transposed) {
        zi = draw_transposed(src, p, k, lane, u);
      } else if constexpr (St == Storage::Sums) {
        zi = draw_butterfly_recompute<T, C == Coop::ButterflyAddSub>(src, p, k, lane, u);
      } else {
        zi = draw_butterfly<T, C == Coop::ButterflyAddSub>(src, p, k, lane, u);
      }
      if (real && n > 0 && i_master < n) z[t] = zi;
    }
    __syncwarp();
  }
}


}  // namespace

namespace {

// One launch with a grid of resident blocks only (each warp loops over its
// documents); `values` per lane in dynamic shared memory for 4, 2 or 1 warps
// a block while that fits in 100 KiB, else in global scratch.
template <class T, Coop C, Storage St>
void launch_cooperative(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k, std::uint64_t seed, int* z,
                        DeviceScratch<T>& scratch, cudaStream_t stream) {
  const void* kernel = reinterpret_cast<const void*>(&lda_cooperative_kernel<T, C, St>);
  const std::size_t per_warp = static_cast<std::size_t>(kW) * static_cast<std::size_t>(k + kept_values(k, St)) * sizeof(T);
  int warps_per_block = 0;
  for (int w : {4, 2, 1})
    if (w * per_warp <= 100 * 1024) {
      warps_per_block = w;
      break;
    }
  const std::size_t shared = warps_per_block * per_warp;
  const int threads = shared ? warps_per_block * kW : kThreads;
  if (shared) WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  const int needed = ((documents + kW - 1) / kW * kW + threads - 1) / threads;
  const int blocks = std::min(needed, resident_blocks(kernel, threads, shared));
  T* global_scratch = shared ? nullptr : scratch.ensure(static_cast<std::size_t>(blocks) * threads / kW * per_warp / sizeof(T));
  lda_cooperative_kernel<T, C, St><<<blocks, threads, shared, stream>>>(theta, phi, offsets, words, documents, k, seed, z, global_scratch);
  WARPSIM_CUDA(cudaGetLastError());
}

// p' (or the running sums) beside theta_local while both fit in shared
// memory; past that only the block sums.
template <class T, Coop C>
void draw_cooperative(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k, std::uint64_t seed, int* z,
                      DeviceScratch<T>& scratch, cudaStream_t stream) {
  const bool full_fits = 2 * static_cast<std::size_t>(kW) * k * sizeof(T) <= 100 * 1024;
  if (full_fits) {
    launch_cooperative<T, C, Storage::Full>(theta, phi, offsets, words, documents, k, seed, z, scratch, stream);
  } else {
    launch_cooperative<T, C, Storage::Sums>(theta, phi, offsets, words, documents, k, seed, z, scratch, stream);
  }
}

}  // namespace

template <class T>
void LdaSampler<T>::draw(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k,
                         std::uint64_t seed, MatrixAlgorithm algorithm, int* z, cudaStream_t stream) {
  if (documents < 1 || k < 1) throw std::invalid_argument("LdaSampler::draw: needs at least one document and K >= 1");
  if (!theta || !phi || !offsets || !words || !z) throw std::invalid_argument("LdaSampler::draw: null device pointer");
  switch (algorithm) {
    case MatrixAlgorithm::Baseline: {
      const void* kernel = reinterpret_cast<const void*>(&lda_baseline_kernel<T>);
      const int blocks = std::min((documents + kThreads - 1) / kThreads, resident_blocks(kernel, kThreads, 0));
      T* scratch = scratch_.ensure(static_cast<std::size_t>(blocks) * kThreads * k);
      lda_baseline_kernel<T><<<blocks, kThreads, 0, stream>>>(theta, phi, offsets, words, documents, k, seed, z, scratch);
      WARPSIM_CUDA(cudaGetLastError());
      return;
    }
    case MatrixAlgorithm::TransposedRegisters:
      return draw_cooperative<T, Coop::Transposed>(theta, phi, offsets, words, documents, k, seed, z, scratch_, stream);
    case MatrixAlgorithm::ButterflyStandard:
      return draw_cooperative<T, Coop::ButterflyStandard>(theta, phi, offsets, words, documents, k, seed, z, scratch_, stream);
    case MatrixAlgorithm::ButterflyAddSub:
      return draw_cooperative<T, Coop::ButterflyAddSub>(theta, phi, offsets, words, documents, k, seed, z, scratch_, stream);
  }
}

template class LdaSampler<float>;
template class LdaSampler<double>;

}  // namespace warpsim::gpu
