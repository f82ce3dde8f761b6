#include <algorithm>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/matrix_sampler.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

constexpr int kW = 32;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kThreads = 256;

// Every floating operation the oracle performs, rounded once, never
// contracted: the intrinsics pin the rounding (bit-for-bit agreement).
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

// Alg. 3 over running sums p[0 .. k-1] at p[i * stride].
template <class T>
__device__ int binary_search(const T* p, std::size_t stride, int k, T target) {
  int j = 0, hi = k - 1;
  while (j < hi) {
    const int mid = (j + hi) / 2;
    if (target < p[static_cast<std::size_t>(mid) * stride]) hi = mid; else j = mid + 1;
  }
  return j;
}

// ---- Baseline: a thread per row.
template <class T>
__global__ void baseline_kernel(const T* __restrict__ w, int m, int k, std::uint64_t seed, int* __restrict__ out,
                                T* __restrict__ scratch) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T* p = scratch + tid;  // p[i] at p[i * threads]: neighbouring threads, neighbouring addresses
  for (std::size_t row = tid; row < static_cast<std::size_t>(m); row += threads) {
    const T* wr = w + row * static_cast<std::size_t>(k);
    T sum = 0;
    for (int i = 0; i < k; ++i) {
      sum = add_rn(sum, wr[i]);
      p[static_cast<std::size_t>(i) * threads] = sum;
    }
    const T target = mul_rn(sum, rng::uniform<T>(seed, row));
    out[row] = binary_search(p, threads, k, target);
  }
}

// Transposed (coalesced) load of one W x W block: a[kk] in lane r = element
// j + r of row q*W + kk (rows past the end read the last row).
template <class T>
__device__ __forceinline__ void load_block(const T* __restrict__ w, int m, int k, std::size_t q, int j, int lane, T (&a)[kW]) {
#pragma unroll
  for (int kk = 0; kk < kW; ++kk) {
    const std::size_t row = min(q * kW + kk, static_cast<std::size_t>(m - 1));
    a[kk] = __ldcs(w + row * static_cast<std::size_t>(k) + j + lane);
  }
}

// Where a warp keeps its K values per lane (running sums, or the butterfly
// tables p'): in dynamic shared memory when the launch gave the block enough
// (scratch == nullptr), else in its slice of the global scratch. Either way
// the lane's element i sits at p[i * W], so a warp-wide store is one
// contiguous row and the search's per-lane reads hit 32 different banks.
template <class T>
__device__ __forceinline__ T* warp_scratch(T* global_scratch, std::size_t warp, int k, int lane) {
  extern __shared__ unsigned char shared_bytes[];
  if (global_scratch == nullptr) {
    T* shared = reinterpret_cast<T*>(shared_bytes);
    return shared + static_cast<std::size_t>(threadIdx.x / kW) * static_cast<std::size_t>(k) * kW + lane;
  }
  return global_scratch + warp * static_cast<std::size_t>(k) * kW + lane;
}

// ---- Transposed access with the in-register transpose (Fig. 2).
template <class T>
__global__ void transposed_kernel(const T* __restrict__ w, int m, int k, std::uint64_t seed, int* __restrict__ out,
                                  T* __restrict__ scratch) {
  const int lane = threadIdx.x & (kW - 1);
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kW;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kW;
  T* p = warp_scratch(scratch, warp, k, lane);  // p[i] at p[i * W]
  const int r = k % kW;
  for (std::size_t q = warp; q * kW < static_cast<std::size_t>(m); q += warps) {
    const std::size_t row = min(q * kW + lane, static_cast<std::size_t>(m - 1));
    const T* wr = w + row * static_cast<std::size_t>(k);
    T sum = 0;
    for (int j = 0; j < r; ++j) {
      sum = add_rn(sum, wr[j]);
      p[static_cast<std::size_t>(j) * kW] = sum;
    }
    for (int j = r; j < k; j += kW) {
      T a[kW];
      load_block(w, m, k, q, j, lane, a);
#pragma unroll
      for (int pass = 0; pass < 5; ++pass) {
        const int bit = 1 << pass;
        const bool upper = (lane & bit) != 0;
#pragma unroll
        for (int i = 0; i < kW; ++i) {
          if (i & bit) continue;
          const T send = upper ? a[i] : a[i | bit];
          const T recv = __shfl_xor_sync(kFull, send, bit);
          a[i] = upper ? recv : a[i];
          a[i | bit] = upper ? a[i | bit] : recv;
        }
      }
#pragma unroll
      for (int kk = 0; kk < kW; ++kk) {
        sum = add_rn(sum, a[kk]);
        p[static_cast<std::size_t>(j + kk) * kW] = sum;
      }
    }
    const T target = mul_rn(sum, rng::uniform<T>(seed, row));
    const int z = binary_search(p, kW, k, target);
    if (q * kW + lane < static_cast<std::size_t>(m)) out[q * kW + lane] = z;
  }
}

