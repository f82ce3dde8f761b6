#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/draw_algorithms.cuh"
#include "gpu/detail/launch_plan.hpp"
#include "gpu/detail/lda_schedule.cuh"
#include "gpu/lda_sampler.hpp"
#include "gpu/detail/tile_ring.cuh"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

using namespace detail;
constexpr int kThreads = detail::kThreadsPerBlock;

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

// Where the rows of a phi tile start (copy_tile_async), at columns j ..
// j+W-1: row kk is the word of lane kk's current token. `gather` holds the
// words of the rows this lane copies 16 bytes of (Copy16); copying one value
// at a time, the word comes from lane kk by a shuffle.
template <class T>
struct GatherRows {
  const T* __restrict__ phi;
  int k, j;
  const int (&gather)[Copy16<T>::rows_per_lane];
  int word;
  __device__ __forceinline__ const T* row16(int i, int) const { return phi + static_cast<std::size_t>(gather[i]) * k + j; }
  __device__ __forceinline__ const T* row(int kk) const { return phi + static_cast<std::size_t>(__shfl_sync(kFull, word, kk)) * k + j; }
};

// One token's own weights, read directly (sum_remnant and the searches).
template <class T>
struct LdaToken {
  const T* __restrict__ theta_row;  // the lane's document's
  const T* __restrict__ phi_row;    // the token's word's
  __device__ __forceinline__ T own(int j) const { return mul_rn(__ldg(theta_row + j), __ldg(phi_row + j)); }
  __device__ __forceinline__ void own_block(int j, T (&x)[kW]) const {
#pragma unroll
    for (int i = 0; i < kW; ++i) x[i] = mul_rn(__ldg(theta_row + j + i), __ldg(phi_row + j + i));
  }
};

// Past shared memory with a ring (TileRing), for S tokens of every document
// at once: a stage holds a block's theta tile (the warp's documents' columns
// j .. j+W-1, read straight from theta: theta_local would be a copy of theta
// in global memory read with the same access), copied once for the S
// tokens, and one phi tile per token (those columns of its words' rows).
// Token s's weights in the block are the products, the same products as
// LdaWarpSource's.
template <class T, int S>
struct LdaTiles {
  static constexpr int stage_values = (1 + S) * kW * kW;
  const T* __restrict__ theta;
  const T* __restrict__ phi;
  int documents, k;
  std::size_t q;    // the warp's documents q*W .. q*W + W-1
  std::size_t doc;  // this lane's
  int lane;
  bool vec16;       // theta, phi and K * sizeof(T) 16-byte aligned
  int word[S];      // this lane's tokens' words
  int gather[S][Copy16<T>::rows_per_lane];

  // The words of the phi rows this lane copies (once per S tokens).
  __device__ __forceinline__ void gather_words() {
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int i = 0; i < Copy16<T>::rows_per_lane; ++i) gather[s][i] = __shfl_sync(kFull, word[s], Copy16<T>::row(i, lane));
  }
  __device__ __forceinline__ void copy(int j, T* stage) const {
    copy_tile_async(stage, WarpRows<T>{theta, documents, k, j, q}, lane, vec16);  // the warp's documents' rows
#pragma unroll
    for (int s = 0; s < S; ++s) copy_tile_async(stage + (1 + s) * kW * kW, GatherRows<T>{phi, k, j, gather[s], word[s]}, lane, vec16);
  }
  // Token s's block from its stage (the lane's column).
  __device__ __forceinline__ void read(const T* stage, int s, T (&a)[kW]) const {
#pragma unroll
    for (int kk = 0; kk < kW; ++kk) a[kk] = mul_rn(stage[kk * kW], stage[(1 + s) * kW * kW + kk * kW]);
  }
  __device__ __forceinline__ LdaToken<T> token(int s) const {
    return {theta + doc * static_cast<std::size_t>(k), phi + static_cast<std::size_t>(word[s]) * k};
  }
};

// What a lane keeps besides theta_local (K values): p' or the running sums
// (Storage::Full), or, past shared memory, only the remnant's and blocks'
// running sums (Storage::Sums: draw_transposed_recompute,
// draw_butterfly_recompute); detail::kept_values counts them.

