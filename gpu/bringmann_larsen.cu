// Bringmann-Larsen on the GPU (gpu/bringmann_larsen.hpp), phase by phase as
// the oracle defines it (oracle/rejection/bringmann_larsen.hpp):
//
//   units        the alias build's unit passes (AliasTableBuilder::find_units):
//                the check, e and U
//   occupancy    a thread an item: u_i, q_i = floor(N u_i / U) and
//                r_i = N u_i mod U (128-bit), Occ_i = q_i + 1 and the
//                threshold floor(r_i 2^64 / U)
//   starts       CUB's exclusive sum of Occ (32-bit: M <= 2N < 2^32)
//   bits         a thread an item sets bit start_i (atomicOr: the same words
//                in any order); M from the last item
//   rank         popcounts of the words, CUB's exclusive sum, into the words
//
// Sampling: gpu/warp_rejection.cuh's loop over a grid-stride sequence of
// draws, each attempt one 16-byte word and, on a first slot, one threshold.
#include "gpu/bringmann_larsen.hpp"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/exact_units.hpp"
#include "gpu/detail/philox_keyed.hpp"
#include "gpu/launch.hpp"
#include "gpu/warp_rejection.cuh"

namespace warpsim::gpu {

namespace {

__extension__ typedef unsigned __int128 u128;

constexpr int kThreads = 256;

// ---- the build ------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(kThreads) occupancy_kernel(const T* __restrict__ w, std::uint64_t n, int exponent, std::uint64_t total,
                                                            std::uint32_t* __restrict__ occ, std::uint64_t* __restrict__ thresholds) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(kThreads) + threadIdx.x; i < n; i += static_cast<std::uint64_t>(gridDim.x) * kThreads) {
    const std::uint64_t u = detail::units_of(w[i], exponent);
    const u128 m = static_cast<u128>(n) * u;  // N u_i = q_i U + r_i
    const auto q = static_cast<std::uint64_t>(m / total);
    const auto r = static_cast<std::uint64_t>(m - static_cast<u128>(q) * total);
    occ[i] = static_cast<std::uint32_t>(q) + 1;
    thresholds[i] = static_cast<std::uint64_t>((static_cast<u128>(r) << 64) / total);
  }
}

__global__ void __launch_bounds__(kThreads) bits_kernel(const std::uint32_t* __restrict__ start, const std::uint32_t* __restrict__ occ, std::uint64_t n,
                                                       BringmannLarsenWord* words, unsigned long long* slots) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(kThreads) + threadIdx.x; i < n; i += static_cast<std::uint64_t>(gridDim.x) * kThreads) {
    const std::uint32_t k = start[i];
    atomicOr(reinterpret_cast<unsigned long long*>(&words[k / 64].bits), 1ull << (k % 64));
    if (i == n - 1) *slots = static_cast<unsigned long long>(k) + occ[i];
  }
}

__global__ void __launch_bounds__(kThreads) popcount_kernel(const BringmannLarsenWord* __restrict__ words, std::uint64_t count, std::uint32_t* ones) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(kThreads) + threadIdx.x; i < count; i += static_cast<std::uint64_t>(gridDim.x) * kThreads)
    ones[i] = static_cast<std::uint32_t>(__popcll(words[i].bits));
}

__global__ void __launch_bounds__(kThreads) rank_kernel(const std::uint32_t* __restrict__ rank, std::uint64_t count, BringmannLarsenWord* words) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(kThreads) + threadIdx.x; i < count; i += static_cast<std::uint64_t>(gridDim.x) * kThreads)
    words[i].rank = rank[i];
}

// ---- sampling ------------------------------------------------------------

struct SampleArgs {
  const BringmannLarsenWord* words;
  const std::uint64_t* thresholds;
  std::uint64_t slots, seed, first, count;
};

