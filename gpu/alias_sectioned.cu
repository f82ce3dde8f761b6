// Sectioned sampling on the GPU (gpu/alias_table.hpp, AliasSectionedSampler),
// as oracle/alias/sectioned.hpp defines it:
//
//   section_shares   a thread a section j of the 2^D: walks the tree from the
//                    root, drawing each node's split with rng::section_split
//                    (every thread on a path draws the same split), and keeps
//                    its share and its offset (what went left where it turned right)
//   sectioned_draws  a block a (section, slice of its share): the section's
//                    rows to shared memory (16-byte loads, coalesced), then a
//                    thread a pair of draws, one Philox block for both
//                    (rng/half_block.hpp): row first + index_below(word, rows),
//                    the item if bits_below(word, its threshold), else the
//                    alias; stores coalesced
//   shuffle          (optional) keys = Philox bits of (seed, 2^62 + first + i),
//                    a stable radix sort of (key, draw) pairs
#include "gpu/alias_table.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/launch.hpp"
#include "rng/binomial.hpp"
#include "rng/half_block.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

constexpr int kThreads = 256;
constexpr std::uint64_t kDrawStreams = std::uint64_t{1} << 63;     // output draw d: stream 2^63 + d
constexpr std::uint64_t kShuffleStreams = std::uint64_t{1} << 62;  // its shuffle key: stream 2^62 + d

struct Tree {
  std::uint64_t rows;  // N
  int depth;           // D
  std::uint64_t seed, first, count;
};

// floor(i N / 2^d): i < 2^32, N < 2^32.
__device__ __forceinline__ std::uint64_t node_first_row(std::uint64_t rows, int d, std::uint64_t i) { return (i * rows) >> d; }

__global__ void section_shares(Tree t, std::uint64_t* __restrict__ share, std::uint64_t* __restrict__ offset) {
  const std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (j >= (std::uint64_t{1} << t.depth)) return;
  std::uint64_t draws = t.count, at = 0;
  for (int d = 0; d < t.depth; ++d) {
    const std::uint64_t i = j >> (t.depth - d);
    const std::uint64_t lo = node_first_row(t.rows, d, i), mid = node_first_row(t.rows, d + 1, 2 * i + 1), hi = node_first_row(t.rows, d, i + 1);
    const std::uint64_t left =
        hi == lo ? 0 : rng::section_split(t.seed, t.first, static_cast<std::uint32_t>((std::uint64_t{1} << d) + i), draws, mid - lo, hi - lo);
    if ((j >> (t.depth - d - 1)) & 1) {
      at += left;
      draws -= left;
    } else {
      draws = left;
    }
  }
  share[j] = draws;
  offset[j] = at;
}

