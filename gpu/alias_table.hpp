// Alias tables on the GPU (seed 001): PSA's construction and sampling, equal
// to the oracle (oracle/alias/) bit for bit -- the same table for every input
// and every launch configuration, and the same index for every draw.
//
// The table is in exact units (docs/alias.md): row k keeps keep_k units of
// item k out of its capacity U and gives the rest to its alias. A row is
// stored as the kernels sample it: the threshold t_k = floor(keep_k 2^64 / U)
// (2^64 - 1 for a full row, whose alias is then the item itself), from which
// keep_k = ceil(t_k U / 2^64) comes back exactly (oracle/alias/table.hpp). The unit comes
// from the largest weight and an integer sum, the lists' prefix sums are
// 128-bit integers: every reduction and scan here is an integer one, so the
// order in which the GPU adds does not change the table.
//
//   AliasTableBuilder<float> builder;
//   const AliasTableInfo info = builder.build(d_weights, n, d_rows);   // n rows of AliasRow (weights on the device or the host)
//   alias_sample(d_rows, info, seed, 0, draws, d_out);                 // draw d = oracle::alias::draw(t, seed, d)
//
// Every CUDA call is checked (gpu/cuda_check.hpp); bad weights throw
// std::invalid_argument with the oracle's message.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace warpsim::gpu {

// One row, 16 bytes (one 128-bit store or load).
struct alignas(16) AliasRow {
  std::uint64_t threshold = 0;  // item k if a 64-bit uniform is below it
  std::uint32_t alias = 0, pad = 0;
};
static_assert(sizeof(AliasRow) == 16);

struct AliasTableInfo {
  std::size_t n = 0;
  int exponent = 0;            // the unit is 2^exponent of the weights
  std::uint64_t capacity = 0;  // U: every row's total, in units
  std::size_t lights = 0, heavies = 0;  // the lists PSA split and packed (PSA+: what the groups left)
  std::size_t sections = 0;    // PSA's sections (threads of the split and the pack)
};

// How a build runs; no choice changes the table (the GPU tests run them all).
struct AliasBuildConfig {
  std::size_t sections = 0;       // 0: one per 1,152 items for the merge pack, else one per 64
  int threads_per_block = 256;    // of the split (and of the pack from global memory)
  // The pack reads l and h from shared memory (Sec. 3.2.2: a warp's 32
  // sections' range copied there first) where that range fits, else from
  // global memory; false: always from global memory.
  bool shared_pack = true;
  // The merge pack: a block of 128 threads packs a section of at most 1,152
  // steps, its range of l and h (with their prefix sums) copied to shared
  // memory, each thread finding where its 9 steps start by the split's
  // binary search there (a merge path). Used for PSA when every section has
  // at most 1,152 steps and pack_chunk is 0; false: the packs below.
  bool merge_pack = true;
  // With the merge pack: l is not written. The partition writes h and a
  // directory (every 32nd light's item and prefix sum, each chunk of 256
  // items' start), and the split and the pack find the lights again from
  // the weights: 12 bytes an item less written and about 7 less read.
  // false: l and its prefix sums written out and read back.
  bool implicit_lights = true;
  // The chunked pack (Sec. 3.2.4): each thread reads l and h through its own
  // windows of this many items in shared memory (8 or 16); 0: the pack above.
  // PSA's pack only (PSA+'s reads its mass lists from global memory).
  int pack_chunk = 0;
  // The partial p-ary split (Sec. 3.1.2): a warp narrows the range of its 32
  // sections' splits with pivots and ballots before each lane's binary
  // search (2-5% faster whole builds at 10^7-10^8 on an H200); false: a
  // thread a split, binary search from the whole range. (Where l is
  // implicit the split is its own: a warp a split up to 16,384 sections,
  // else the p-ary split over the light directory first.)
  bool pary_split = true;
  // PSA+ (Sec. 3.3, 4.6): greedy packing in groups of this many items (at
  // most 1,024; a warp a group, each lane an equal share), then PSA on what
  // is left; 0: PSA. The table is oracle::alias::psa_plus(u, G, ..., 32)'s:
  // it depends on G, and on nothing else here.
  std::size_t psa_plus_group = 0;
  // Capture the build's launches as a CUDA graph and replay it while the
  // weights and rows pointers, n and this configuration stay the same (new
  // weights in the same buffer are read afresh): for rebuilding small
  // tables, where the ten launches are much of the time. The first
  // build pays the capture.
  bool graph = false;
  // Each kernel of the build after the first a programmatic dependent
  // launch of the one before (Hopper: the next pass is scheduled while the
  // last drains, gpu/detail/dependent_launch.cuh); false: plain launches.
  bool dependent_launch = true;
};