// One attempt: attempt j of draw first + task (the oracle's `attempt`).
struct Attempt {
  const SampleArgs& a;
  const detail::PhiloxKeyed& philox;
  __device__ __forceinline__ bool operator()(std::uint64_t task, std::uint32_t j, std::uint32_t& item) const {
    const auto x = philox(a.first + task, j);
    const std::uint64_t hi = (static_cast<std::uint64_t>(x.v[0]) << 32) | x.v[1], lo = (static_cast<std::uint64_t>(x.v[2]) << 32) | x.v[3];
    const std::uint64_t k = __umul64hi(hi, a.slots);  // floor(hi M / 2^64)
    const uint4 word = __ldg(reinterpret_cast<const uint4*>(a.words) + (k >> 6));
    const std::uint64_t bits = (static_cast<std::uint64_t>(word.y) << 32) | word.x;
    const int b = static_cast<int>(k & 63);
    item = word.z + static_cast<std::uint32_t>(__popcll(bits & (~0ull >> (63 - b)))) - 1;
    if (((bits >> b) & 1) == 0) return true;  // not a first slot: accept
    return lo < __ldg(a.thresholds + item);
  }
};

template <RejectionCaching kCaching, bool kCount>
__global__ void __launch_bounds__(kThreads) sample_kernel(SampleArgs a, std::uint32_t* __restrict__ out, RejectionCounts* counts) {
  const std::uint64_t tid = blockIdx.x * static_cast<std::uint64_t>(kThreads) + threadIdx.x, stride = static_cast<std::uint64_t>(gridDim.x) * kThreads;
  const std::uint64_t calls = (a.count + stride - 1) / stride;  // the same on every lane (the loop votes)
  const detail::PhiloxKeyed philox(a.seed);
  const Attempt attempt{a, philox};
  WarpRejection<std::uint32_t, kCaching> rejection;
  RejectionTally tally;
  for (std::uint64_t c = 0; c < calls; ++c) {
    const std::uint64_t t = tid + c * stride;
    const std::uint32_t v = rejection.next(t < a.count, t, t + stride < a.count, t + stride, attempt);
    if (t < a.count) out[t] = v;
    if constexpr (kCount) tally.add(rejection, t < a.count);
  }
  if constexpr (kCount) tally.flush(counts, tid == 0 ? a.count : 0);
}

}  // namespace

template <class T>
struct BringmannLarsenBuilder<T>::Scratch {
  AliasTableBuilder<T> units;
  DeviceScratch<unsigned char> device, weights;
};

template <class T>
BringmannLarsenBuilder<T>::BringmannLarsenBuilder() : scratch_(new Scratch) {}

template <class T>
BringmannLarsenBuilder<T>::~BringmannLarsenBuilder() {
  delete scratch_;
}

