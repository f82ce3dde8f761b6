#include <cuda_pipeline_primitives.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/draw_algorithms.cuh"
#include "gpu/detail/launch_plan.hpp"
#include "gpu/matrix_sampler.hpp"
#include "gpu/detail/tile_ring.cuh"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

using namespace detail;
constexpr int kThreads = kThreadsPerBlock;

// The matrix workload's source read straight from global memory: the lane's
// row of an M x K matrix (rows past the end read the last row). A lane reads
// its own row element by element (own, own_block) through L1; the blocks,
// read once by the warp, stream (evict first).
template <class T>
struct MatrixSource {
  const T* __restrict__ w;
  int m, k;
  std::size_t q;    // warp q holds rows q*W .. q*W + W-1
  std::size_t row;  // this lane's row
  __device__ T own(int j) const { return __ldg(w + row * static_cast<std::size_t>(k) + j); }
  __device__ __forceinline__ void block(int j, T (&a)[kW]) const {
    const int lane = threadIdx.x & (kW - 1);
#pragma unroll
    for (int kk = 0; kk < kW; ++kk) {
      const std::size_t r = min(q * kW + kk, static_cast<std::size_t>(m - 1));
      a[kk] = __ldcs(w + r * static_cast<std::size_t>(k) + j + lane);
    }
  }
  __device__ __forceinline__ void own_block(int j, T (&x)[kW]) const {
    const T* p = w + row * static_cast<std::size_t>(k) + j;
    if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {  // 16-byte loads
      constexpr int per = 16 / sizeof(T);
#pragma unroll
      for (int i = 0; i < kW; i += per) {
        if constexpr (per == 4) {
          const float4 v = __ldg(reinterpret_cast<const float4*>(p + i));
          x[i] = v.x, x[i + 1] = v.y, x[i + 2] = v.z, x[i + 3] = v.w;
        } else {
          const double2 v = __ldg(reinterpret_cast<const double2*>(p + i));
          x[i] = v.x, x[i + 1] = v.y;
        }
      }
    } else {
#pragma unroll
      for (int i = 0; i < kW; ++i) x[i] = __ldg(p + i);
    }
  }
};

// The source when the warp's rows were staged in shared memory in the layout
// of p' (stage_rows): the lane's element i at p[i * W], the block's entries
// for lane kk at p[(j + kk) * W]. The draws then overwrite what they read, in
// place: every lane reads and writes only its own column.
template <class T>
struct StagedSource {
  const T* p;
  __device__ T own(int j) const { return p[static_cast<std::size_t>(j) * kW]; }
  __device__ __forceinline__ void block(int j, T (&a)[kW]) const {
#pragma unroll
    for (int kk = 0; kk < kW; ++kk) a[kk] = p[static_cast<std::size_t>(j + kk) * kW];
  }
};

// Copies warp q's rows into `tile` (the warp's K x W values in shared memory)
// asynchronously, where the draws read them: element i < K mod W of row
// q*W + L at tile[i * W + L] (the lane's own remnant), element r + b*W + c of
// row q*W + kk at tile[(r + b*W + kk) * W + c] (block b, transposed): block b
// is one copy_tile_async. With `vec16` (K * sizeof(T) and the matrix 16-byte
// aligned) the rows a lane copies are found once for all blocks (HoistedRows).
template <class T>
__device__ __forceinline__ void stage_rows(const T* __restrict__ w, int m, int k, std::size_t q, T* tile, int lane, bool vec16) {
  const int r = k % kW, blocks = k / kW;
  const std::size_t last = static_cast<std::size_t>(m - 1);
  const T* own = w + min(q * kW + lane, last) * static_cast<std::size_t>(k);
  for (int j = 0; j < r; ++j) __pipeline_memcpy_async(tile + j * kW + lane, own + j, sizeof(T));
  if (blocks == 0) return;
  if (vec16) {
    HoistedRows<T> rows;
#pragma unroll
    for (int i = 0; i < Copy16<T>::rows_per_lane; ++i)
      rows.start[i] = w + min(q * kW + Copy16<T>::row(i, lane), last) * static_cast<std::size_t>(k) + r;
    for (int b = 0; b < blocks; ++b) {
      rows.j = b * kW;
      copy_tile_async(tile + static_cast<std::size_t>(r + b * kW) * kW, rows, lane, true);
    }
  } else {
    for (int b = 0; b < blocks; ++b) copy_tile_async(tile + static_cast<std::size_t>(r + b * kW) * kW, WarpRows<T>{w, m, k, r + b * kW, q}, lane, false);
  }
}