// The parts of a weight vector too large for one device (dist/, oracle/
// alias/sharded.hpp's steps 1 and 2), each on its device:
//   alias_part_check: the weights checked (the first bad one's index, n if
//     none) and their largest (0 for none);
//   alias_unit_sum: the exact sum of floor(w_i / 2^exponent), 128 bits
//     (exponent >= ilogb(largest) - 63: each term below 2^64);
//   alias_unit_bins: bins[i >> bin_shift] += floor(w_i / 2^exponent), the
//     part's mass in bins of 2^bin_shift consecutive items.
// Synchronous (each returns what it found). weights: device memory.
__extension__ typedef unsigned __int128 AliasSum128;

struct AliasPartCheck {
  std::uint64_t first_bad = 0;
  double largest = 0;
};
template <class T>
AliasPartCheck alias_part_check(const T* weights, std::size_t n, cudaStream_t stream = nullptr);
template <class T>
AliasSum128 alias_unit_sum(const T* weights, std::size_t n, int exponent, cudaStream_t stream = nullptr);
template <class T>
void alias_unit_bins(const T* weights, std::size_t n, int exponent, int bin_shift, unsigned long long* bins, cudaStream_t stream = nullptr);

// The largest N: indices are 32-bit.
inline constexpr std::size_t kAliasMaxItems = (std::size_t{1} << 32) - 1;

template <class T>
class AliasTableBuilder {
 public:
  AliasTableBuilder();
  ~AliasTableBuilder();
  AliasTableBuilder(const AliasTableBuilder&) = delete;
  AliasTableBuilder& operator=(const AliasTableBuilder&) = delete;

  // weights: n of them, in device memory or on the host (pageable or pinned:
  // copied to the builder's scratch first, on `stream`); rows: device, n
  // rows. Returns when the table is written (the unit is read back on the
  // way). Throws std::invalid_argument
  // for n = 0 or n > kAliasMaxItems, a NaN, negative or infinite weight, or
  // all weights 0; CudaError for a CUDA failure (out of memory: with the bytes
  // asked for).
  AliasTableInfo build(const T* weights, std::size_t n, AliasRow* rows, const AliasBuildConfig& config = {},
                       cudaStream_t stream = nullptr);

  // The unit phase alone (for other structures in the same exact units,
  // such as gpu/bringmann_larsen.hpp): the weights checked, the unit 2^e and
  // the total U of u_i = floor(w_i / 2^e) (oracle::alias::to_units), with
  // info.n, info.exponent and info.capacity set. weights: device memory.
  // Throws as build does.
  AliasTableInfo find_units(const T* weights, std::size_t n, cudaStream_t stream = nullptr);

  // A table over one part of a larger weight vector (dist/'s sharded
  // tables, oracle/alias/sharded.hpp): the units u_i = floor(w_i / 2^exponent)
  // at the whole's unit, not this part's own, so that every u_i is the one
  // table's; info.capacity is the part's mass U_s, and a part of mass 0
  // (every u_i 0) writes no rows. weights: device memory. Throws as build
  // does, but for weights all 0; std::invalid_argument where the units'
  // total reaches 2^62 (an exponent finer than the whole's).
  AliasTableInfo build_at(const T* weights, std::size_t n, AliasRow* rows, int exponent, const AliasBuildConfig& config = {},
                          cudaStream_t stream = nullptr);

