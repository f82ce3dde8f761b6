// Phase 2, the partition (oracle/alias/psa.hpp, partition_warp.hpp): every item to
// l or h with its prefix sum, by tile totals, their scan and each tile rescanned.
//
// A part of gpu/alias_table.cu's translation unit, included there only and
// in this order (as CUB's agents are by their dispatch): units.cuh,
// partition.cuh, split.cuh, pack.cuh, sample.cuh, psa_plus.cuh. Its kernels
// and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// ---- the partition -------------------------------------------------------------

// The prefix sums D and E in 64 bits: with L_i the lights among the first
// items and SL their units, D = L_i U - N SL (each light's deficit is U - N u);
// likewise E = N SH - H_j U. The units of any set of items sum to at most
// U < 2^62, so the scan adds 64-bit integers and D, E are formed in 128 bits
// where they are read.
struct PrefixItem {
  unsigned long long heavies = 0;
  unsigned long long light_units = 0, heavy_units = 0;
};

struct PrefixSum {
  __host__ __device__ PrefixItem operator()(const PrefixItem& a, const PrefixItem& b) const {
    return {a.heavies + b.heavies, a.light_units + b.light_units, a.heavy_units + b.heavy_units};
  }
};

// A run of items' PrefixItem, summed as all their units, the heavies' units
// and the heavies (the lights' units the difference): fewer operations an
// item than three sums of selected values.
struct RunSum {
  unsigned long long units = 0, heavy_units = 0;
  unsigned heavies = 0;
  __device__ void add(std::uint64_t u, bool heavy) {
    units += u;
    heavy_units += heavy ? u : 0;
    heavies += heavy;
  }
  __device__ PrefixItem item() const { return {heavies, units - heavy_units, heavy_units}; }
};

// An item's units u_i and its contribution to the prefix sums; heavy iff
// its mass N u_i exceeds U, i.e. u_i > floor(U / N) (Scale::heavy_above: one
// 64-bit comparison where the mass is a 128-bit product).
template <class T>
struct Item {
  const T* w;
  int fine, shift;
  std::uint64_t n;
  std::uint64_t cap;
  std::uint64_t above;
  detail::FloatScale scale;  // fp32: 2^-e, for units_of_float
  Item() = default;
  __device__ Item(const T* weights, std::uint64_t count, const Scale* s) : Item(weights, count, s, s->heavy_above) {}
  __device__ Item(const T* weights, std::uint64_t count, const Scale* s, std::uint64_t heavy_above)
      : w(weights), fine(s->fine), shift(s->shift), n(count), cap(s->total), above(heavy_above), scale(detail::float_scale(s->fine + s->shift)) {}
  __device__ std::uint64_t units_of_weight(T x) const {
    if constexpr (sizeof(T) == 4) return units_of_float(x, scale);
    else return units_of(x, fine + shift);
  }
  __device__ std::uint64_t units(std::uint64_t i) const { return units_of_weight(w[i]); }
  __host__ __device__ bool heavy(std::uint64_t u) const { return u > above; }
};

// l and h: the items, and the prefix sums of their units, from which each
// item's units come back as a difference (storing them as well cost the
// partition 8 bytes an item written and the pack 8 read).
struct Lists {
  static constexpr bool kImplicit = false;
  std::uint32_t* light;
  std::uint32_t* heavy;
  std::uint64_t* light_prefix;  // units of the first 0..|l| lights
  std::uint64_t* heavy_prefix;  // units of the first 0..|h| heavies
  std::uint64_t n, cap;
  // D(i) and E(j) (psa.hpp).
  __device__ u128 deficit(std::uint64_t i) const { return static_cast<u128>(i) * cap - static_cast<u128>(n) * light_prefix[i]; }
  __device__ u128 excess(std::uint64_t j) const { return static_cast<u128>(n) * heavy_prefix[j] - static_cast<u128>(j) * cap; }
  // u_i of light i and heavy j (the mass is N u).
  __device__ std::uint64_t light_unit(std::uint64_t i) const { return light_prefix[i + 1] - light_prefix[i]; }
  __device__ std::uint64_t heavy_unit(std::uint64_t j) const { return heavy_prefix[j + 1] - heavy_prefix[j]; }
  __device__ u128 light_mass(std::uint64_t i) const { return static_cast<u128>(n) * light_unit(i); }
  __device__ u128 heavy_mass(std::uint64_t j) const { return static_cast<u128>(n) * heavy_unit(j); }
  unsigned long long* counts;  // [lights, heavies], written by the last item
  __device__ void bind(const Scale* s) { cap = s->total; }
};