template <class T, MatrixAlgorithm C, Storage St>
__global__ void lda_cooperative_kernel(const T* __restrict__ theta, const T* __restrict__ phi, const int* __restrict__ offsets,
                                       const int* __restrict__ words, int documents, int k, std::uint64_t seed,
                                       int* __restrict__ z, T* __restrict__ scratch, LdaChunks chunks) {
  const int lane = threadIdx.x & (kW - 1);
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kW;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kW;
  // theta_local's K values, then p' or the sums, per lane (stride W)
  T* theta_local = warp_scratch(scratch, warp, k + kept_values(k, St), lane);
  T* p = theta_local + static_cast<std::size_t>(k) * kW;
  const int r = k % kW;
  LdaWork work(chunks, static_cast<int>(warp), static_cast<int>(warps), lane);
  std::size_t cached = ~std::size_t{0};  // the group whose theta theta_local holds
  while (work.next()) {
    const std::size_t q = static_cast<std::size_t>(work.group());
    const bool real = q * kW + lane < static_cast<std::size_t>(documents);
    const std::size_t m = min(q * kW + lane, static_cast<std::size_t>(documents - 1));
    if (q != cached) {
      __syncwarp();  // every lane done reading the last group's
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
      cached = q;
    }
    // The master-index loop: every lane stays awake until the warp's longest
    // document is done, repeating its last token (same token, same u, same
    // z), over the item's steps. (i_end is the warp's, so the test is
    // `i_master < i_end && any lane's i_master < n`; written so, nvcc gives
    // this kernel 25-40% fewer registers and it runs up to 2.2x slower at
    // K <= 128, H200, 2026-11-30. lda_ring_kernel is the other way round.)
    const int first = offsets[m], n = offsets[m + 1] - first;
    const int i_end = work.end();
    for (int i_master = work.first(); __any_sync(kFull, i_master < min(n, i_end)); ++i_master) {
      const int i = min(i_master, n - 1);
      const int t = first + max(i, 0);
      LdaWarpSource<T> src{theta_local, phi, k, n > 0 ? words[t] : 0, {}};
#pragma unroll
      for (int kk = 0; kk < kW; ++kk) src.c_warp[kk] = __shfl_sync(kFull, src.word, kk);
      const T u = rng::uniform<T>(seed, static_cast<std::uint64_t>(t));
      int zi;
      if constexpr (St == Storage::Sums) {
        zi = draw_recompute<T, C>(src, p, k, lane, u);
      } else {
        zi = draw_full<T, C>(src, p, k, lane, u);
      }
      if (real && n > 0 && i_master < n) z[t] = zi;
    }
  }
}

// Past shared memory with a ring of Ring stages (LdaTuning::ring), S tokens
// of every document a sweep (LdaTuning::tokens): a lane keeps only each
// token's remnant and block running sums, in shared memory beside the ring
// (or, G: LdaTuning::global_sums, in global_sums, S kept values a lane and
// warp), and the blocks stream through the ring (Ring - 1 in flight while one is
// drawn), so a warp's time per block is its arithmetic rather than a round
// trip to memory, and each theta tile serves S tokens. Token by token the
// operations are draw_*_recompute's, in the same order.
template <class T, MatrixAlgorithm C, int Ring, int S, bool G>
__global__ void lda_ring_kernel(const T* __restrict__ theta, const T* __restrict__ phi, const int* __restrict__ offsets,
                                const int* __restrict__ words, int documents, int k, std::uint64_t seed, int* __restrict__ z, bool vec16,
                                T* __restrict__ global_sums, LdaChunks chunks) {
  using Tiles = LdaTiles<T, S>;
  const int lane = threadIdx.x & (kW - 1);
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kW;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kW;
  const int r = k % kW, blocks = k / kW;
  const std::size_t kept = kept_values(k, Storage::Sums);
  // token s's sums at sums + s * kept * W; the ring's stages after them (or alone)
  T* sums = G ? global_sums + warp * S * kept * kW + lane : warp_scratch<T>(nullptr, warp, S * kept + Ring * Tiles::stage_values / kW, lane);
  T* ring = G ? warp_scratch<T>(nullptr, warp, Ring * Tiles::stage_values / kW, 0) : sums - lane + S * kept * kW;
  LdaWork work(chunks, static_cast<int>(warp), static_cast<int>(warps), lane);
  while (work.next()) {
    const int i_first = work.first(), i_end = work.end();
    const std::size_t q = static_cast<std::size_t>(work.group());
    const bool real = q * kW + lane < static_cast<std::size_t>(documents);
    const std::size_t m = min(q * kW + lane, static_cast<std::size_t>(documents - 1));
    const int first = offsets[m], n = offsets[m + 1] - first;
    // The master-index loop, as in lda_cooperative_kernel, S steps at a
    // time, over the item's steps.
    // (Written `any lane's i_master < min(n, i_end)`, this kernel ran 1.3x
    // slower at fp64 K = 1,024: the opposite of lda_cooperative_kernel.)
    for (int i_master = i_first; i_master < i_end && __any_sync(kFull, i_master < n); i_master += S) {
      Tiles tiles{theta, phi, documents, k, q, m, lane, vec16, {}, {}};
      int t[S];
#pragma unroll
      for (int s = 0; s < S; ++s) {
        t[s] = first + max(min(i_master + s, n - 1), 0);
        tiles.word[s] = n > 0 ? words[t[s]] : 0;
      }
      tiles.gather_words();
      const TileRing<T, Ring, Tiles> ring_of_blocks{tiles, ring, r, blocks, lane};
      ring_of_blocks.prologue();
      T sum[S];
#pragma unroll
      for (int s = 0; s < S; ++s) sum[s] = sum_remnant(tiles.token(s), sums + s * kept * kW, r);
      for (int b = 0; b < blocks; ++b) {
        const T* stage = ring_of_blocks.acquire(b);
#pragma unroll
        for (int s = 0; s < S; ++s) {
          T a[kW];
          tiles.read(stage, s, a);
          sum[s] = block_step<T, C>(sum[s], a, lane);
          sums[(s * kept + r + b) * kW] = sum[s];
        }
        ring_of_blocks.release();
      }
#pragma unroll
      for (int s = 0; s < S; ++s) {
        const T target = scaled_target(sum[s], rng::uniform<T>(seed, static_cast<std::uint64_t>(t[s])));
        const int zi = recompute_search<T, C>(tiles.token(s), sums + s * kept * kW, k, lane, target);
        if (real && n > 0 && i_master + s < n) z[t[s]] = zi;
      }
    }
  }
}

}  // namespace