// The matrix's blocks through a ring (RingSource): a stage is one block, as
// its W rows lie in the matrix; own and own_block read global memory directly.
template <class T>
struct MatrixTiles {
  static constexpr int stage_values = kW * kW;
  MatrixSource<T> direct;
  int lane;
  bool vec16;
  __device__ __forceinline__ void copy(int j, T* stage) const {
    copy_tile_async(stage, WarpRows<T>{direct.w, direct.m, direct.k, j, direct.q}, lane, vec16);
  }
  __device__ __forceinline__ void read(const T* stage, T (&a)[kW]) const {
#pragma unroll
    for (int kk = 0; kk < kW; ++kk) a[kk] = stage[kk * kW];
  }
  __device__ __forceinline__ T own(int j) const { return direct.own(j); }
  __device__ __forceinline__ void own_block(int j, T (&x)[kW]) const { direct.own_block(j, x); }
};

// ---- Baseline: a thread per row.
template <class T>
__global__ void baseline_kernel(const T* __restrict__ w, int m, int k, std::uint64_t seed, int* __restrict__ out,
                                T* __restrict__ scratch) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T* p = scratch + tid;  // p[i] at p[i * threads]: neighbouring threads, neighbouring addresses
  for (std::size_t row = tid; row < static_cast<std::size_t>(m); row += threads) {
    const MatrixSource<T> src{w, m, k, row / kW, row};
    out[row] = draw_baseline(src, p, threads, k, rng::uniform<T>(seed, row));
  }
}

// ---- Warp-cooperative kernels: transposed access, or butterfly (MatrixAlgorithm).

// Where a warp keeps its K values per lane, and how many: detail::Storage
// and detail::kept_values (gpu/detail/launch_plan.hpp).

struct KernelArgs {
  int m, k;
  std::uint64_t seed;
  int* out;
  bool vec16;  // stage_rows may copy 16 bytes at a time
  int stages;  // 1 or 2 (Staged)
};

template <class T, MatrixAlgorithm C, Storage St, int Ring = 0>
__global__ void cooperative_kernel(const T* __restrict__ w, KernelArgs args, T* __restrict__ scratch) {
  const int lane = threadIdx.x & (kW - 1);
  const int m = args.m, k = args.k;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kW;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kW;
  const auto has_rows = [m](std::size_t q) { return q * kW < static_cast<std::size_t>(m); };
  if constexpr (St == Storage::Staged) {
    // Tiles of K x W values: the warp's first at `tile`, its second stage after it.
    T* tile = warp_scratch<T>(nullptr, warp, k, 0, args.stages, 0);
    const std::size_t other = static_cast<std::size_t>(k) * kW;
    if (has_rows(warp)) stage_rows(w, m, k, warp, tile, lane, args.vec16);
    __pipeline_commit();
    int cur = 0;
    for (std::size_t q = warp; has_rows(q); q += warps) {
      const std::size_t row = min(q * kW + lane, static_cast<std::size_t>(m - 1));
      const T u = rng::uniform<T>(args.seed, row);
      if (args.stages == 2) {
        if (has_rows(q + warps)) stage_rows(w, m, k, q + warps, tile + (cur ^ 1) * other, lane, args.vec16);
        __pipeline_commit();
        __pipeline_wait_prior(1);
      } else {
        __pipeline_wait_prior(0);
      }
      __syncwarp();
      T* p = tile + cur * other + lane;
      const int z = draw_full<T, C>(StagedSource<T>{p}, p, k, lane, u);
      if (q * kW + lane < static_cast<std::size_t>(m)) args.out[q * kW + lane] = z;
      __syncwarp();
      if (args.stages == 2) {
        cur ^= 1;
      } else if (has_rows(q + warps)) {
        stage_rows(w, m, k, q + warps, tile, lane, args.vec16);
        __pipeline_commit();
      }
    }
  } else {
    T* p = warp_scratch(scratch, warp, kept_values(k, St, Ring), lane);
    for (std::size_t q = warp; has_rows(q); q += warps) {
      const std::size_t row = min(q * kW + lane, static_cast<std::size_t>(m - 1));
      const T u = rng::uniform<T>(args.seed, row);
      int z;
      if constexpr (St == Storage::Sums && Ring > 0) {
        const RingSource<T, Ring, MatrixTiles<T>> src{
            {{{w, m, k, q, row}, lane, args.vec16}, p - lane + static_cast<std::size_t>(kept_values(k, St)) * kW, k % kW, k / kW, lane}};
        src.prologue();
        z = draw_recompute<T, C>(src, p, k, lane, u);
      } else if constexpr (St == Storage::Sums) {
        z = draw_recompute<T, C>(MatrixSource<T>{w, m, k, q, row}, p, k, lane, u);
      } else {
        z = draw_full<T, C>(MatrixSource<T>{w, m, k, q, row}, p, k, lane, u);
      }
      if (q * kW + lane < static_cast<std::size_t>(m)) args.out[q * kW + lane] = z;
    }
  }
}

