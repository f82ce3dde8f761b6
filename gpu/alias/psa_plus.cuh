// PSA+ (oracle/alias/psa_plus.hpp, psa_plus_warp.hpp): greedy packing in groups of
// G items, a warp a group, then the leftovers onto l and h for the split and pack.
//
// A part of gpu/alias_table.cu's translation unit, included there only and
// in this order (as CUB's agents are by their dispatch): units.cuh,
// partition.cuh, split.cuh, pack.cuh, sample.cuh, psa_plus.cuh. Its kernels
// and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// ---- PSA+ (psa_plus.hpp): greedy packing in groups, then PSA on what is left ----

// A group's leftovers: how many lights and heavies, and the deficit and
// excess they bring (the lists' prefix sums at the group's start, once scanned).
struct GroupTotal {
  unsigned long long lights = 0, heavies = 0;
  u128 deficit = 0, excess = 0;
};

struct GroupSum {
  __host__ __device__ GroupTotal operator()(const GroupTotal& a, const GroupTotal& b) const {
    return {a.lights + b.lights, a.heavies + b.heavies, a.deficit + b.deficit, a.excess + b.excess};
  }
};

constexpr std::uint32_t kPlusGroupMax = 1024;

// Group g's leftovers, in index order, at slots [g G, g G + count) of these
// arrays (a group never leaves more than its G items).
struct Leftovers {
  std::uint32_t* item;
  u128* mass;
  GroupTotal* totals;  // each group's own
};

// A warp a group of G consecutive items (psa_plus.hpp with T = 32 lanes):
//   A  the group's units into shared memory, coalesced, and its light and
//      heavy lists (local indices, index order) by ballots;
//   B  lane t packs its share (lights [t L / 32, (t + 1) L / 32), heavies
//      likewise) greedily, writing each row as it goes; the heavy it stops
//      on keeps what is left of it;
//   C  the group's unpacked items, in index order, with their masses
//      (re-classified by what is left), to the group's slots, and the
//      group's totals.
template <class T>
__global__ void __launch_bounds__(32) psa_plus_greedy(const T* __restrict__ w, std::uint64_t n, const Scale* scale, std::uint32_t group,
                                                      AliasRow* rows, Leftovers out) {
  detail::join_dependent_chain();
  __shared__ std::uint64_t units[kPlusGroupMax];
  __shared__ std::uint16_t light[kPlusGroupMax], heavy[kPlusGroupMax];
  __shared__ std::uint32_t packed[kPlusGroupMax / 32];  // a bit an item: written by B
  __shared__ std::uint8_t stopped[kPlusGroupMax];       // 1 + the lane that stopped on it, else 0
  __shared__ u128 stop_mass[32];
  const Item<T> item(w, n, scale);
  const std::uint64_t cap = scale->total;
  const u128 recip = scale->recip;
  const unsigned lane = threadIdx.x;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * group;
  const auto size = static_cast<std::uint32_t>(min(static_cast<std::uint64_t>(group), n - first));
  // A
  std::uint32_t nl = 0, nh = 0;
  const unsigned below = (1u << lane) - 1;
  for (std::uint32_t base = 0; base < size; base += 32) {
    const std::uint32_t x = base + lane;
    const bool in = x < size;
    const std::uint64_t u = in ? item.units(first + x) : 0;
    const bool is_heavy = in && item.heavy(u);
    const unsigned hb = __ballot_sync(0xffffffffu, is_heavy), lb = __ballot_sync(0xffffffffu, in && !is_heavy);
    if (in) {
      units[x] = u;
      stopped[x] = 0;
      if (is_heavy) heavy[nh + __popc(hb & below)] = static_cast<std::uint16_t>(x);
      else light[nl + __popc(lb & below)] = static_cast<std::uint16_t>(x);
    }
    nh += __popc(hb);
    nl += __popc(lb);
  }
  for (std::uint32_t q = lane; q < kPlusGroupMax / 32; q += 32) packed[q] = 0;
  __syncwarp();
  // B
  auto mass = [&](std::uint32_t x) { return static_cast<u128>(n) * units[x]; };
  std::uint32_t i = lane * nl / 32, j = lane * nh / 32;
  const std::uint32_t i_end = (lane + 1) * nl / 32, j_end = (lane + 1) * nh / 32;
  if (j < j_end) {
    u128 m = mass(heavy[j]);
    while (true) {
      if (m > cap && i < i_end) {
        const std::uint32_t l = light[i];
        const u128 ml = mass(l);
        store_row(rows, static_cast<std::uint32_t>(first + l), static_cast<std::uint64_t>(ml), static_cast<std::uint32_t>(first + heavy[j]), cap, recip);
        atomicOr(&packed[l >> 5], 1u << (l & 31));
        m -= cap - ml;
        ++i;
      } else if (m <= cap && j + 1 < j_end) {
        const std::uint32_t h = heavy[j];
        store_row(rows, static_cast<std::uint32_t>(first + h), static_cast<std::uint64_t>(m), static_cast<std::uint32_t>(first + heavy[j + 1]), cap,
                  recip);
        atomicOr(&packed[h >> 5], 1u << (h & 31));
        m = mass(heavy[j + 1]) - (cap - m);
        ++j;
      } else {
        break;
      }
    }
    stopped[heavy[j]] = static_cast<std::uint8_t>(lane + 1);
    stop_mass[lane] = m;
  }
  __syncwarp();
  // C
  GroupTotal total{};
  std::uint32_t count = 0;
  for (std::uint32_t base = 0; base < size; base += 32) {
    const std::uint32_t x = base + lane;
    const bool left = x < size && !((packed[x >> 5] >> (x & 31)) & 1u);
    const unsigned lb = __ballot_sync(0xffffffffu, left);
    if (left) {
      const u128 m = stopped[x] ? stop_mass[stopped[x] - 1] : mass(x);
      const std::uint64_t slot = first + count + __popc(lb & below);
      out.item[slot] = static_cast<std::uint32_t>(first + x);
      out.mass[slot] = m;
      if (m > cap) {
        total.heavies += 1;
        total.excess += m - cap;
      } else {
        total.lights += 1;
        total.deficit += cap - m;
      }
    }
    count += __popc(lb);
  }
  using WarpReduce = cub::WarpReduce<GroupTotal>;
  __shared__ typename WarpReduce::TempStorage tmp;
  const GroupTotal sum = WarpReduce(tmp).Reduce(total, GroupSum{});
  if (lane == 0) out.totals[blockIdx.x] = sum;
}

