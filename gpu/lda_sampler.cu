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
};

enum class Coop { Transposed, ButterflyStandard, ButterflyAddSub };

template <class T, Coop C>
__global__ void lda_cooperative_kernel(const T* __restrict__ theta, const T* __restrict__ phi, const int* __restrict__ offsets,
                                       const int* __restrict__ words, int documents, int k, std::uint64_t seed,
                                       int* __restrict__ z, T* __restrict__ scratch) {
  const int lane = threadIdx.x & (kW - 1);
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kW;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kW;
  T* p = warp_scratch(scratch, warp, k, lane, 2, 0);
  T* theta_local = warp_scratch(scratch, warp, k, lane, 2, 1);
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
      if constexpr (C == Coop::Transposed) {
        zi = draw_transposed(src, p, k, lane, u);
      } else {
        zi = draw_butterfly<T, C == Coop::ButterflyAddSub>(src, p, k, lane, u);
      }
      if (real && n > 0 && i_master < n) z[t] = zi;
    }
    __syncwarp();
  }
}


}  // namespace

template <class T>
void LdaSampler<T>::draw(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k,
                         std::uint64_t seed, MatrixAlgorithm algorithm, int* z, cudaStream_t stream) {
  if (documents < 1 || k < 1) throw std::invalid_argument("LdaSampler::draw: needs at least one document and K >= 1");
  if (!theta || !phi || !offsets || !words || !z) throw std::invalid_argument("LdaSampler::draw: null device pointer");
  const void* kernel = nullptr;
  switch (algorithm) {
    case MatrixAlgorithm::Baseline: kernel = reinterpret_cast<const void*>(&lda_baseline_kernel<T>); break;
    case MatrixAlgorithm::TransposedRegisters: kernel = reinterpret_cast<const void*>(&lda_cooperative_kernel<T, Coop::Transposed>); break;
    case MatrixAlgorithm::ButterflyStandard: kernel = reinterpret_cast<const void*>(&lda_cooperative_kernel<T, Coop::ButterflyStandard>); break;
    case MatrixAlgorithm::ButterflyAddSub: kernel = reinterpret_cast<const void*>(&lda_cooperative_kernel<T, Coop::ButterflyAddSub>); break;
  }
  const bool cooperative = algorithm != MatrixAlgorithm::Baseline;
  // Two K-value arrays per lane (p' and theta_local): shared memory while
  // 1, 2 or 4 warps' worth fit in 100 KiB, else global scratch.
  const std::size_t per_warp = 2 * static_cast<std::size_t>(kW) * k * sizeof(T);
  int warps_per_block = 0;
  for (int w : {4, 2, 1})
    if (cooperative && w * per_warp <= 100 * 1024) {
      warps_per_block = w;
      break;
    }
  const std::size_t shared = warps_per_block ? warps_per_block * per_warp : 0;
  const int threads = shared ? warps_per_block * kW : kThreads;
  if (shared) WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  const int needed = cooperative ? ((documents + kW - 1) / kW * kW + threads - 1) / threads : (documents + threads - 1) / threads;
  const int blocks = std::min(needed, resident_blocks(kernel, threads, shared));
  T* scratch = shared ? nullptr : scratch_.ensure(static_cast<std::size_t>(blocks) * threads * k * (cooperative ? 2 : 1));
  switch (algorithm) {
    case MatrixAlgorithm::Baseline:
      lda_baseline_kernel<T><<<blocks, threads, 0, stream>>>(theta, phi, offsets, words, documents, k, seed, z, scratch);
      break;
    case MatrixAlgorithm::TransposedRegisters:
      lda_cooperative_kernel<T, Coop::Transposed><<<blocks, threads, shared, stream>>>(theta, phi, offsets, words, documents, k, seed, z, scratch);
      break;
    case MatrixAlgorithm::ButterflyStandard:
      lda_cooperative_kernel<T, Coop::ButterflyStandard><<<blocks, threads, shared, stream>>>(theta, phi, offsets, words, documents, k, seed, z, scratch);
      break;
    case MatrixAlgorithm::ButterflyAddSub:
      lda_cooperative_kernel<T, Coop::ButterflyAddSub><<<blocks, threads, shared, stream>>>(theta, phi, offsets, words, documents, k, seed, z, scratch);
      break;
  }
  WARPSIM_CUDA(cudaGetLastError());
}

template class LdaSampler<float>;
template class LdaSampler<double>;

}  // namespace warpsim::gpu