template <class T, bool AddSub>
__global__ void butterfly_tables_kernel(const T* __restrict__ w, int m, int k, T* __restrict__ tables) {
  const int lane = threadIdx.x & (kW - 1);
  const std::size_t q = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kW;
  if (q * kW >= static_cast<std::size_t>(m)) return;
  T a[kW];
  const MatrixSource<T> src{w, m, k, q, 0};
  src.block(k % kW, a);
  butterfly_build<T, AddSub>(a, lane);
#pragma unroll
  for (int d = 0; d < kW; ++d) tables[(q * kW + d) * kW + lane] = a[d];
}


// Shared memory for the warp-cooperative kernels: the values each lane keeps,
// times the stages, for each warp of the block, with as many warps per block
// (4, 2 or 1, at most the tuning's cap) as fit in kSharedLimit (first_fit);
// warps = 0 means none fits.
template <class T>
SharedPlan shared_plan(int values_per_lane, int stages, int max_warps) {
  return first_fit(kW * static_cast<std::size_t>(values_per_lane) * sizeof(T) * static_cast<std::size_t>(stages), max_warps);
}

// One launch with a grid of resident blocks only (each warp loops over its
// rows), so global scratch is sized by what is resident, not by M; at most
// tuning.max_warps_per_sm warps per multiprocessor.
template <class T, MatrixAlgorithm C, Storage St, int Ring = 0>
void launch_cooperative(const T* w, const KernelArgs& args, const SharedPlan& plan, const MatrixTuning& tuning, DeviceScratch<T>& scratch,
                        cudaStream_t stream) {
  const void* kernel = reinterpret_cast<const void*>(&cooperative_kernel<T, C, St, Ring>);
  const int cap = tuning.max_warps_per_sm;
  const int warps_per_block = plan.bytes ? plan.warps : (cap ? std::min(cap, kThreads / kW) : kThreads / kW);
  const int threads = warps_per_block * kW;
  if (plan.bytes) WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.bytes)));
  const int warps_needed = (args.m + kW - 1) / kW;
  int blocks = std::min((warps_needed + warps_per_block - 1) / warps_per_block, resident_blocks(kernel, threads, plan.bytes));
  if (cap) blocks = std::min(blocks, std::max(1, multiprocessors() * cap / warps_per_block));
  T* global_scratch =
      plan.bytes ? nullptr : scratch.ensure(static_cast<std::size_t>(blocks) * threads * static_cast<std::size_t>(kept_values(args.k, St, Ring)));
  cooperative_kernel<T, C, St, Ring><<<blocks, threads, plan.bytes, stream>>>(w, args, global_scratch);
  WARPSIM_CUDA(cudaGetLastError());
}