namespace {

// prefix[g + 1] = group g's chunks of `tokens` master-index steps (its
// longest document's tokens over `tokens`, rounded up); prefix[0] = 0.
__global__ void lda_chunk_counts_kernel(const int* __restrict__ offsets, int documents, int groups, int tokens, int* __restrict__ prefix) {
  const int g = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (g == 0) prefix[0] = 0;
  if (g >= groups) return;
  int longest = 0;
  const int last = static_cast<int>(min(static_cast<long long>(documents), (g + 1LL) * kW));
  for (int m = g * kW; m < last; ++m) longest = max(longest, offsets[m + 1] - offsets[m]);
  prefix[g + 1] = static_cast<int>((static_cast<long long>(longest) + tokens - 1) / tokens);
}

// What a launch passes LdaWork (gpu/detail/lda_schedule.cuh): for chunks of
// `tokens` steps (0: whole groups), their counts, then their inclusive scan
// in place, on `stream`.
LdaChunks plan_lda_chunks(const int* offsets, int documents, int tokens, DeviceScratch<int>& plan, DeviceScratch<unsigned char>& temp,
                          cudaStream_t stream) {
  const int groups = (documents + kW - 1) / kW;
  if (!tokens) return {nullptr, groups, 0};
  int* prefix = plan.ensure(static_cast<std::size_t>(groups) + 1);
  lda_chunk_counts_kernel<<<(groups + 255) / 256, 256, 0, stream>>>(offsets, documents, groups, tokens, prefix);
  WARPSIM_CUDA(cudaGetLastError());
  std::size_t bytes = 0;
  WARPSIM_CUDA(cub::DeviceScan::InclusiveSum(nullptr, bytes, prefix + 1, prefix + 1, groups, stream));
  WARPSIM_CUDA(cub::DeviceScan::InclusiveSum(temp.ensure(bytes), bytes, prefix + 1, prefix + 1, groups, stream));
  return {prefix, groups, tokens};
}

// Bytes of shared memory per warp of lda_ring_kernel (the sums' too unless
// they are in global scratch).
template <class T>
std::size_t ring_bytes_per_warp(int k, int ring, int tokens, bool global_sums) {
  const std::size_t stage_values = static_cast<std::size_t>(1 + tokens) * kW * kW;
  const std::size_t sums = global_sums ? 0 : static_cast<std::size_t>(kW) * tokens * kept_values(k, Storage::Sums);
  return (sums + ring * stage_values) * sizeof(T);
}

// What a launch of the cooperative kernels needs besides its inputs.
template <class T>
struct LaunchScratch {
  DeviceScratch<T>& sums;
  DeviceScratch<int>& plan;
  DeviceScratch<unsigned char>& plan_temp;
};

template <class T, MatrixAlgorithm C, int Ring, int S, bool G>
void launch_ring(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k, std::uint64_t seed, int* z,
                 int chunk, LaunchScratch<T> scratch, cudaStream_t stream) {
  const void* kernel = reinterpret_cast<const void*>(&lda_ring_kernel<T, C, Ring, S, G>);
  // The warps a block (4, 2 or 1) that keep the most warps resident.
  const SharedPlan plan = most_resident(kernel, ring_bytes_per_warp<T>(k, Ring, S, G));
  const int warps_per_block = plan.warps;
  const std::size_t shared = plan.bytes;
  const int threads = warps_per_block * kW;
  const int groups = (documents + kW - 1) / kW;
  // Whole groups: no more warps than groups. Chunks: every resident warp
  // (the items are counted on the device).
  const int needed = chunk ? std::numeric_limits<int>::max() : (groups + warps_per_block - 1) / warps_per_block;
  const int blocks = std::min(needed, resident_blocks(kernel, threads, shared));
  const bool vec16 = aligned16({theta, phi}, static_cast<std::size_t>(k) * sizeof(T));
  T* sums = G ? scratch.sums.ensure(static_cast<std::size_t>(blocks) * warps_per_block * S * kept_values(k, Storage::Sums) * kW) : nullptr;
  const LdaChunks chunks = plan_lda_chunks(offsets, documents, chunk * S, scratch.plan, scratch.plan_temp, stream);
  lda_ring_kernel<T, C, Ring, S, G><<<blocks, threads, shared, stream>>>(theta, phi, offsets, words, documents, k, seed, z, vec16, sums, chunks);
  WARPSIM_CUDA(cudaGetLastError());
}

template <class T, MatrixAlgorithm C, int S>
void launch_ring(const LdaTuning& tuning, const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k,
                 std::uint64_t seed, int* z, LaunchScratch<T> scratch, cudaStream_t stream) {
  const int chunk = tuning.chunk;
  if (tuning.global_sums) {
    if (tuning.ring == 2) return launch_ring<T, C, 2, S, true>(theta, phi, offsets, words, documents, k, seed, z, chunk, scratch, stream);
    return launch_ring<T, C, 3, S, true>(theta, phi, offsets, words, documents, k, seed, z, chunk, scratch, stream);
  }
  if (tuning.ring == 2) return launch_ring<T, C, 2, S, false>(theta, phi, offsets, words, documents, k, seed, z, chunk, scratch, stream);
  return launch_ring<T, C, 3, S, false>(theta, phi, offsets, words, documents, k, seed, z, chunk, scratch, stream);
}

// One launch with a grid of resident blocks only (each warp loops over its
// documents); `values` per lane in dynamic shared memory for 4, 2 or 1 warps
// a block while that fits in 100 KiB, else in global scratch.
template <class T, MatrixAlgorithm C, Storage St>
void launch_cooperative(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k, std::uint64_t seed, int* z,
                        int chunk, LaunchScratch<T> scratch, cudaStream_t stream) {
  const void* kernel = reinterpret_cast<const void*>(&lda_cooperative_kernel<T, C, St>);
  const std::size_t per_warp = static_cast<std::size_t>(kW) * static_cast<std::size_t>(k + kept_values(k, St)) * sizeof(T);
  const SharedPlan plan = first_fit(per_warp);
  const int warps_per_block = plan.warps;
  const std::size_t shared = plan.bytes;
  const int threads = shared ? warps_per_block * kW : kThreads;
  if (shared) WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  // Whole groups: no more warps than groups. Chunks: every resident warp.
  const int needed = chunk ? std::numeric_limits<int>::max() : ((documents + kW - 1) / kW * kW + threads - 1) / threads;
  const int blocks = std::min(needed, resident_blocks(kernel, threads, shared));
  T* global_scratch = shared ? nullptr : scratch.sums.ensure(static_cast<std::size_t>(blocks) * threads / kW * per_warp / sizeof(T));
  const LdaChunks chunks = plan_lda_chunks(offsets, documents, chunk, scratch.plan, scratch.plan_temp, stream);  // a step a token
  lda_cooperative_kernel<T, C, St><<<blocks, threads, shared, stream>>>(theta, phi, offsets, words, documents, k, seed, z, global_scratch, chunks);
  WARPSIM_CUDA(cudaGetLastError());
}

// p' (or the running sums) beside theta_local while both fit in shared
// memory; past that only the block sums, the blocks through a ring in shared
// memory (tuning.ring, tuning.tokens, the tokens halved while the ring does
// not fit), or, where the ring is 0 or does not fit even for one token,
// theta_local and the sums in global scratch and the blocks loaded straight
// to registers.
template <class T, MatrixAlgorithm C>
void draw_cooperative(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k, std::uint64_t seed, int* z,
                      const LdaTuning& tuning, LaunchScratch<T> scratch, cudaStream_t stream) {
  const bool full_fits = 2 * static_cast<std::size_t>(kW) * k * sizeof(T) <= kSharedLimit;
  if (full_fits) return launch_cooperative<T, C, Storage::Full>(theta, phi, offsets, words, documents, k, seed, z, tuning.chunk, scratch, stream);
  // Fewer tokens a sweep where the ring for that many does not fit a block.
  int tokens = tuning.tokens;
  while (tokens > 1 && ring_bytes_per_warp<T>(k, tuning.ring, tokens, tuning.global_sums) > max_shared_per_block()) tokens /= 2;
  if (tuning.ring == 0 || ring_bytes_per_warp<T>(k, tuning.ring, tokens, tuning.global_sums) > max_shared_per_block())
    return launch_cooperative<T, C, Storage::Sums>(theta, phi, offsets, words, documents, k, seed, z, tuning.chunk, scratch, stream);
  switch (tokens) {
    case 1: return launch_ring<T, C, 1>(tuning, theta, phi, offsets, words, documents, k, seed, z, scratch, stream);
    case 2: return launch_ring<T, C, 2>(tuning, theta, phi, offsets, words, documents, k, seed, z, scratch, stream);
    default: return launch_ring<T, C, 4>(tuning, theta, phi, offsets, words, documents, k, seed, z, scratch, stream);
  }
}

}  // namespace