// prefix[g] <- the sum of totals[0 .. g - 1]; the lists' lengths to the scale.
__global__ void __launch_bounds__(512) scan_groups(const GroupTotal* totals, GroupTotal* prefix, std::size_t count, Scale* scale) {
  detail::join_dependent_chain();
  const GroupTotal all = exclusive_scan_one_block<GroupTotal, GroupSum>(totals, prefix, count);
  if (threadIdx.x == 0) {
    scale->counts[0] = all.lights;
    scale->counts[1] = all.heavies;
  }
}

// A warp a group: its leftovers onto l and h at the group's offsets, in
// order, with their masses and the prefix sums D and E (warp scans).
__global__ void __launch_bounds__(32) psa_plus_scatter(Leftovers in, const GroupTotal* prefix, std::uint32_t group, std::uint64_t n,
                                                       const Scale* scale, MassLists lists) {
  detail::join_dependent_chain();
  using WarpScan = cub::WarpScan<GroupTotal>;
  __shared__ typename WarpScan::TempStorage tmp;
  const std::uint64_t cap = scale->total;
  const unsigned lane = threadIdx.x;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * group;
  const GroupTotal own = in.totals[blockIdx.x];
  const std::uint64_t count = own.lights + own.heavies;
  GroupTotal carry = prefix[blockIdx.x];
  if (blockIdx.x == 0 && lane == 0) {
    lists.deficits[0] = 0;
    lists.excesses[0] = 0;
  }
  for (std::uint64_t base = 0; base < count; base += 32) {
    const std::uint64_t x = base + lane;
    const bool here = x < count;
    const u128 m = here ? in.mass[first + x] : 0;
    GroupTotal v{};
    if (here) v = m > cap ? GroupTotal{0, 1, 0, m - cap} : GroupTotal{1, 0, cap - m, 0};
    GroupTotal incl, all;
    WarpScan(tmp).InclusiveScan(v, incl, GroupSum{}, all);
    if (here) {
      const GroupTotal at = GroupSum{}(carry, incl);
      if (m > cap) {
        lists.heavy[at.heavies - 1] = in.item[first + x];
        lists.heavy_masses[at.heavies - 1] = m;
        lists.excesses[at.heavies] = at.excess;
      } else {
        lists.light[at.lights - 1] = in.item[first + x];
        lists.light_masses[at.lights - 1] = m;
        lists.deficits[at.lights] = at.deficit;
      }
    }
    carry = GroupSum{}(carry, all);
  }
  (void)n;
}

struct SampleArgs {
  const AliasRow* rows;
  std::uint64_t n;
  std::uint64_t seed, first, count;
  std::uint32_t word = 0;  // the Philox block's third word: 0, or 1 + s for shard s of a sharded table
};

__device__ __forceinline__ std::uint32_t draw(const SampleArgs& a, std::uint64_t d) {
  const rng::Bits128 bits = rng::philox_bits128(a.seed, d, a.word);
  const std::uint64_t k = __umul64hi(bits.hi, a.n);  // floor(hi N / 2^64)
  const uint4 row = __ldg(reinterpret_cast<const uint4*>(a.rows + k));
  const std::uint64_t t = row.x | (static_cast<std::uint64_t>(row.y) << 32);
  return bits.lo < t ? static_cast<std::uint32_t>(k) : row.z;
}

__global__ void sample_kernel(SampleArgs a, std::uint32_t* __restrict__ out) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < a.count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    out[i] = draw(a, a.first + i);
  }
}

__global__ void sample_counts_kernel(SampleArgs a, unsigned long long* __restrict__ counts) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < a.count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    atomicAdd(counts + draw(a, a.first + i), 1ull);
  }
}

__global__ void sample_bins_kernel(SampleArgs a, int bin_shift, unsigned long long* __restrict__ bins) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < a.count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    atomicAdd(bins + (draw(a, a.first + i) >> bin_shift), 1ull);
  }
}

template <class T>
std::string bad_weight_message(std::size_t i, T x) {
  if (std::isnan(x)) return "weight " + std::to_string(i) + " is not a number";
  if (std::isinf(x)) return "weight " + std::to_string(i) + " is infinite";
  return "weight " + std::to_string(i) + " is negative";
}

// The merge pack, unless another is asked for (the chunked pack, PSA+'s pack).
bool wants_merge_pack(const AliasBuildConfig& c) { return c.merge_pack && c.pack_chunk == 0 && c.psa_plus_group == 0; }

// Where l is implicit, a warp a split up to this many splits (about two
// waves of warps on an H100 or H200: 10^7 items, 24 us against 46 for a
// warp 32 splits; at 10^8, 176 us against 60), else a warp 32 splits.
constexpr std::size_t kWarpSplitsMax = 16384;

}  // namespace

}  // namespace warpsim::gpu