// PSA+'s leftovers (psa_plus.hpp): items whose masses are what is left of
// them, so the lists hold the masses and 128-bit prefix sums themselves.
struct MassLists {
  std::uint32_t* light;
  std::uint32_t* heavy;
  u128* light_masses;
  u128* heavy_masses;
  u128* deficits;  // D(0..|l|)
  u128* excesses;  // E(0..|h|)
  std::uint64_t cap;
  __device__ u128 deficit(std::uint64_t i) const { return deficits[i]; }
  __device__ u128 excess(std::uint64_t j) const { return excesses[j]; }
  __device__ u128 light_mass(std::uint64_t i) const { return light_masses[i]; }
  __device__ u128 heavy_mass(std::uint64_t j) const { return heavy_masses[j]; }
  __device__ void bind(const Scale* s) { cap = s->total; }
};

// The partition as reduce, scan, rescan over tiles of kTile items, a block
// a tile and each of its warps a chunk of kPerWarp consecutive items:
// tile_totals sums each chunk and each tile, CUB's device scan scans the
// tiles, tile_scatter rescans each chunk from its carry (its tile's prefix
// and the chunks before it in the tile), every item going to l or h with
// its prefix sum. Integer sums, so the totals and the
// scans are the same in any order (a CUB scan of the 48-byte items straight
// over the items ran at a sixth of the bandwidth: docs/PERF.md).
constexpr int kScanThreads = 128;
constexpr int kPerThread = 8;
constexpr std::size_t kTile = static_cast<std::size_t>(kScanThreads) * kPerThread;
constexpr int kTileWarps = kScanThreads / 32;
constexpr std::size_t kPerWarp = kTile / kTileWarps;
constexpr int kBatch = 8;  // a lane's loads in flight in the chunk passes

// A warp's chunk, kBatch loads at a time: f(x, i, in) for the chunk's items
// i = first + 32 k + lane in order, x = w[i] where in (i < n), else 0.
template <class T, class F>
__device__ __forceinline__ void for_each_in_chunk(const T* __restrict__ w, std::uint64_t n, std::uint64_t first, F&& f) {
  const unsigned lane = threadIdx.x & 31u;
  for (std::size_t k0 = 0; k0 < kPerWarp; k0 += 32 * kBatch) {
    T x[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const std::uint64_t i = first + k0 + 32 * b + lane;
      x[b] = i < n ? __ldg(w + i) : T(0);
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const std::uint64_t i = first + k0 + 32 * b + lane;
      f(x[b], i, i < n);
    }
  }
}

// A block kTotalsChunks tiles, a warp as many consecutive chunks, every
// lane's vectors of all of them in flight at once (one chunk's were too few
// bytes in flight: 202 us at 10^8 items, two chunks 167, four 156).
constexpr int kTotalsChunks = 4;  // a warp's

static_assert(kTotalsChunks == kTileWarps, "a warp's chunks are one tile");

