// Sectioned sampling on the GPU (gpu/alias_table.hpp, AliasSectionedSampler),
// as oracle/alias/sectioned.hpp defines it:
//
//   section_shares   a thread a section j of the 2^D: walks the tree from the
//                    root, drawing each node's split with rng::section_split
//                    (every thread on a path draws the same split), and keeps
//                    its share and its offset (what went left where it turned right)
//   sectioned_draws  a block a (section, slice of its share): the section's
//                    rows to shared memory (16-byte loads, coalesced; kept as
//                    the threshold's high word and the alias), then a
//                    thread a pair of draws, one Philox block for both
//                    (rng/half_block.hpp): row first + index_below(word, rows),
//                    the item if bits_below(word, its threshold), else the
//                    alias; stores coalesced, a pair's two in one 8-byte word.
//                    The common case takes 37 instructions a draw (SASS,
//                    sm_90): half of Philox4x32-10 with its round keys in
//                    uniform registers (gpu/detail/philox_keyed.hpp), one
//                    multiplication for the row, one shared load, one
//                    comparison; drawing through Random123's call and the
//                    general path for every draw took 73.
//   shuffle          (optional) keys = Philox bits of (seed, 2^62 + first + i),
//                    a stable radix sort of (key, draw) pairs
#include "gpu/alias_table.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/philox_keyed.hpp"
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

// One draw the general way, as oracle/alias/sectioned.hpp makes it: its
// half of the pair's Philox block and, where Lemire's product falls in the
// rejection zone or the coin's high word ties the threshold's, the extra
// words rng/half_block.hpp defines. Called for the draws at a slice's ends
// and for the rare draws the common case below cannot decide.
__device__ __noinline__ std::uint32_t draw_general(const AliasRow* __restrict__ table, std::uint64_t seed, std::uint64_t g, std::uint32_t n,
                                                   std::uint32_t lo) {
  rng::HalfBlock bits(seed, kDrawStreams, g);
  const std::uint32_t k = rng::index_below(bits.first(), n, bits);
  const uint4 row = __ldg(reinterpret_cast<const uint4*>(table + lo + k));
  const std::uint64_t th = row.x | (static_cast<std::uint64_t>(row.y) << 32);
  return rng::bits_below(bits.second(), th, bits) ? lo + k : row.z;
}

// A draw from its two words x, y in the common case, with 32-bit
// arithmetic only: row k = x n >> 32 unless the low half of x n is below n
// (Lemire's rejection zone, 2^32 mod n, lies below it), and the coin y
// against the threshold's high word unless they tie. Returns false where it
// cannot decide (probability below n 2^-32 + 2^-32): draw_general does.
__device__ __forceinline__ bool draw_common(const uint2* rows, std::uint32_t x, std::uint32_t y, std::uint32_t n, std::uint32_t lo,
                                            std::uint32_t& item) {
  std::uint64_t m;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(m) : "r"(x), "r"(n));  // x n, one instruction
  const auto k = static_cast<std::uint32_t>(m >> 32);
  if (static_cast<std::uint32_t>(m) < n) return false;
  const uint2 row = rows[k];  // {threshold's high word, alias}
  if (y == row.x) return false;
  item = y < row.x ? lo + k : row.y;
  return true;
}

