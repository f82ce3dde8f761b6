#include <algorithm>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/draw_algorithms.cuh"
#include "gpu/matrix_sampler.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

constexpr int kThreads = 256;
using namespace detail;

// The matrix workload's source: the lane's row of an M x K matrix (rows past
// the end read the last row).
template <class T>
struct MatrixSource {
  const T* __restrict__ w;
  int m, k;
  std::size_t q;    // warp q holds rows q*W .. q*W + W-1
  std::size_t row;  // this lane's row
  __device__ T own(int j) const { return w[row * static_cast<std::size_t>(k) + j]; }
  __device__ __forceinline__ void block(int j, T (&a)[kW]) const {
    const int lane = threadIdx.x & (kW - 1);
#pragma unroll
    for (int kk = 0; kk < kW; ++kk) {
      const std::size_t r = min(q * kW + kk, static_cast<std::size_t>(m - 1));
      a[kk] = __ldcs(w + r * static_cast<std::size_t>(k) + j + lane);
    }
  }
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

// ---- Warp-cooperative kernels: transposed access, or butterfly.
enum class Coop { Transposed, ButterflyStandard, ButterflyAddSub };

// K values per lane on chip (p' or the running sums), or, for the butterfly
// past that, only the remnant's and the blocks' running sums (Rebuild).
enum class Storage { Full, Rebuild };

// Values a lane keeps: K, or K mod W + K / W when the butterfly rebuilds.
__host__ __device__ constexpr int kept_values(int k, Storage st) { return st == Storage::Full ? k : k % kW + k / kW; }

template <class T, Coop C, Storage St = Storage::Full>
__global__ void cooperative_kernel(const T* __restrict__ w, int m, int k, std::uint64_t seed, int* __restrict__ out,
                                   T* __restrict__ scratch) {
  const int lane = threadIdx.x & (kW - 1);
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kW;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kW;
  T* p = warp_scratch(scratch, warp, kept_values(k, St), lane);
  for (std::size_t q = warp; q * kW < static_cast<std::size_t>(m); q += warps) {
    const std::size_t row = min(q * kW + lane, static_cast<std::size_t>(m - 1));
    const MatrixSource<T> src{w, m, k, q, row};
    const T u = rng::uniform<T>(seed, row);
    int z;
    if constexpr (C == Coop::Transposed) {
      z = draw_transposed(src, p, k, lane, u);
    } else if constexpr (St == Storage::Rebuild) {
      z = draw_butterfly_rebuild<T, C == Coop::ButterflyAddSub>(src, p, k, lane, u);
    } else {
      z = draw_butterfly<T, C == Coop::ButterflyAddSub>(src, p, k, lane, u);
    }
    if (q * kW + lane < static_cast<std::size_t>(m)) out[q * kW + lane] = z;
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


// Shared memory for the warp-cooperative kernels: K values per lane for each
// warp of the block, with as many warps per block (4, 2 or 1) as fit in
// kSharedLimit, which leaves room for two blocks per SM; warps = 0 means the
// values go to global scratch instead.
constexpr std::size_t kSharedLimit = 100 * 1024;

struct SharedPlan {
  int warps = 0;
  std::size_t bytes = 0;
};

template <class T>
SharedPlan shared_plan(int k) {
  const std::size_t per_warp = kW * static_cast<std::size_t>(k) * sizeof(T);
  for (int warps : {4, 2, 1})
    if (warps * per_warp <= kSharedLimit) return {warps, warps * per_warp};
  return {};
}

}  // namespace

const char* algorithm_name(MatrixAlgorithm a) {
  switch (a) {
    case MatrixAlgorithm::Baseline: return "baseline";
    case MatrixAlgorithm::TransposedRegisters: return "transposed-registers";
    case MatrixAlgorithm::ButterflyStandard: return "butterfly-standard";
    case MatrixAlgorithm::ButterflyAddSub: return "butterfly-addsub";
  }
  return "?";
}

template <class T>
void MatrixSampler<T>::draw(const T* weights, int m, int k, std::uint64_t seed, MatrixAlgorithm algorithm, int* out,
                            cudaStream_t stream) {
  if (m < 1 || k < 1) throw std::invalid_argument("MatrixSampler::draw: needs M >= 1 and K >= 1");
  if (!weights || !out) throw std::invalid_argument("MatrixSampler::draw: null device pointer");
  const bool cooperative = algorithm != MatrixAlgorithm::Baseline;
  const bool butterfly = algorithm == MatrixAlgorithm::ButterflyStandard || algorithm == MatrixAlgorithm::ButterflyAddSub;
  SharedPlan plan = cooperative ? shared_plan<T>(k) : SharedPlan{};
  // The butterfly past shared memory keeps only the running sums and rebuilds chosen blocks.
  const bool rebuild = butterfly && plan.warps == 0;
  if (rebuild) plan = shared_plan<T>(kept_values(k, Storage::Rebuild));
  const void* kernel = nullptr;
  switch (algorithm) {
    case MatrixAlgorithm::Baseline: kernel = reinterpret_cast<const void*>(&baseline_kernel<T>); break;
    case MatrixAlgorithm::TransposedRegisters: kernel = reinterpret_cast<const void*>(&cooperative_kernel<T, Coop::Transposed>); break;
    case MatrixAlgorithm::ButterflyStandard:
      kernel = rebuild ? reinterpret_cast<const void*>(&cooperative_kernel<T, Coop::ButterflyStandard, Storage::Rebuild>)
                       : reinterpret_cast<const void*>(&cooperative_kernel<T, Coop::ButterflyStandard>);
      break;
    case MatrixAlgorithm::ButterflyAddSub:
      kernel = rebuild ? reinterpret_cast<const void*>(&cooperative_kernel<T, Coop::ButterflyAddSub, Storage::Rebuild>)
                       : reinterpret_cast<const void*>(&cooperative_kernel<T, Coop::ButterflyAddSub>);
      break;
  }
  // A grid of resident blocks only (each warp loops over its rows), so the
  // scratch -- K values per thread -- is sized by what is resident, not by M.
  const std::size_t shared = plan.bytes;
  const int threads = shared ? plan.warps * kW : kThreads;
  if (shared) WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  const int warps_needed = (m + kW - 1) / kW;
  const int blocks_needed = cooperative ? (warps_needed * kW + threads - 1) / threads : (m + threads - 1) / threads;
  const int blocks = std::min(blocks_needed, resident_blocks(kernel, threads, shared));
  T* scratch = shared ? nullptr : scratch_.ensure(static_cast<std::size_t>(blocks) * threads * static_cast<std::size_t>(k));
  switch (algorithm) {
    case MatrixAlgorithm::Baseline: baseline_kernel<T><<<blocks, threads, 0, stream>>>(weights, m, k, seed, out, scratch); break;
    case MatrixAlgorithm::TransposedRegisters: cooperative_kernel<T, Coop::Transposed><<<blocks, threads, shared, stream>>>(weights, m, k, seed, out, scratch); break;
    case MatrixAlgorithm::ButterflyStandard:
      if (rebuild) {
        cooperative_kernel<T, Coop::ButterflyStandard, Storage::Rebuild><<<blocks, threads, shared, stream>>>(weights, m, k, seed, out, scratch);
      } else {
        cooperative_kernel<T, Coop::ButterflyStandard><<<blocks, threads, shared, stream>>>(weights, m, k, seed, out, scratch);
      }
      break;
    case MatrixAlgorithm::ButterflyAddSub:
      if (rebuild) {
        cooperative_kernel<T, Coop::ButterflyAddSub, Storage::Rebuild><<<blocks, threads, shared, stream>>>(weights, m, k, seed, out, scratch);
      } else {
        cooperative_kernel<T, Coop::ButterflyAddSub><<<blocks, threads, shared, stream>>>(weights, m, k, seed, out, scratch);
      }
      break;
  }
  WARPSIM_CUDA(cudaGetLastError());
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