// Staged while the rows fit in shared memory (with the stages asked for, or
// fewer); past it, both algorithms keep only block sums and recompute the
// chosen block from the lane's own row (draw_*_recompute), the blocks
// coming through a ring in shared memory.
template <class T, MatrixAlgorithm C>
void draw_cooperative(const T* w, KernelArgs args, const MatrixTuning& tuning, DeviceScratch<T>& scratch, cudaStream_t stream) {
  for (int stages = tuning.stages; stages >= 1; --stages) {
    const SharedPlan plan = shared_plan<T>(args.k, stages, tuning.max_warps_per_sm);
    if (plan.warps) {
      args.stages = stages;
      return launch_cooperative<T, C, Storage::Staged>(w, args, plan, tuning, scratch, stream);
    }
  }
  // The ring lives in shared memory only; where even the sums do not fit, blocks load straight to registers.
  const auto sums_plan = [&](int ring) { return shared_plan<T>(kept_values(args.k, Storage::Sums, ring), 1, tuning.max_warps_per_sm); };
  switch (sums_plan(tuning.ring).warps ? tuning.ring : 0) {
    case 2: return launch_cooperative<T, C, Storage::Sums, 2>(w, args, sums_plan(2), tuning, scratch, stream);
    case 4: return launch_cooperative<T, C, Storage::Sums, 4>(w, args, sums_plan(4), tuning, scratch, stream);
    case 8: return launch_cooperative<T, C, Storage::Sums, 8>(w, args, sums_plan(8), tuning, scratch, stream);
    default: return launch_cooperative<T, C, Storage::Sums>(w, args, sums_plan(0), tuning, scratch, stream);
  }
}

}  // namespace

template <class T>
void MatrixSampler<T>::set_tuning(const MatrixTuning& tuning) {
  if (tuning.stages != 1 && tuning.stages != 2) throw std::invalid_argument("MatrixTuning: stages must be 1 or 2");
  if (tuning.max_warps_per_sm < 0) throw std::invalid_argument("MatrixTuning: max_warps_per_sm must be >= 0");
  if (tuning.ring != 0 && tuning.ring != 2 && tuning.ring != 4 && tuning.ring != 8)
    throw std::invalid_argument("MatrixTuning: ring must be 0, 2, 4 or 8");
  tuning_ = tuning;
}

template <class T>
void MatrixSampler<T>::draw(const T* weights, int m, int k, std::uint64_t seed, MatrixAlgorithm algorithm, int* out,
                            cudaStream_t stream) {
  if (m < 1 || k < 1) throw std::invalid_argument("MatrixSampler::draw: needs M >= 1 and K >= 1");
  if (!weights || !out) throw std::invalid_argument("MatrixSampler::draw: null device pointer");
  if (algorithm == MatrixAlgorithm::Baseline) {
    const int threads = kThreads;
    const void* kernel = reinterpret_cast<const void*>(&baseline_kernel<T>);
    const int blocks = std::min((m + threads - 1) / threads, resident_blocks(kernel, threads, 0));
    T* scratch = scratch_.ensure(static_cast<std::size_t>(blocks) * threads * static_cast<std::size_t>(k));
    baseline_kernel<T><<<blocks, threads, 0, stream>>>(weights, m, k, seed, out, scratch);
    WARPSIM_CUDA(cudaGetLastError());
    return;
  }
  const bool vec16 = aligned16({weights}, static_cast<std::size_t>(k) * sizeof(T));
  const KernelArgs args{m, k, seed, out, vec16, 1};
  switch (algorithm) {
    case MatrixAlgorithm::TransposedRegisters: return draw_cooperative<T, MatrixAlgorithm::TransposedRegisters>(weights, args, tuning_, scratch_, stream);
    case MatrixAlgorithm::ButterflyStandard: return draw_cooperative<T, MatrixAlgorithm::ButterflyStandard>(weights, args, tuning_, scratch_, stream);
    case MatrixAlgorithm::ButterflyAddSub: return draw_cooperative<T, MatrixAlgorithm::ButterflyAddSub>(weights, args, tuning_, scratch_, stream);
    case MatrixAlgorithm::Baseline: break;
  }
}

template <class T>
void MatrixSampler<T>::butterfly_tables(const T* weights, int m, int k, bool addsub, T* tables, cudaStream_t stream) {
  if (m < 1 || k < kW) throw std::invalid_argument("MatrixSampler::butterfly_tables: needs M >= 1 and K >= 32");
  const int warps = (m + kW - 1) / kW;
  const int blocks = (warps * kW + kThreads - 1) / kThreads;
  if (addsub) {
    butterfly_tables_kernel<T, true><<<blocks, kThreads, 0, stream>>>(weights, m, k, tables);
  } else {
    butterfly_tables_kernel<T, false><<<blocks, kThreads, 0, stream>>>(weights, m, k, tables);
  }
  WARPSIM_CUDA(cudaGetLastError());
}

template class MatrixSampler<float>;
template class MatrixSampler<double>;

}  // namespace warpsim::gpu