// Blocks (x: sections, grid-stride; y: slices of each section's share).
// Blocks (x: sections, grid-stride; y: slices of each section's share).
// 38 registers: 6 blocks an SM. (Deciding each draw from its two words
// inline and handing the rare rest to a no-inline function, with 8-byte
// stores of pairs, ran no faster: 316 against 319 GS/s at 10^6 rows, the
// Philox block being most of the work.)
template <bool kCount>
__global__ void __launch_bounds__(kThreads) sectioned_draws(const AliasRow* __restrict__ table, Tree t,
                                                            const std::uint64_t* __restrict__ share, const std::uint64_t* __restrict__ offset,
                                                            std::uint32_t* __restrict__ out, unsigned long long* __restrict__ counts) {
  extern __shared__ uint4 rows[];
  const std::uint64_t sections = std::uint64_t{1} << t.depth;
  for (std::uint64_t j = blockIdx.x; j < sections; j += gridDim.x) {
    const std::uint64_t c = share[j];
    const std::uint64_t from = c * blockIdx.y / gridDim.y, to = c * (blockIdx.y + 1) / gridDim.y;
    if (from == to) continue;  // uniform across the block
    const std::uint64_t lo = node_first_row(t.rows, t.depth, j), n = node_first_row(t.rows, t.depth, j + 1) - lo;
    __syncthreads();  // the previous section's draws are done with `rows`
    for (std::uint64_t e = threadIdx.x; e < n; e += blockDim.x) rows[e] = __ldg(reinterpret_cast<const uint4*>(table + lo + e));
    __syncthreads();
    // Global draw numbers [g0, g1): a thread a pair p of them (draws 2p and
    // 2p + 1 share Philox block 2^63 + p, rng/half_block.hpp).
    const std::uint64_t g0 = t.first + offset[j] + from, g1 = t.first + offset[j] + to;
    for (std::uint64_t p = (g0 >> 1) + threadIdx.x; p <= ((g1 - 1) >> 1); p += blockDim.x) {
      const auto block = rng::philox_bits(t.seed, kDrawStreams + p, 0);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::uint64_t g = 2 * p + static_cast<std::uint64_t>(h);
        if (g < g0 || g >= g1) continue;  // the pair's other draw is another slice's or section's
        rng::HalfBlock bits(t.seed, kDrawStreams, g, block);
        const std::uint32_t k = rng::index_below(bits.first(), static_cast<std::uint32_t>(n), bits);
        const uint4 row = rows[k];
        const std::uint64_t th = row.x | (static_cast<std::uint64_t>(row.y) << 32);
        const std::uint32_t item = rng::bits_below(bits.second(), th, bits) ? static_cast<std::uint32_t>(lo + k) : row.z;
        const std::uint64_t d = g - t.first;  // the batch's output position
        if constexpr (kCount) atomicAdd(counts + item, 1ull);
        else out[d] = item;
      }
    }
  }
}

__global__ void shuffle_keys(std::uint64_t seed, std::uint64_t first, std::uint64_t count, std::uint64_t* __restrict__ keys) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    keys[i] = rng::philox_bits128(seed, kShuffleStreams + first + i, 0).hi;
}

int section_depth(std::uint64_t rows, std::size_t section_rows) {
  int d = 0;
  while ((rows + (std::uint64_t{1} << d) - 1) >> d > section_rows) ++d;
  if (d > 31) throw std::invalid_argument("sectioned sampling: more than 2^31 sections");
  return d;
}

}  // namespace

struct AliasSectionedSampler::Scratch {
  DeviceScratch<unsigned char> shares, sort;
};

AliasSectionedSampler::AliasSectionedSampler(std::size_t section_rows)
    : section_rows_(section_rows == 0 ? 2048 : section_rows), scratch_(new Scratch) {
  if (section_rows_ > kAliasMaxSectionRows) {
    delete scratch_;
    throw std::invalid_argument("sectioned sampling: sections of at most " + std::to_string(kAliasMaxSectionRows) + " rows (" +
                                std::to_string(section_rows_) + " asked)");
  }
}

AliasSectionedSampler::~AliasSectionedSampler() { delete scratch_; }

namespace {

struct Launch {
  Tree tree;
  std::uint64_t* share;
  std::uint64_t* offset;
  dim3 grid;
  std::size_t smem;
};

Launch plan(const AliasTableInfo& table, std::size_t section_rows, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
            DeviceScratch<unsigned char>& shares, cudaStream_t stream) {
  if (table.n == 0 || table.capacity == 0) throw std::invalid_argument("sectioned sampling: an empty table");
  Launch l;
  l.tree = {table.n, section_depth(table.n, section_rows), seed, first, count};
  const std::uint64_t sections = std::uint64_t{1} << l.tree.depth;
  auto* p = reinterpret_cast<std::uint64_t*>(shares.ensure(2 * sections * sizeof(std::uint64_t)));
  l.share = p;
  l.offset = p + sections;
  section_shares<<<static_cast<unsigned>((sections + 127) / 128), 128, 0, stream>>>(l.tree, l.share, l.offset);
  WARPSIM_CUDA(cudaGetLastError());
  // Blocks for about eight waves at 6 blocks an SM (with 1.4 waves, ncu
  // counted the partial last one as up to half the time): sections, each
  // cut into slices where there are fewer sections than that.
  const std::uint64_t want = static_cast<std::uint64_t>(multiprocessors()) * 6 * 8;
  const std::uint64_t slices = std::min<std::uint64_t>(65535, std::max<std::uint64_t>(1, (want + sections - 1) / sections));
  const std::uint64_t per_section = std::max<std::uint64_t>(1, count / sections);
  l.grid = dim3(static_cast<unsigned>(std::min<std::uint64_t>(sections, 1u << 20)),
                static_cast<unsigned>(std::min<std::uint64_t>(slices, std::max<std::uint64_t>(1, per_section / kThreads))));
  const std::uint64_t widest = (table.n + sections - 1) / sections;
  l.smem = static_cast<std::size_t>(widest) * sizeof(AliasRow);
  return l;
}

}  // namespace