  // Device bytes a build of n items needs besides the weights and the rows.
  static std::size_t scratch_bytes(std::size_t n, const AliasBuildConfig& config = {});

 private:
  AliasTableInfo build_impl(const T* weights, std::size_t n, AliasRow* rows, const AliasBuildConfig& config, cudaStream_t stream, const int* exponent);
  struct Scratch;
  Scratch* scratch_;
};

// Draws first .. first + count - 1 from the table: out[i] is draw first + i,
// which takes the 128 bits (hi, lo) of rng/'s Philox block (seed, first + i,
// 0): row floor(hi N / 2^64), the item if lo < its threshold, else the alias.
// Asynchronous on `stream`.
void alias_sample(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                  std::uint32_t* out, cudaStream_t stream = nullptr);

// The same draws, counted: counts[item] += 1 for each (n counters).
void alias_sample_counts(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                         unsigned long long* counts, cudaStream_t stream = nullptr);

// A sharded table's draws (oracle/alias/sharded.hpp, shard_draw): draw j
// of shard s takes the Philox bits of (seed, j, 1 + s); draws first ..
// first + count - 1 of shard `shard`'s table written to out, or counted in
// bins of 2^bin_shift consecutive items (bins[item >> bin_shift] += 1).
void alias_sample_shard(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint32_t shard, std::uint64_t first,
                        std::uint64_t count, std::uint32_t* out, cudaStream_t stream = nullptr);
void alias_sample_shard_bins(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint32_t shard, std::uint64_t first,
                             std::uint64_t count, int bin_shift, unsigned long long* bins, cudaStream_t stream = nullptr);

// Sectioned sampling (seed 001, Sec. 3.4.4): a batch of draws first ..
// first + count - 1, divided among the 2^D sections of at most
// section_rows() rows by binomial splits (rng/binomial.hpp), each section's
// rows copied to shared memory once and its draws made from there. Equal
// draw for draw to oracle::alias::sample_sectioned (same table, section
// rows, seed, first, count).
//
// The draws come out GROUPED BY SECTION, not in i.i.d. order: their counts
// per item have the table's law, but position i of the output is not a
// draw independent of its neighbours' sections. Where the order matters,
// `shuffled` puts them in a uniformly random order (a stable radix sort on
// 64-bit Philox keys: far more work than the sampling itself).
//
//   AliasSectionedSampler sampler;                // sections of 2,048 rows (32 KB of shared memory)
//   sampler.sample(d_rows, info, seed, 0, draws, d_out);
class AliasSectionedSampler {
 public:
  // section_rows: 0 for the default, 2,048; at most kAliasMaxSectionRows.
  explicit AliasSectionedSampler(std::size_t section_rows = 0);
  ~AliasSectionedSampler();
  AliasSectionedSampler(const AliasSectionedSampler&) = delete;
  AliasSectionedSampler& operator=(const AliasSectionedSampler&) = delete;

  std::size_t section_rows() const { return section_rows_; }

  // out: device, count indices. Asynchronous on `stream` (the scratch stays
  // in use until the stream reaches the end of the call).
  void sample(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
              std::uint32_t* out, bool shuffled = false, cudaStream_t stream = nullptr);
  // The same draws counted: counts[item] += 1 (n counters).
  void sample_counts(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                     unsigned long long* counts, cudaStream_t stream = nullptr);

 private:
  struct Scratch;
  std::size_t section_rows_;
  Scratch* scratch_;
};

// 3,072 rows: 48 KB, a block's shared memory without opting in.
inline constexpr std::size_t kAliasMaxSectionRows = 3072;

}  // namespace warpsim::gpu