template <class T>
void LdaSampler<T>::draw(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k,
                         std::uint64_t seed, MatrixAlgorithm algorithm, int* z, cudaStream_t stream) {
  if (documents < 1 || k < 1) throw std::invalid_argument("LdaSampler::draw: needs at least one document and K >= 1");
  if (!theta || !phi || !offsets || !words || !z) throw std::invalid_argument("LdaSampler::draw: null device pointer");
  const LaunchScratch<T> scratch{scratch_, plan_, plan_temp_};
  switch (algorithm) {
    case MatrixAlgorithm::Baseline: {
      const void* kernel = reinterpret_cast<const void*>(&lda_baseline_kernel<T>);
      const int blocks = std::min((documents + kThreads - 1) / kThreads, resident_blocks(kernel, kThreads, 0));
      T* own = scratch_.ensure(static_cast<std::size_t>(blocks) * kThreads * k);
      lda_baseline_kernel<T><<<blocks, kThreads, 0, stream>>>(theta, phi, offsets, words, documents, k, seed, z, own);
      WARPSIM_CUDA(cudaGetLastError());
      return;
    }
    case MatrixAlgorithm::TransposedRegisters:
      return draw_cooperative<T, MatrixAlgorithm::TransposedRegisters>(theta, phi, offsets, words, documents, k, seed, z, tuning(algorithm), scratch, stream);
    case MatrixAlgorithm::ButterflyStandard:
      return draw_cooperative<T, MatrixAlgorithm::ButterflyStandard>(theta, phi, offsets, words, documents, k, seed, z, tuning(algorithm), scratch, stream);
    case MatrixAlgorithm::ButterflyAddSub:
      return draw_cooperative<T, MatrixAlgorithm::ButterflyAddSub>(theta, phi, offsets, words, documents, k, seed, z, tuning(algorithm), scratch, stream);
  }
}

template <class T>
void LdaSampler<T>::set_tuning(const LdaTuning& tuning) {
  if (tuning.ring != 0 && tuning.ring != 2 && tuning.ring != 3) throw std::invalid_argument("LdaTuning: ring must be 0, 2 or 3");
  if (tuning.tokens != 1 && tuning.tokens != 2 && tuning.tokens != 4) throw std::invalid_argument("LdaTuning: tokens must be 1, 2 or 4");
  if (tuning.chunk < 0 || tuning.chunk > LdaTuning::kMaxChunk) throw std::invalid_argument("LdaTuning: chunk must be 0 to " + std::to_string(LdaTuning::kMaxChunk));
  tuning_ = tuning;
  has_tuning_ = true;
}

template class LdaSampler<float>;
template class LdaSampler<double>;

}  // namespace warpsim::gpu