// Tile `tile`'s chunk sums by one warp (each lane's part: reduce over the
// warp), every lane's vectors of the whole tile in flight at once.
template <class T>
__device__ __forceinline__ void tile_chunk_sums(const Item<T>& item, const T* w, std::uint64_t n, std::uint64_t tile, RunSum (&sum)[kTotalsChunks]) {
  const unsigned lane = threadIdx.x & 31u;
  constexpr int kPer = 16 / sizeof(T), kVectors = static_cast<int>(kPerWarp) / 32 / kPer;
  using Vec = std::conditional_t<sizeof(T) == 4, float4, double2>;
  const std::uint64_t first = tile * kTile;
  if (reinterpret_cast<std::uintptr_t>(w) % 16 == 0 && first + kTotalsChunks * kPerWarp <= n) {
    // Whole chunks, 16-byte aligned: each one's sum in any order.
    const Vec* v = reinterpret_cast<const Vec*>(w + first);
    Vec x[kTotalsChunks * kVectors];
#pragma unroll
    for (int q = 0; q < kTotalsChunks * kVectors; ++q) x[q] = __ldg(v + lane + 32 * q);
#pragma unroll
    for (int q = 0; q < kTotalsChunks * kVectors; ++q) {
      T t[kPer];
      memcpy(t, &x[q], sizeof t);
#pragma unroll
      for (int e = 0; e < kPer; ++e) {
        const std::uint64_t u = item.units_of_weight(t[e]);
        sum[q / kVectors].add(u, item.heavy(u));
      }
    }
  } else {
#pragma unroll
    for (int c = 0; c < kTotalsChunks; ++c) {
      for_each_in_chunk(w, n, first + c * kPerWarp, [&](T x, std::uint64_t, bool) {
        const std::uint64_t u = item.units_of_weight(x);  // (0 past n)
        sum[c].add(u, item.heavy(u));
      });
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kScanThreads) tile_totals(const T* w, std::uint64_t n, Scale* scale, PrefixItem* tiles,
                                                             PrefixItem* chunks, std::uint64_t tile_count) {
  detail::join_dependent_chain();
  const std::uint64_t above = scale->total / n;  // floor(U / N)
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    scale->heavy_above = above;
    scale->recip = reciprocal(scale->total);
  }
  const Item<T> item(w, n, scale, above);
  using WarpReduce = cub::WarpReduce<PrefixItem>;
  __shared__ typename WarpReduce::TempStorage tmp[kTileWarps];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const std::uint64_t tile = static_cast<std::uint64_t>(blockIdx.x) * kTileWarps + warp;  // the warp's
  RunSum sum[kTotalsChunks];
  tile_chunk_sums(item, w, n, tile, sum);
  PrefixItem total{};
#pragma unroll
  for (int c = 0; c < kTotalsChunks; ++c) {
    const PrefixItem chunk = WarpReduce(tmp[warp]).Reduce(sum[c].item(), PrefixSum{});
    if (lane == 0 && tile < tile_count) chunks[tile * kTileWarps + c] = chunk;
    total = PrefixSum{}(total, chunk);
    __syncwarp();
  }
  if (lane == 0 && tile < tile_count) tiles[tile] = total;
}

// out[b] <- the sum of in[0 .. b - 1] (in place if out = in) by one block of
// 512 threads, 512 items a step; returns the sum of all. For the few items
// of a scan over tiles or groups.
template <class Item, class Sum>
__device__ Item exclusive_scan_one_block(const Item* in, Item* out, std::size_t count) {
  using Scan = cub::BlockScan<Item, 512>;
  __shared__ typename Scan::TempStorage tmp;
  Item carry{};
  for (std::size_t base = 0; base < count; base += 512) {
    const std::size_t t = base + threadIdx.x;
    const Item x = t < count ? in[t] : Item{};
    Item before, all;
    Scan(tmp).ExclusiveScan(x, before, Item{}, Sum{}, all);
    __syncthreads();
    if (t < count) out[t] = Sum{}(carry, before);
    carry = Sum{}(carry, all);
  }
  return carry;
}


// A lane's kCount consecutive items from `mine` (lane-blocked: lane t of a
// chunk holds items first + kCount t + k), 16-byte vector loads where they
// are whole and aligned; weights past n read as 0.
template <class T, int kCount>
__device__ __forceinline__ void load_lane_items(const T* __restrict__ w, std::uint64_t n, std::uint64_t mine, T (&x)[kCount]) {
  constexpr int kPer = 16 / sizeof(T);
  static_assert(kCount % kPer == 0, "whole 16-byte vectors");
  using Vec = std::conditional_t<sizeof(T) == 4, float4, double2>;
  if (reinterpret_cast<std::uintptr_t>(w + mine) % 16 == 0 && mine + kCount <= n) {
    const Vec* v = reinterpret_cast<const Vec*>(w + mine);
    Vec q[kCount / kPer];
#pragma unroll
    for (int e = 0; e < kCount / kPer; ++e) q[e] = __ldg(v + e);
    memcpy(x, q, sizeof x);
  } else {
#pragma unroll
    for (int k = 0; k < kCount; ++k) x[k] = mine + k < n ? __ldg(w + mine + k) : T(0);
  }
}

// Where a chunk's item lands in its warp's staging area: a pad word every
// kPerThread entries, so that the lanes (kPerThread entries apart) write to
// different banks.
__device__ __forceinline__ unsigned staged(unsigned slot) { return slot + slot / kPerThread; }
constexpr unsigned kStaged = kPerWarp + kPerWarp / kPerThread;

// l without its lists (AliasBuildConfig::implicit_lights): writing l and
// its prefix sums and reading them back cost 12 bytes an item each way, the
// weights read once more cost 4. So the partition writes h alone, with two
// small tables: every 32nd light's item and the units of the lights before
// it (the light directory), and each chunk's start (the heavies and the
// lights' units before it). A light's prefix sum is then found again from
// the weights: from the directory's light below it, or from its chunk's
// start where that is nearer (a run of heavies between two lights makes the
// directory's light far), at most a chunk of items read either way. The
// split (split_implicit_kernel) searches the directory first and then
// walks the weights to its light, which it hands to the merge pack with its
// prefix sum; the pack reads its section's items, a block together
// (find_lights). Measured (docs/PERF.md): 6% faster builds at 10^8 on an
// H200, 16% on an H100, the same at 10^7.
struct ChunkStart {
  unsigned long long heavies, light_units;  // before the chunk
};

struct LightDirectory {
  std::uint32_t* at;          // the item of light 32 m
  std::uint64_t* prefix;      // the units of lights 0 .. 32 m - 1
  ChunkStart* chunk_start;    // each chunk of kPerWarp items'
  // Each section's first light (its item and the units before it), found
  // by the split for the merge pack.
  unsigned long long* start_item;
  unsigned long long* start_prefix;
};

template <class T>
struct ImplicitLists {
  static constexpr bool kImplicit = true;
  const T* w;
  std::uint32_t* heavy;
  std::uint64_t* heavy_prefix;  // units of the first 0..|h| heavies
  LightDirectory dir;
  std::uint64_t n, cap;
  std::uint64_t lights = 0, heavies = 0;  // |l|, |h| (bind)
  Item<T> item{};                         // how a weight becomes units (bind)
  __device__ void bind(const Scale* s) {
    cap = s->total;
    lights = s->counts[0];
    heavies = s->counts[1];
    item = Item<T>(w, n, s);
  }
  // Where to start looking for light p (< |l|): an item at or before it,
  // the position on l of the first light from there, and the units of the
  // lights before that one.
  struct Cursor {
    std::uint64_t item, pos, prefix;
  };
  __device__ std::uint64_t lights_before_chunk(std::uint64_t c) const { return c * kPerWarp - dir.chunk_start[c].heavies; }
  __device__ Cursor locate(std::uint64_t p) const {
    const std::uint64_t m = p / 32, at = dir.at[m];
    // Light p lies in a chunk from light 32 m's to light 32 (m + 1)'s (or the last).
    std::uint64_t lo = at / kPerWarp, hi = 32 * (m + 1) < lights ? dir.at[m + 1] / kPerWarp : (n - 1) / kPerWarp;
    const std::uint64_t first = lo;
    while (lo < hi) {  // the last chunk whose start is at or before light p
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (lights_before_chunk(mid) <= p) lo = mid; else hi = mid - 1;
    }
    if (lo == first) return {at, 32 * m, dir.prefix[m]};
    return {lo * kPerWarp, lights_before_chunk(lo), dir.chunk_start[lo].light_units};
  }
  // SL(|l|), the units of all the lights: U less the heavies'.
  __device__ std::uint64_t all_light_units() const { return cap - heavy_prefix[heavies]; }
  __device__ u128 excess(std::uint64_t j) const { return static_cast<u128>(n) * heavy_prefix[j] - static_cast<u128>(j) * cap; }
};

// A chunk's rescan by its warp, lane-blocked: each lane sums its 16 items,
// one warp scan gives each lane its start, and each lane places its items
// in order into its warp's staging area in shared memory -- the chunk's
// lights first, in order, then its heavies -- from which the warp stores
// them to l and h coalesced (each item and its prefix sum). A scan of 32
// items a step cost 60 warp instructions a step (two 64-bit sums shuffled);
// lanes storing their own items would each touch their own lines.
// With kImplicit (ImplicitLists) the lights stay where they are: each
// chunk's start and every 32nd light go to the directory, h as before.
template <class T, bool kImplicit>
__global__ void __launch_bounds__(kScanThreads, 8) tile_scatter(const T* w, std::uint64_t n, const Scale* scale, Lists lists,
                                                             const PrefixItem* tiles, const PrefixItem* chunks, LightDirectory dir) {
  detail::join_dependent_chain();
  using WarpScan = cub::WarpScan<PrefixItem>;
  __shared__ typename WarpScan::TempStorage scan_tmp[kTileWarps];
  __shared__ std::uint32_t stage_item[kTileWarps][kStaged];
  __shared__ std::uint64_t stage_prefix[kTileWarps][kStaged];
  const Item<T> item(w, n, scale);
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const std::uint64_t first = blockIdx.x * kTile + warp * kPerWarp, mine = first + static_cast<std::uint64_t>(lane) * kPerThread;
  PrefixItem carry = tiles[blockIdx.x];
  for (unsigned q = 0; q < warp; ++q) carry = PrefixSum{}(carry, chunks[blockIdx.x * kTileWarps + q]);
  if (kImplicit && lane == 0) dir.chunk_start[blockIdx.x * kTileWarps + warp] = ChunkStart{carry.heavies, carry.light_units};
  if (blockIdx.x == 0 && threadIdx.x == 0) {  // the lists' prefix sums start at 0
    lists.heavy_prefix[0] = 0;
    if (!kImplicit) lists.light_prefix[0] = 0;
  }
  T x[kPerThread];
  load_lane_items(w, n, mine, x);
  RunSum sum;  // (items past n: units 0, light, never placed)
  std::uint64_t units[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    units[k] = item.units_of_weight(x[k]);
    sum.add(units[k], item.heavy(units[k]));
  }
  PrefixItem before, chunk;
  WarpScan(scan_tmp[warp]).ExclusiveScan(sum.item(), before, PrefixItem{}, PrefixSum{}, chunk);
  const std::uint64_t in_chunk = first >= n ? 0 : min(static_cast<std::uint64_t>(kPerWarp), n - first);
  const auto lights = static_cast<unsigned>(in_chunk - chunk.heavies);  // the chunk's
  std::uint32_t* items = stage_item[warp];
  std::uint64_t* prefix = stage_prefix[warp];
  // Each item's prefix sum: its list's units before the lane's items, and
  // the lane's own run through it (all units less the heavies', or the heavies').
  const std::uint64_t light_base = carry.light_units + before.light_units, heavy_base = carry.heavy_units + before.heavy_units;
  RunSum run;
  const auto heavies_before = static_cast<unsigned>(before.heavies);
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const std::uint64_t i = mine + k;
    const std::uint64_t u = units[k];
    const bool heavy = item.heavy(u);
    if (kImplicit && i < n && !heavy) {  // light i - (heavies before it): the directory's if a multiple of 32
      const std::uint64_t pos = i - (carry.heavies + heavies_before + run.heavies);
      if (pos % 32 == 0) {
        dir.at[pos / 32] = static_cast<std::uint32_t>(i);
        dir.prefix[pos / 32] = light_base + (run.units - run.heavy_units);
      }
    }
    run.add(u, heavy);
    if (i < n && (!kImplicit || heavy)) {
      const unsigned local = lane * kPerThread + k, heavies = heavies_before + run.heavies;
      const unsigned slot = heavy ? lights + heavies - 1 : local - heavies;
      items[staged(slot)] = static_cast<std::uint32_t>(i);
      prefix[staged(slot)] = heavy ? heavy_base + run.heavy_units : light_base + (run.units - run.heavy_units);
    }
  }
  __syncwarp();
  const std::uint64_t l0 = first - carry.heavies, h0 = carry.heavies;  // the chunk's first places on l and h
  for (unsigned t = lane; !kImplicit && t < lights; t += 32) {
    lists.light[l0 + t] = items[staged(t)];
    lists.light_prefix[l0 + t + 1] = prefix[staged(t)];
  }
  for (unsigned t = lane; t < chunk.heavies; t += 32) {
    lists.heavy[h0 + t] = items[staged(lights + t)];
    lists.heavy_prefix[h0 + t + 1] = prefix[staged(lights + t)];
  }
  if (in_chunk > 0 && first + in_chunk == n && lane == 0) {  // the last chunk: the lists' lengths
    lists.counts[0] = n - (carry.heavies + chunk.heavies);
    lists.counts[1] = carry.heavies + chunk.heavies;
  }
}

}  // namespace

}  // namespace warpsim::gpu