// Blocks (x: sections, grid-stride; y: slices of each section's share).
// A thread a pair of draws p (draws 2p and 2p + 1, one Philox block, stream
// 2^63 + p): the pairs with both draws in the slice run without range
// checks and decide in draw_common; the draws at the slice's ends (a pair
// it shares with the next slice or section) and the undecided ones go to
// draw_general.
template <bool kCount>
__global__ void __launch_bounds__(kThreads) sectioned_draws(const AliasRow* __restrict__ table, Tree t,
                                                            const std::uint64_t* __restrict__ share, const std::uint64_t* __restrict__ offset,
                                                            std::uint32_t* __restrict__ out, unsigned long long* __restrict__ counts) {
  // The section's rows as the common case reads them, 8 bytes each (one
  // load a draw; 16-byte rows read as two words took about 7 bank
  // conflicts a load and made shared memory the bound).
  extern __shared__ uint2 rows[];
  const std::uint64_t sections = std::uint64_t{1} << t.depth;
  const std::uint64_t seed = t.seed;
  const detail::PhiloxKeyed philox(seed);  // rng::philox_bits(seed, ., .), its round keys made once
  // Whether a pair's two outputs form one aligned 8-byte word (the same for every pair).
  const bool pairs_aligned = !kCount && (reinterpret_cast<std::uintptr_t>(out) - 4 * static_cast<std::uintptr_t>(t.first)) % 8 == 0;
  auto put = [&](std::uint64_t g, std::uint32_t item) {
    if constexpr (kCount) atomicAdd(counts + item, 1ull);
    else out[g - t.first] = item;  // the batch's output position
  };
  for (std::uint64_t j = blockIdx.x; j < sections; j += gridDim.x) {
    const std::uint64_t c = share[j];
    const std::uint64_t from = c * blockIdx.y / gridDim.y, to = c * (blockIdx.y + 1) / gridDim.y;
    if (from == to) continue;  // uniform across the block
    const std::uint64_t lo64 = node_first_row(t.rows, t.depth, j);
    const auto lo = static_cast<std::uint32_t>(lo64);  // rows < 2^32
    const auto n = static_cast<std::uint32_t>(node_first_row(t.rows, t.depth, j + 1) - lo64);
    __syncthreads();  // the previous section's draws are done with `rows`
    for (std::uint32_t e = threadIdx.x; e < n; e += blockDim.x) {
      const uint4 row = __ldg(reinterpret_cast<const uint4*>(table + lo + e));
      rows[e] = make_uint2(row.y, row.z);
    }
    __syncthreads();
    // Global draw numbers [g0, g1); whole pairs [pa, pb).
    const std::uint64_t g0 = t.first + offset[j] + from, g1 = t.first + offset[j] + to;
    const std::uint64_t pa = (g0 + 1) >> 1, pb = g1 >> 1;
    if (threadIdx.x == 0 && (g0 & 1)) put(g0, draw_general(table, seed, g0, n, lo));
    if (threadIdx.x == blockDim.x - 1 && (g1 & 1)) put(g1 - 1, draw_general(table, seed, g1 - 1, n, lo));
    for (std::uint64_t p = pa + threadIdx.x; p < pb; p += kThreads) {
      const auto block = philox(kDrawStreams + p, 0);
      std::uint32_t a, b;
      if (!draw_common(rows, block.v[0], block.v[1], n, lo, a)) a = draw_general(table, seed, 2 * p, n, lo);
      if (!draw_common(rows, block.v[2], block.v[3], n, lo, b)) b = draw_general(table, seed, 2 * p + 1, n, lo);
      if constexpr (kCount) {
        atomicAdd(counts + a, 1ull);
        atomicAdd(counts + b, 1ull);
      } else if (pairs_aligned) {
        *reinterpret_cast<uint2*>(out + (2 * p - t.first)) = make_uint2(a, b);
      } else {
        out[2 * p - t.first] = a;
        out[2 * p + 1 - t.first] = b;
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
  // 48 blocks an SM: twelve waves at the 4 blocks an SM that the kernel's
  // 58 registers allow (with 1.4 waves, ncu counted the partial last one as
  // up to half the time): sections, each cut into slices where there are
  // fewer sections than that.
  const std::uint64_t want = static_cast<std::uint64_t>(multiprocessors()) * 6 * 8;
  const std::uint64_t slices = std::min<std::uint64_t>(65535, std::max<std::uint64_t>(1, (want + sections - 1) / sections));
  const std::uint64_t per_section = std::max<std::uint64_t>(1, count / sections);
  l.grid = dim3(static_cast<unsigned>(std::min<std::uint64_t>(sections, 1u << 20)),
                static_cast<unsigned>(std::min<std::uint64_t>(slices, std::max<std::uint64_t>(1, per_section / kThreads))));
  const std::uint64_t widest = (table.n + sections - 1) / sections;
  l.smem = static_cast<std::size_t>(widest) * sizeof(uint2);
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