void AliasSectionedSampler::sample(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first,
                                   std::uint64_t count, std::uint32_t* out, bool shuffled, cudaStream_t stream) {
  if (count == 0) return;
  const Launch l = plan(table, section_rows_, seed, first, count, scratch_->shares, stream);
  static const bool carved = [] {
    WARPSIM_CUDA(cudaFuncSetAttribute(sectioned_draws<false>, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    WARPSIM_CUDA(cudaFuncSetAttribute(sectioned_draws<true>, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    return true;
  }();
  (void)carved;
  sectioned_draws<false><<<l.grid, kThreads, l.smem, stream>>>(rows, l.tree, l.share, l.offset, out, nullptr);
  WARPSIM_CUDA(cudaGetLastError());
  if (!shuffled) return;
  if (count > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument("sectioned sampling: a shuffled batch holds at most 2^31 - 1 draws");
  }
  const int n = static_cast<int>(count);
  std::size_t temp = 0;
  WARPSIM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, temp, static_cast<const std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
                                               static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), n, 0, 64, stream));
  const std::size_t keys_bytes = count * sizeof(std::uint64_t), vals_bytes = count * sizeof(std::uint32_t);
  const std::size_t align = 256;
  auto up = [&](std::size_t x) { return (x + align - 1) / align * align; };
  unsigned char* s = scratch_->sort.ensure(2 * up(keys_bytes) + up(vals_bytes) + temp);
  auto* keys_in = reinterpret_cast<std::uint64_t*>(s);
  auto* keys_out = reinterpret_cast<std::uint64_t*>(s + up(keys_bytes));
  auto* vals_in = reinterpret_cast<std::uint32_t*>(s + 2 * up(keys_bytes));
  void* temp_p = s + 2 * up(keys_bytes) + up(vals_bytes);
  shuffle_keys<<<static_cast<unsigned>(std::min<std::uint64_t>((count + 255) / 256, static_cast<std::uint64_t>(multiprocessors()) * 8)), 256, 0,
                 stream>>>(seed, first, count, keys_in);
  WARPSIM_CUDA(cudaGetLastError());
  WARPSIM_CUDA(cudaMemcpyAsync(vals_in, out, vals_bytes, cudaMemcpyDeviceToDevice, stream));
  WARPSIM_CUDA(cub::DeviceRadixSort::SortPairs(temp_p, temp, keys_in, keys_out, vals_in, out, n, 0, 64, stream));
}

void AliasSectionedSampler::sample_counts(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first,
                                          std::uint64_t count, unsigned long long* counts, cudaStream_t stream) {
  if (count == 0) return;
  const Launch l = plan(table, section_rows_, seed, first, count, scratch_->shares, stream);
  sectioned_draws<true><<<l.grid, kThreads, l.smem, stream>>>(rows, l.tree, l.share, l.offset, nullptr, counts);
  WARPSIM_CUDA(cudaGetLastError());
}

}  // namespace warpsim::gpu