// The butterfly table of one block in registers (W - 1 shfl_xor).
template <class T, bool AddSub>
__device__ __forceinline__ void butterfly_build(T (&a)[kW], int lane) {
#pragma unroll
  for (int b = 0; b < 5; ++b) {
    const int bit = 1 << b;
    const bool upper = (lane & bit) != 0;
#pragma unroll
    for (int i = 0; i < kW / (2 * bit); ++i) {
      const int d = 2 * bit * i + bit - 1;
      const T h = upper ? a[d] : a[d + bit];
      const T v = __shfl_xor_sync(kFull, h, bit);
      if (AddSub) {
        a[d] = upper ? a[d + bit] : a[d];
        a[d + bit] = add_rn(a[d], v);
      } else {
        a[d] = upper ? v : a[d];
        a[d + bit] = upper ? a[d + bit] : v;
        a[d + bit] = add_rn(a[d + bit], a[d]);
      }
    }
  }
}

// ---- Butterfly-patterned partial sums (Alg. 7-10).
template <class T, bool AddSub>
__global__ void butterfly_kernel(const T* __restrict__ w, int m, int k, std::uint64_t seed, int* __restrict__ out,
                                 T* __restrict__ scratch) {
  const int lane = threadIdx.x & (kW - 1);
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kW;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kW;
  T* p = warp_scratch(scratch, warp, k, lane);  // the lane's p'[i] at p[i * W]
  const int r = k % kW;
  const int blocks = k / kW;
  for (std::size_t q = warp; q * kW < static_cast<std::size_t>(m); q += warps) {
    const std::size_t row = min(q * kW + lane, static_cast<std::size_t>(m - 1));
    const T* wr = w + row * static_cast<std::size_t>(k);
    T sum = 0;
    // Alg. 8, lines 8-12: the remnant
    for (int j = 0; j < r; ++j) {
      sum = add_rn(sum, wr[j]);
      p[static_cast<std::size_t>(j) * kW] = sum;
    }
    // Alg. 8, lines 13-34: the blocks
    for (int j = r; j < k; j += kW) {
      T a[kW];
      load_block(w, m, k, q, j, lane, a);
      butterfly_build<T, AddSub>(a, lane);
#pragma unroll
      for (int d = 0; d < kW - 1; ++d) p[static_cast<std::size_t>(j + d) * kW] = a[d];
      sum = add_rn(sum, a[kW - 1]);
      p[static_cast<std::size_t>(j + kW - 1) * kW] = sum;
    }
    // Alg. 9: the block
    const T target = mul_rn(sum, rng::uniform<T>(seed, row));
    int lo = 0, hi = blocks - 1;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (target < p[static_cast<std::size_t>(mid * kW + r + kW - 1) * kW]) hi = mid; else lo = mid + 1;
    }
    const int block_base = r + lo * kW;
    int z = 0;
    if (k >= kW) {
      // Alg. 10: the butterfly search inside the block
      T low = block_base > 0 ? p[static_cast<std::size_t>(block_base - 1) * kW] : T(0);
      T high = p[static_cast<std::size_t>(block_base + kW - 1) * kW];
      int flip = 0;
#pragma unroll
      for (int b = 0; b < 5; ++b) {
        const int bit = (kW / 2) >> b;
        const int mask = ((kW - 1) * (2 * bit)) & (kW - 1);
        T y = 0;
#pragma unroll
        for (int i = 0; i < kW / (2 * bit); ++i) {
          const int d = (bit - 1) + 2 * bit * i;
          const int him = (d & mask) + (lane & ~mask);
          const int his_base = __shfl_sync(kFull, block_base, him);
          const T t = __shfl_xor_sync(kFull, p[static_cast<std::size_t>(his_base + d) * kW], flip);
          y = ((lane ^ d) & mask) == 0 ? t : y;
        }
        const bool upper = (lane & bit) != 0;
        const T compare = (AddSub && upper) ? sub_rn(high, y) : add_rn(low, y);
        if (target < compare) {
          high = compare;
          flip ^= bit & lane;
        } else {
          low = compare;
          flip ^= bit & ~lane;
        }
      }
      z = block_base + (flip ^ lane);
    }
    // Alg. 9, lines 17-27: in the remnant after all
    if (r > 0 && block_base > 0 && target < p[static_cast<std::size_t>(block_base - 1) * kW]) {
      int i = 0;
      while (i < r && !(target < p[static_cast<std::size_t>(i) * kW])) ++i;
      z = i;
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
  load_block(w, m, k, q, k % kW, lane, a);
  butterfly_build<T, AddSub>(a, lane);
#pragma unroll
  for (int d = 0; d < kW; ++d) tables[(q * kW + d) * kW + lane] = a[d];
}

int resident_blocks(const void* kernel, int threads, std::size_t shared_bytes) {
  int device = 0, sms = 0, per_sm = 0;
  WARPSIM_CUDA(cudaGetDevice(&device));
  WARPSIM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  WARPSIM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
  return std::max(1, sms * per_sm);
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
MatrixSampler<T>::~MatrixSampler() {
  if (scratch_) cudaFree(scratch_);  // no throwing from a destructor
}

template <class T>
T* MatrixSampler<T>::ensure_scratch(std::size_t elements) {
  if (elements > scratch_elements_) {
    if (scratch_) WARPSIM_CUDA(cudaFree(scratch_));
    scratch_ = nullptr;
    scratch_elements_ = 0;
    WARPSIM_CUDA(cudaMalloc(&scratch_, elements * sizeof(T)));
    scratch_elements_ = elements;
  }
  return scratch_;
}

template <class T>
void MatrixSampler<T>::draw(const T* weights, int m, int k, std::uint64_t seed, MatrixAlgorithm algorithm, int* out,
                            cudaStream_t stream) {
  if (m < 1 || k < 1) throw std::invalid_argument("MatrixSampler::draw: needs M >= 1 and K >= 1");
  if (!weights || !out) throw std::invalid_argument("MatrixSampler::draw: null device pointer");
  const void* kernel = nullptr;
  switch (algorithm) {
    case MatrixAlgorithm::Baseline: kernel = reinterpret_cast<const void*>(&baseline_kernel<T>); break;
    case MatrixAlgorithm::TransposedRegisters: kernel = reinterpret_cast<const void*>(&transposed_kernel<T>); break;
    case MatrixAlgorithm::ButterflyStandard: kernel = reinterpret_cast<const void*>(&butterfly_kernel<T, false>); break;
    case MatrixAlgorithm::ButterflyAddSub: kernel = reinterpret_cast<const void*>(&butterfly_kernel<T, true>); break;
  }
  // A grid of resident blocks only (each warp loops over its rows), so the
  // scratch -- K values per thread -- is sized by what is resident, not by M.
  const bool cooperative = algorithm != MatrixAlgorithm::Baseline;
  const SharedPlan plan = cooperative ? shared_plan<T>(k) : SharedPlan{};
  const std::size_t shared = plan.bytes;
  const int threads = shared ? plan.warps * kW : kThreads;
  if (shared) WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  const int warps_needed = (m + kW - 1) / kW;
  const int blocks_needed = cooperative ? (warps_needed * kW + threads - 1) / threads : (m + threads - 1) / threads;
  const int blocks = std::min(blocks_needed, resident_blocks(kernel, threads, shared));
  T* scratch = shared ? nullptr : ensure_scratch(static_cast<std::size_t>(blocks) * threads * static_cast<std::size_t>(k));
  switch (algorithm) {
    case MatrixAlgorithm::Baseline: baseline_kernel<T><<<blocks, threads, 0, stream>>>(weights, m, k, seed, out, scratch); break;
    case MatrixAlgorithm::TransposedRegisters: transposed_kernel<T><<<blocks, threads, shared, stream>>>(weights, m, k, seed, out, scratch); break;
    case MatrixAlgorithm::ButterflyStandard: butterfly_kernel<T, false><<<blocks, threads, shared, stream>>>(weights, m, k, seed, out, scratch); break;
    case MatrixAlgorithm::ButterflyAddSub: butterfly_kernel<T, true><<<blocks, threads, shared, stream>>>(weights, m, k, seed, out, scratch); break;
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