template <class T>
BringmannLarsenInfo BringmannLarsenBuilder<T>::build(const T* weights, std::size_t n, BringmannLarsenWord* words, std::uint64_t* thresholds,
                                                     cudaStream_t stream) {
  if (n == 0) throw std::invalid_argument("no weights");
  if (n > kBringmannLarsenMaxItems) throw std::invalid_argument("more than 2^31 - 1 weights: Bringmann-Larsen's slots are 32-bit");
  if (!device_readable(weights)) {
    T* copy = reinterpret_cast<T*>(scratch_->weights.ensure(n * sizeof(T)));  // host weights: to the device first
    WARPSIM_CUDA(cudaMemcpyAsync(copy, weights, n * sizeof(T), cudaMemcpyHostToDevice, stream));
    weights = copy;
  }
  const AliasTableInfo units = scratch_->units.find_units(weights, n, stream);  // checks the weights

  // Scratch: Occ and the starts (n each), the words' popcounts and ranks, the scan's temporary, M.
  const std::size_t nwords = bringmann_larsen_words(n);
  std::size_t scan_n = 0, scan_w = 0;
  WARPSIM_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_n, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                             static_cast<int>(n)));
  WARPSIM_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_w, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                             static_cast<int>(nwords)));
  auto align = [](std::size_t b) { return (b + 255) / 256 * 256; };
  const std::size_t at_start = align(n * 4), at_ones = at_start + align(n * 4), at_rank = at_ones + align(nwords * 4),
                    at_slots = at_rank + align(nwords * 4), at_temp = at_slots + 256, total = at_temp + align(std::max(scan_n, scan_w));
  auto* base = scratch_->device.ensure(total);
  auto* occ = reinterpret_cast<std::uint32_t*>(base);
  auto* start = reinterpret_cast<std::uint32_t*>(base + at_start);
  auto* ones = reinterpret_cast<std::uint32_t*>(base + at_ones);
  auto* rank = reinterpret_cast<std::uint32_t*>(base + at_rank);
  auto* slots = reinterpret_cast<unsigned long long*>(base + at_slots);
  void* temp = base + at_temp;

  const int grid = grid_for(n, kThreads), word_grid = grid_for(nwords, kThreads);
  occupancy_kernel<T><<<grid, kThreads, 0, stream>>>(weights, n, units.exponent, units.capacity, occ, thresholds);
  WARPSIM_CUDA(cudaGetLastError());
  std::size_t bytes = scan_n;
  WARPSIM_CUDA(cub::DeviceScan::ExclusiveSum(temp, bytes, occ, start, static_cast<int>(n), stream));
  WARPSIM_CUDA(cudaMemsetAsync(words, 0, nwords * sizeof(BringmannLarsenWord), stream));
  bits_kernel<<<grid, kThreads, 0, stream>>>(start, occ, n, words, slots);
  WARPSIM_CUDA(cudaGetLastError());
  popcount_kernel<<<word_grid, kThreads, 0, stream>>>(words, nwords, ones);
  WARPSIM_CUDA(cudaGetLastError());
  bytes = scan_w;
  WARPSIM_CUDA(cub::DeviceScan::ExclusiveSum(temp, bytes, ones, rank, static_cast<int>(nwords), stream));
  rank_kernel<<<word_grid, kThreads, 0, stream>>>(rank, nwords, words);
  WARPSIM_CUDA(cudaGetLastError());

  unsigned long long m = 0;
  WARPSIM_CUDA(cudaMemcpyAsync(&m, slots, sizeof m, cudaMemcpyDeviceToHost, stream));
  WARPSIM_CUDA(cudaStreamSynchronize(stream));
  if (m < n || m > 2 * static_cast<unsigned long long>(n)) throw std::logic_error("Bringmann-Larsen: the slots left [N, 2N]");
  BringmannLarsenInfo info;
  info.n = n;
  info.slots = m;
  info.capacity = units.capacity;
  info.exponent = units.exponent;
  return info;
}

void bringmann_larsen_sample(const BringmannLarsenWord* words, const std::uint64_t* thresholds, const BringmannLarsenInfo& info, std::uint64_t seed,
                             std::uint64_t first, std::uint64_t count, std::uint32_t* out, bool precached, RejectionCounts* counts,
                             cudaStream_t stream) {
  if (count == 0) return;
  if (info.n == 0 || info.slots < info.n) throw std::invalid_argument("bringmann_larsen_sample: an empty structure");
  const SampleArgs a{words, thresholds, info.slots, seed, first, count};
  auto launch = [&](auto kernel) {
    kernel<<<resident_grid(reinterpret_cast<const void*>(kernel), kThreads, count), kThreads, 0, stream>>>(a, out, counts);
    WARPSIM_CUDA(cudaGetLastError());
  };
  if (precached) {
    if (counts) launch(sample_kernel<RejectionCaching::precached, true>);
    else launch(sample_kernel<RejectionCaching::precached, false>);
  } else {
    if (counts) launch(sample_kernel<RejectionCaching::none, true>);
    else launch(sample_kernel<RejectionCaching::none, false>);
  }
}

template class BringmannLarsenBuilder<float>;
template class BringmannLarsenBuilder<double>;

}  // namespace warpsim::gpu
