// PSA on the GPU in exact units (gpu/alias_table.hpp), phase by phase as the
// oracle defines them (oracle/alias/units.hpp, psa.hpp, table.hpp):
//
//   check_and_max   every weight finite and >= 0 (the first bad one's index),
//                   the largest (atomicMax on the bits: for x >= 0 they order as the values)
//   fine_sum        S' = sum of a_i = floor(w_i / 2^e'), e' = ilogb(max) - 63
//                   (two 64-bit integer sums of the halves: exact, any order)
//   total           U = sum of u_i = a_i >> (e - e')
//   partition       a scan over the items of {heavies, light units, heavy
//                   units} (integers: the same in any order) as tile totals,
//                   a scan of those, and each tile rescanned, every item
//                   going to l or h with its prefix sum (D or E from it);
//                   by default (the merge pack) l is not written: h, and a
//                   directory of every 32nd light and each chunk's start,
//                   from which the split and the pack find the lights again
//                   in the weights (ImplicitLists)
//   split           the binary search on the merge path (a thread or a warp
//                   a section, or a warp 32 sections: the partial p-ary split)
//   pack            a thread a section, from its split to the next, or the
//                   merge pack (a block a section); every row is written
//                   once, as one 16-byte store
//
// PSA+ (AliasBuildConfig::psa_plus_group = G, psa_plus.hpp with 32 lanes)
// replaces the partition: a warp a group of G items packs greedily (each
// lane its share of the group's lights and heavies), the group's leftovers
// go to its slots with what is left of their masses, a scan over the groups
// and a warp a group put them on l and h with 128-bit prefix sums, and the
// split and pack above run on those lists.
//
// Sampling: draw d takes rng/'s 128 Philox bits (hi, lo) of (seed, d, 0): row
// floor(hi N / 2^64), the item if lo < the row's threshold, else the alias
// (oracle/alias/table.hpp, sample_bits).
#include "gpu/alias_table.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda_pipeline.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/dependent_launch.cuh"
#include "gpu/detail/exact_units.hpp"
#include "gpu/launch.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

__extension__ typedef unsigned __int128 u128;

constexpr int kUnitBits = 62;

// ---- units -----------------------------------------------------------------

template <class T>
struct Bits;
template <>
struct Bits<float> {
  using type = unsigned int;
};
template <>
struct Bits<double> {
  using type = unsigned long long;
};

// a_i = floor(w_i / 2^e') from the weight's bits (gpu/detail/exact_units.hpp:
// the oracle's floor(ldexp(w, -e')) without a double conversion); the units
// u_i = floor(a_i / 2^(e - e')) = floor(w_i / 2^e) likewise.
using detail::units_of;
using detail::units_of_float;

// The build's scalars, found and kept on the device so that the phases run
// back to back on the stream with no round trip to the host: the reductions'
// targets, the unit, the capacity and its reciprocal, the lists' lengths.
struct Scale {
  unsigned long long first_bad;  // the smallest index of a bad weight (n if none)
  unsigned long long max_bits;   // the largest good weight's bits
  unsigned long long fine_lo, fine_hi;  // S' = fine_lo + fine_hi 2^32
  unsigned long long total;      // U
  int fine, shift, exponent, pad;
  u128 recip;                    // floor(2^126 / U)
  unsigned long long heavy_above;  // floor(U / N): an item is heavy (N u > U) iff u > it
  unsigned long long counts[2];  // |l|, |h|
  // U without a pass of its own (fine_sum): the sum of the weights times
  // 2^-64 in doubles (check_and_max, in any order), from which S' is known
  // to within 2^-18 and so its width to one of two values; fine_sum sums
  // floor(a_i / 2^s) for both shifts s, and total_units takes the one S'
  // asks for. Where the approximation cannot be trusted (fp64 weights whose
  // largest is below 2^-900, where w 2^-64 can underflow) total_units makes
  // its pass.
  double approx;
  unsigned long long candidate[2];
  int candidate_shift[2];
  int candidates_ok;
};

// A grid-stride pass over the weights, 16-byte vector loads, kLoads of them
// in flight a thread (issued together, then used): the passes below are
// bound by the bytes in flight, not by their arithmetic. The items before
// the first 16-byte boundary and after the last whole vector go to the
// first threads one by one. f(x, i) for each i < n.
constexpr int kLoads = 8;

template <int kThreads, class T, class F>
__device__ __forceinline__ void for_each_weight(const T* __restrict__ w, std::size_t n, F&& f) {
  constexpr std::size_t kPer = 16 / sizeof(T);
  using Vec = std::conditional_t<sizeof(T) == 4, float4, double2>;
  const std::size_t tid = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x, stride = static_cast<std::size_t>(gridDim.x) * kThreads;
  const auto misaligned = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(w) % 16);
  const std::size_t head = min(n, misaligned % sizeof(T) != 0 ? n : (16 - misaligned) % 16 / sizeof(T));
  const std::size_t vectors = (n - head) / kPer, tail = head + vectors * kPer;
  if (tid < head) f(w[tid], tid);
  if (tid < n - tail) f(w[tail + tid], tail + tid);
  const Vec* v = reinterpret_cast<const Vec*>(w + head);
  for (std::size_t base = tid; base < vectors; base += stride * kLoads) {
    Vec x[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const std::size_t q = base + u * stride;
      if (q < vectors) x[u] = __ldg(v + q);
    }
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const std::size_t q = base + u * stride;
      if (q < vectors) {
        T t[kPer];
        memcpy(t, &x[u], sizeof t);
#pragma unroll
        for (std::size_t e = 0; e < kPer; ++e) f(t[e], head + q * kPer + e);
      }
    }
  }
}

template <class T, int kThreads>
__global__ void check_and_max(const T* __restrict__ w, std::size_t n, Scale* out) {
  detail::join_dependent_chain();
  using B = typename Bits<T>::type;
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  using ReduceSum = cub::BlockReduce<double, kThreads>;
  __shared__ typename ReduceSum::TempStorage sum_tmp;
  unsigned long long bad = n, best = 0;
  double approx = 0;
  for_each_weight<kThreads>(w, n, [&](T x, std::size_t i) {
    if (!(x >= 0) || isinf(x)) {  // NaN, negative or infinite
      bad = min(bad, static_cast<unsigned long long>(i));
    } else if (x > 0) {  // (-0 passes the check, and its bits, the sign's, would order above every positive weight)
      B b;
      memcpy(&b, &x, sizeof b);
      best = max(best, static_cast<unsigned long long>(b));
      approx += static_cast<double>(x) * 0x1p-64;  // no overflow, whatever the weights
    }
  });
  const unsigned long long block_bad = Reduce(tmp).Reduce(bad, cuda::minimum<>{});
  __syncthreads();
  const unsigned long long block_best = Reduce(tmp).Reduce(best, cuda::maximum<>{});
  const double block_approx = ReduceSum(sum_tmp).Sum(approx);
  if (threadIdx.x == 0) {
    atomicMin(&out->first_bad, block_bad);
    atomicMax(&out->max_bits, block_best);
    atomicAdd(&out->approx, block_approx);
  }
}

// The scale's steps, each computed by every block of the kernel that needs
// it first (its inputs are complete when that kernel starts) and stored by
// block 0 for the kernels after: e' from the largest weight (fine_sum), e
// from S' (total_units), 1 / U and floor(U / N) from U (tile_totals; PSA+:
// find_recip). On bad or all-zero weights they give safe values (the host
// refuses those weights when it reads the scale back; the kernels meanwhile
// stay in bounds). No launch of one thread between the passes.
template <class T>
__device__ int fine_exponent(const Scale* s, std::size_t n) {
  const auto bits = static_cast<typename Bits<T>::type>(s->max_bits);
  T largest;
  memcpy(&largest, &bits, sizeof largest);
  return s->first_bad < n || largest == 0 ? 0 : ilogb(static_cast<double>(largest)) - 63;
}

__device__ inline int bit_width(u128 x) {
  const auto hi = static_cast<unsigned long long>(x >> 64), lo = static_cast<unsigned long long>(x);
  return hi != 0 ? 128 - __clzll(static_cast<long long>(hi)) : lo != 0 ? 64 - __clzll(static_cast<long long>(lo)) : 0;
}

// The bits of S'; the unit's exponent e = e' + width - (kUnitBits - 1), its
// shift e - e' (0 for no weight).
__device__ inline int fine_width(const Scale* s) {
  return bit_width(static_cast<u128>(s->fine_lo) + (static_cast<u128>(s->fine_hi) << 32));
}
__device__ inline int unit_shift(int width) { return width > kUnitBits - 1 ? width - (kUnitBits - 1) : 0; }

__device__ inline u128 reciprocal(std::uint64_t total) { return (static_cast<u128>(1) << 126) / (total == 0 ? 1 : total); }

__global__ void init_scale(Scale* s, std::size_t n) {
  detail::join_dependent_chain();
  *s = Scale{};
  s->first_bad = n;
}

__global__ void find_recip(Scale* s, std::size_t n) {
  detail::join_dependent_chain();
  s->recip = reciprocal(s->total);
  s->heavy_above = s->total / n;  // N u > U <=> u > U / N <=> u > floor(U / N), u an integer
}

template <class T, int kThreads>
__global__ void fine_sum(const T* __restrict__ w, std::size_t n, Scale* out) {
  detail::join_dependent_chain();
  const int fine = fine_exponent<T>(out, n);
  // The two shifts S' may ask for (Scale::approx): S' = sum floor(w_i / 2^e')
  // lies in [X - N, X] for X = sum w_i / 2^e' >= 2^63, and the doubles' sum
  // A = approx 2^(64 - e') is within (N - 1) 2^-53 X of X (any order of
  // additions; w 2^-64 neither overflows nor, for fp32 or a largest weight
  // of at least 2^-900, loses more than the bound allows to underflow): so
  // S' is in A (1 -+ 2^-18) and its width is that of one of the ends.
  const double a = ldexp(out->approx, 64 - fine);
  const int shifts[2] = {unit_shift(ilogb(a * (1 - 0x1p-18)) + 1), unit_shift(ilogb(a * (1 + 0x1p-18)) + 1)};
  const bool ok = a >= 0x1p62 && (sizeof(T) == 4 || fine + 63 >= -900);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    out->fine = fine;
    out->candidate_shift[0] = shifts[0];
    out->candidate_shift[1] = shifts[1];
    out->candidates_ok = ok;
  }
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  unsigned long long lo = 0, hi = 0;  // each < n 2^32 <= 2^64
  unsigned long long u0 = 0, u1 = 0;  // the units at either shift (wrapping where the shift is not S''s: unused then)
  if (shifts[0] == shifts[1]) {  // (S' far from a power of two: one candidate)
    const detail::FloatScale scale = detail::float_scale(fine);
    for_each_weight<kThreads>(w, n, [&](T x, std::size_t) {
      std::uint64_t a;
      if constexpr (sizeof(T) == 4) a = units_of_float(x, scale);
      else a = units_of(x, fine);
      lo += a & 0xffffffffu;
      hi += a >> 32;
      u0 += a >> shifts[0];
    });
    u1 = u0;
  } else {
    for_each_weight<kThreads>(w, n, [&](T x, std::size_t) {
      const std::uint64_t a = units_of(x, fine);
      lo += a & 0xffffffffu;
      hi += a >> 32;
      u0 += a >> shifts[0];
      u1 += a >> shifts[1];
    });
  }
  const unsigned long long block_lo = Reduce(tmp).Sum(lo);
  __syncthreads();
  const unsigned long long block_hi = Reduce(tmp).Sum(hi);
  __syncthreads();
  const unsigned long long block_u0 = Reduce(tmp).Sum(u0);
  __syncthreads();
  const unsigned long long block_u1 = Reduce(tmp).Sum(u1);
  if (threadIdx.x == 0) {
    atomicAdd(&out->fine_lo, block_lo);
    atomicAdd(&out->fine_hi, block_hi);
    atomicAdd(&out->candidate[0], block_u0);
    atomicAdd(&out->candidate[1], block_u1);
  }
}

template <class T, int kThreads>
__global__ void total_units(const T* __restrict__ w, std::size_t n, Scale* out) {
  detail::join_dependent_chain();
  const int fine = out->fine, width = fine_width(out), shift = unit_shift(width);
  const int known = !out->candidates_ok ? -1 : shift == out->candidate_shift[0] ? 0 : shift == out->candidate_shift[1] ? 1 : -1;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    out->shift = shift;
    out->exponent = fine + width - (kUnitBits - 1);
    if (known >= 0) out->total = out->candidate[known];
  }
  if (known >= 0) return;  // fine_sum summed U (the whole grid returns)
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  unsigned long long sum = 0;  // < 2^62
  for_each_weight<kThreads>(w, n, [&](T x, std::size_t) { sum += units_of(x, fine + shift); });
  const unsigned long long block = Reduce(tmp).Sum(sum);
  if (threadIdx.x == 0) atomicAdd(&out->total, block);
}

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

// ---- split and pack (psa.hpp) -------------------------------------------------

struct SplitAt {
  unsigned long long i, j;
};

template <class L>
struct PackArgs {
  using List = L;
  L lists;
  std::uint64_t lights, heavies, steps, sections;
  std::uint64_t cap;
  u128 recip;  // floor(2^126 / U)
  std::uint64_t per_step = 0;  // floor(U / N) (PSA: N the steps)
};

// The sweep's state after k steps: the largest i in [max(0, k - |h|), min(k, |l|)]
// with i == lo or D(i - 1) < E(k - i + 1).
template <class L>
__device__ SplitAt split_at(const PackArgs<L>& a, std::uint64_t k) {
  std::uint64_t lo = k > a.heavies ? k - a.heavies : 0, hi = min(k, a.lights);
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    const std::uint64_t j = k - mid;
    const bool light_first = j >= a.heavies || a.lists.deficit(mid - 1) < a.lists.excess(j + 1);
    if (light_first) lo = mid; else hi = mid - 1;
  }
  return {lo, k - lo};
}

// The scalars the host does not know when it launches: the lists' lengths,
// U and 1 / U.
template <class L>
__device__ __forceinline__ PackArgs<L> with_scale(PackArgs<L> a, const Scale* s) {
  a.lights = s->counts[0];
  a.heavies = s->counts[1];
  a.steps = a.lights + a.heavies;  // N for PSA; PSA+'s leftovers
  a.cap = s->total;
  a.recip = s->recip;
  a.per_step = s->heavy_above;
  a.lists.bind(s);
  return a;
}

template <class L>
__global__ void split_kernel(PackArgs<L> base, const Scale* scale, SplitAt* splits) {
  detail::join_dependent_chain();
  const PackArgs<L> a = with_scale(base, scale);
  const std::uint64_t s = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (s > a.sections) return;
  splits[s] = s == a.sections ? SplitAt{a.lights, a.heavies} : split_at(a, s * a.steps / a.sections);
}

// The partial p-ary split (Sec. 3.1.2, Alg. 3.1 as oracle/alias/split_pary.hpp
// corrects it: errata E15), a warp the splits of 32 consecutive sections.
// Every split of the warp lies in [A, B], from [lo(k_1), hi(k_q)]; lane t
// takes the pivot x_t = A + t (B - A) / 31 and reports below if
// P_{k_1}(x_t) (every split is at least x_t) and above if !P_{k_q}(x_t)
// (every split is below x_t); the highest below and the lowest above pivot
// (two ballots) give the next range, for as long as an iteration at least
// halves it. Then each lane's binary search for its own k within [A, B].
// P_k(x) := x <= lo(k) or (x <= hi(k) and D(x - 1) < E(k - x + 1)) is true
// exactly for x up to the split of step k (psa.hpp), which split_at finds.
template <class L>
__global__ void split_pary_kernel(PackArgs<L> base, const Scale* scale, SplitAt* splits) {
  detail::join_dependent_chain();
  const PackArgs<L> a = with_scale(base, scale);
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t first = (blockIdx.x * static_cast<std::uint64_t>(blockDim.x >> 5) + (threadIdx.x >> 5)) * 32;
  if (first > a.sections) return;  // the whole warp
  const std::uint64_t last = min(first + 31, static_cast<std::uint64_t>(a.sections));
  auto k_of = [&](std::uint64_t s) { return s * a.steps / a.sections; };
  auto lo_of = [&](std::uint64_t k) { return k > a.heavies ? k - a.heavies : std::uint64_t{0}; };
  auto hi_of = [&](std::uint64_t k) { return min(k, static_cast<std::uint64_t>(a.lights)); };
  auto p = [&](std::uint64_t k, std::uint64_t x) {
    return x <= lo_of(k) || (x <= hi_of(k) && a.lists.deficit(x - 1) < a.lists.excess(k - x + 1));
  };
  const std::uint64_t k1 = k_of(first), kq = k_of(last);
  std::uint64_t lo = lo_of(k1), hi = hi_of(kq);  // [A, B]
  while (hi - lo >= 64) {  // uniform across the warp
    const std::uint64_t x = lo + lane * (hi - lo) / 31;
    const unsigned below = __ballot_sync(0xffffffffu, p(k1, x)), above = __ballot_sync(0xffffffffu, !p(kq, x));
    const std::uint64_t new_lo = below ? lo + (31 - __clz(below)) * (hi - lo) / 31 : lo;
    const std::uint64_t new_hi = above ? lo + (__ffs(above) - 1) * (hi - lo) / 31 - 1 : hi;
    const bool halved = 2 * (new_hi - new_lo) <= hi - lo;
    lo = new_lo;
    hi = new_hi;
    if (!halved) break;
  }
  const std::uint64_t s = first + lane;
  if (s > last) return;
  const std::uint64_t k = k_of(s);
  std::uint64_t l = max(lo, lo_of(k)), h = min(hi, hi_of(k));
  while (l < h) {
    const std::uint64_t mid = l + (h - l + 1) / 2;
    if (p(k, mid)) l = mid; else h = mid - 1;
  }
  splits[s] = SplitAt{l, k - l};
}

// The split where l is implicit (ImplicitLists): split_pary_kernel's
// search (a warp the splits of 32 consecutive sections) where D(x) is at
// hand only for x a multiple of 32 (the directory). The split of step k is
// the largest x in [lo(k), hi(k)] with P_k(x) := x <= lo(k) or (x <= hi(k)
// and D(x - 1) < E(k - x + 1)); P_k(x) falls with x and rises with k. So:
//   A  over x = 32 m + 1 alone (D(32 m) = 32 m U - N SL from the directory,
//      one load a probe): the warp narrows its 32 splits' range of m with a
//      pivot a lane and two ballots, then each lane's binary search finds
//      its first m that fails; the split is within the 32 places below;
//   B  each lane walks its lights from there, their units summed from the
//      weights (ImplicitLists::locate), testing each place in turn.
// Then the section's first light (its item and SL) for the merge pack.
template <class T>
__global__ void split_implicit_kernel(PackArgs<ImplicitLists<T>> base, const Scale* scale, SplitAt* splits) {
  detail::join_dependent_chain();
  const PackArgs<ImplicitLists<T>> a = with_scale(base, scale);
  const ImplicitLists<T>& l = a.lists;
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t first = (blockIdx.x * static_cast<std::uint64_t>(blockDim.x >> 5) + (threadIdx.x >> 5)) * 32;
  if (first > a.sections) return;  // the whole warp
  const std::uint64_t last = min(first + 31, static_cast<std::uint64_t>(a.sections));
  auto k_of = [&](std::uint64_t s) { return s == a.sections ? a.steps : s * a.steps / a.sections; };
  auto lo_of = [&](std::uint64_t k) { return k > a.heavies ? k - a.heavies : std::uint64_t{0}; };
  auto hi_of = [&](std::uint64_t k) { return min(k, static_cast<std::uint64_t>(a.lights)); };
  auto holds = [&](std::uint64_t k, std::uint64_t x, std::uint64_t sl) {  // D(x - 1) < E(k - x + 1), sl = SL(x - 1)
    return static_cast<u128>(x - 1) * l.cap - static_cast<u128>(l.n) * sl < l.excess(k - x + 1);
  };
  auto p_at = [&](std::uint64_t k, std::uint64_t m) {  // P_k(32 m + 1)
    const std::uint64_t x = 32 * m + 1;
    return x <= lo_of(k) || (x <= hi_of(k) && holds(k, x, l.dir.prefix[m]));
  };
  // A: every lane's first failing m lies in [from, to].
  const std::uint64_t k1 = k_of(first), kq = k_of(last);
  std::uint64_t from = lo_of(k1) / 32, to = hi_of(kq) / 32 + 1;  // (P_k(32 m + 1) holds below lo / 32 and fails past hi / 32)
  while (to - from >= 64) {  // uniform across the warp
    const std::uint64_t m = from + (lane + 1) * (to - from) / 33;
    const unsigned held = __ballot_sync(0xffffffffu, p_at(k1, m)), failed = __ballot_sync(0xffffffffu, !p_at(kq, m));
    const std::uint64_t new_from = held ? __shfl_sync(0xffffffffu, m, 31 - __clz(held)) + 1 : from;
    const std::uint64_t new_to = failed ? __shfl_sync(0xffffffffu, m, __ffs(failed) - 1) : to;
    const bool narrowed = 2 * (new_to - new_from) <= to - from;
    from = new_from;
    to = new_to;
    if (!narrowed) break;
  }
  const std::uint64_t s = first + lane;
  if (s > last) return;
  const std::uint64_t k = k_of(s);
  std::uint64_t lo = lo_of(k), hi = hi_of(k);
  {
    std::uint64_t f = max(from, lo / 32), t = min(to, hi / 32 + 1);  // the first m that fails
    while (f < t) {
      const std::uint64_t mid = f + (t - f) / 2;
      if (p_at(k, mid)) f = mid + 1; else t = mid;
    }
    if (f > 0) lo = max(lo, 32 * (f - 1) + 1);  // P_k holds there
    hi = min(hi, 32 * f);                        // and fails at 32 f + 1
  }
  // B: the walk over lights lo .. hi.
  std::uint64_t split = lo, item = l.n, prefix = 0;
  if (lo < a.lights) {
    const auto c = l.locate(lo);
    std::uint64_t pos = c.pos, sl = c.prefix;
    bool done = false;
    for (std::uint64_t i = c.item; !done && i < l.n; i += 8) {
      T x[8];
#pragma unroll
      for (int b = 0; b < 8; ++b) x[b] = i + b < l.n ? __ldg(l.w + i + b) : T(0);
      const std::uint64_t pos_before = pos;
#pragma unroll
      for (int b = 0; b < 8; ++b) {
        const std::uint64_t u = l.item.units_of_weight(x[b]);
        if (!done && i + b < l.n && !l.item.heavy(u)) {  // light pos, SL(pos) = sl
          if (pos == split) {  // the split's own light (lo, or the place just found)
            item = i + b;
            prefix = sl;
            if (pos + 1 <= hi && holds(k, pos + 1, sl)) ++split; else done = true;
            if (split == a.lights) done = true;  // (past l's last light: heavies alone remain)
          }
          sl += u;
          ++pos;
        }
      }
      if (!done && pos == pos_before && pos < a.lights) {  // a run of heavies: on to the chunk of the next light
        const auto next = l.locate(pos);
        if (next.pos == pos && next.item > i + 8) i = next.item - 8;
      }
    }
  }
  if (split >= a.lights) {  // (no light left: the walk ran off l's end)
    item = l.n;
    prefix = l.all_light_units();
  }
  splits[s] = SplitAt{split, k - split};
  l.dir.start_item[s] = item;
  l.dir.start_prefix[s] = prefix;
}

// The same split a warp a split, for builds of few sections (the kernel
// above leaves most of the GPU idle there: a lane's dependent loads, 270
// warps at 10^7 items). A: the warp's 32 lanes probe 32 values of m a round
// (two rounds narrow 2^20 places to one); B: the warp reads the items from
// the directory's light 32 at a time, a ballot picking the lights and a
// warp scan summing their units, each lane testing its own light's place.
template <class T>
__global__ void split_implicit_warp_kernel(PackArgs<ImplicitLists<T>> base, const Scale* scale, SplitAt* splits) {
  detail::join_dependent_chain();
  const PackArgs<ImplicitLists<T>> a = with_scale(base, scale);
  const std::uint64_t s = (blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x) / 32;
  if (s > a.sections) return;  // the whole warp
  const unsigned lane = threadIdx.x & 31u;
  const ImplicitLists<T>& l = a.lists;
  const std::uint64_t k = s == a.sections ? a.steps : s * a.steps / a.sections;
  std::uint64_t lo = k > a.heavies ? k - a.heavies : 0, hi = min(k, static_cast<std::uint64_t>(a.lights));
  auto holds = [&](std::uint64_t x, std::uint64_t sl) {  // P_k(x) for lo(k) < x <= hi(k), sl = SL(x - 1)
    return static_cast<u128>(x - 1) * l.cap - static_cast<u128>(l.n) * sl < l.excess(k - x + 1);
  };
  if (lo < hi) {  // A: the first m in [m_lo, m_hi] whose x = 32 m + 1 fails (m_hi + 1 if none)
    const std::uint64_t m_lo = (lo + 31) / 32, m_hi = (hi - 1) / 32;
    if (m_lo <= m_hi) {
      std::uint64_t from = m_lo, to = m_hi + 1;
      auto q = [&](std::uint64_t m) { return holds(32 * m + 1, l.dir.prefix[m]); };
      while (from < to) {
        const std::uint64_t len = to - from;
        if (len <= 32) {
          const unsigned fails = __ballot_sync(0xffffffffu, lane < len && !q(from + lane));
          from = fails ? from + (__ffs(fails) - 1) : to;
          break;
        }
        const std::uint64_t m = from + (lane + 1) * len / 33;  // 32 increasing pivots inside [from, to)
        const unsigned held = __ballot_sync(0xffffffffu, q(m));
        const int c = __popc(held);  // (the lanes that hold are the first c)
        const std::uint64_t below = __shfl_sync(0xffffffffu, m, c > 0 ? c - 1 : 0), above = __shfl_sync(0xffffffffu, m, c < 32 ? c : 31);
        if (c > 0) from = below + 1;
        if (c < 32) to = above;
      }
      if (from > m_lo) lo = 32 * (from - 1) + 1;  // P_k holds there
      hi = min(hi, 32 * from);                     // and fails at 32 from + 1
    }
  }
  // B: lights lo .. min(hi, |l| - 1), the largest x in (lo, hi] that holds.
  std::uint64_t split = lo, item = l.n, prefix = 0;
  if (lo < a.lights) {
    const auto c = l.locate(lo);
    std::uint64_t pos = c.pos, sl0 = c.prefix;
    const std::uint64_t last = min(hi, static_cast<std::uint64_t>(a.lights) - 1);
    for (std::uint64_t i0 = c.item; pos <= last && i0 < l.n; i0 += 32) {
      const std::uint64_t i = i0 + lane;
      const std::uint64_t u = i < l.n ? l.item.units_of_weight(__ldg(l.w + i)) : 0;
      const bool light = i < l.n && !l.item.heavy(u);
      const unsigned lights = __ballot_sync(0xffffffffu, light);
      std::uint64_t through = light ? u : 0;  // the lights' units through this lane's
      for (int d = 1; d < 32; d *= 2) {
        const std::uint64_t y = __shfl_up_sync(0xffffffffu, through, d);
        if (lane >= static_cast<unsigned>(d)) through += y;
      }
      const std::uint64_t all = __shfl_sync(0xffffffffu, through, 31);
      const std::uint64_t p = pos + __popc(lights & ((1u << lane) - 1)), sl = sl0 + through - (light ? u : 0);  // light p, SL(p)
      const bool in = light && p >= lo && p <= last;
      // x = p + 1 holds: the split is at least p + 1 (the lanes that hold are the first in order).
      const unsigned ok = __ballot_sync(0xffffffffu, in && p + 1 <= hi && holds(p + 1, sl));
      if (ok) split = __shfl_sync(0xffffffffu, p, 31 - __clz(ok)) + 1;
      const unsigned at = __ballot_sync(0xffffffffu, in && p == split);  // the split's own light, once seen
      if (at) {
        item = __shfl_sync(0xffffffffu, i, __ffs(at) - 1);
        prefix = __shfl_sync(0xffffffffu, sl, __ffs(at) - 1);
      }
      pos += __popc(lights);
      sl0 += all;
      if (lights == 0 && pos <= last) {  // a run of heavies: on to the chunk of the next light (many splits may share it)
        const auto next = l.locate(pos);
        if (next.pos == pos && next.item > i0 + 32) i0 = next.item - 32;
      }
    }
  }
  if (split >= a.lights) {  // (past l's last light)
    item = l.n;
    prefix = l.all_light_units();
  }
  if (lane == 0) {
    splits[s] = SplitAt{split, k - split};
    l.dir.start_item[s] = item;
    l.dir.start_prefix[s] = prefix;
  }
}

// x N where the product is below 2^64 (a mass, a spill), N < 2^32: two
// 32-bit products where the compiler's 64-bit one takes three.
__device__ __forceinline__ std::uint64_t times_n_low(std::uint64_t x, std::uint32_t n) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(x)) * n + (static_cast<std::uint64_t>(static_cast<std::uint32_t>(x >> 32) * n) << 32);
}

// Row k as sampling reads it: the threshold floor(keep 2^64 / U) (2^64 - 1
// and the item itself for a full row).
// The division by U is a multiplication by R = floor(2^126 / U): keep R < 2^126
// (keep < U), and (keep R) >> 62 is t or t - 1 (the error of R times keep is
// below 2^62; R <= 2^126 / U, so never t + 1), settled by the remainder
// r = keep 2^64 - t' U: in [0, 2U), below 2^63, so its low 64 bits are all
// of it, and those are -t' U mod 2^64 (keep 2^64 has none): one 64-bit
// product, where comparing (t' + 1) U with keep 2^64 took a 128-bit one
// (the pack's most executed line).
__device__ __forceinline__ std::uint64_t threshold(std::uint64_t keep, std::uint64_t cap, u128 recip) {
  const std::uint64_t r_lo = static_cast<std::uint64_t>(recip), r_hi = static_cast<std::uint64_t>(recip >> 64);  // r_hi < 4
  // (keep R) >> 62 from keep r_lo + keep r_hi 2^64: the low half's top two bits below the high half.
  const std::uint64_t hi = __umul64hi(keep, r_lo) + keep * r_hi, lo = keep * r_lo;
  const std::uint64_t t = hi << 2 | lo >> 62;
  const std::uint64_t r = std::uint64_t{0} - t * cap;  // keep 2^64 - t U
  return r >= cap ? t + 1 : t;
}

__device__ __forceinline__ void store_row(AliasRow* rows, std::uint32_t k, std::uint64_t keep, std::uint32_t alias, std::uint64_t cap,
                                          u128 recip) {
  const bool full = keep >= cap;
  const std::uint64_t t = full ? ~std::uint64_t{0} : threshold(keep, cap, recip);
  if (full) alias = k;
  const uint4 v = {static_cast<unsigned>(t), static_cast<unsigned>(t >> 32), alias, 0u};
  *reinterpret_cast<uint4*>(rows + k) = v;  // one 16-byte store (Alg. 4.4)
}

// Section s packs steps k_s .. k_{s+1} - 1 from its split, as psa.hpp's pack().
template <class L>
__global__ void pack_kernel(PackArgs<L> base, const Scale* scale, const SplitAt* splits, AliasRow* rows) {
  detail::join_dependent_chain();
  const PackArgs<L> a = with_scale(base, scale);
  const std::uint64_t s = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (s >= a.sections) return;
  const std::uint64_t to = (s + 1) * a.steps / a.sections;
  std::uint64_t i = splits[s].i, j = splits[s].j;
  const u128 cap = a.cap;
  u128 w = j < a.heavies ? a.lists.excess(j + 1) + cap - a.lists.deficit(i) : 0;  // the spill
  for (std::uint64_t step = i + j; step < to; ++step) {
    if (j >= a.heavies) {  // no heavy item left: the lights left are exactly full
      const std::uint32_t l = a.lists.light[i];
      store_row(rows, l, a.cap, l, a.cap, a.recip);
      ++i;
    } else if (i < a.lights && w > cap) {  // fill light i from heavy j
      const std::uint32_t l = a.lists.light[i];
      const u128 m = a.lists.light_mass(i);
      store_row(rows, l, static_cast<std::uint64_t>(m), a.lists.heavy[j], a.cap, a.recip);
      w -= cap - m;
      ++i;
    } else {  // heavy j keeps w, the rest from heavy j + 1 (the last keeps exactly a bucket)
      const std::uint32_t h = a.lists.heavy[j];
      const bool more = j + 1 < a.heavies;
      store_row(rows, h, static_cast<std::uint64_t>(w), more ? a.lists.heavy[j + 1] : h, a.cap, a.recip);
      if (more) w = a.lists.heavy_mass(j + 1) - (cap - w);
      ++j;
    }
  }
}

// The pack with l and h in shared memory (Sec. 3.2.2): a warp packs 32
// consecutive sections, lane q section s0 + q, after copying their range of
// l and h (items and units) into shared memory, coalesced: lights [i0, i1)
// and heavies [j0, min(j1 + 1, |h|)), at most `per_warp` items. The steps are
// pack_kernel's, reading shared memory.
__global__ void pack_shared_kernel(PackArgs<Lists> base, const Scale* scale, const SplitAt* __restrict__ splits, AliasRow* rows,
                                   std::uint32_t per_warp) {
  detail::join_dependent_chain();
  const PackArgs<Lists> a = with_scale(base, scale);
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const std::uint64_t s0 = (static_cast<std::uint64_t>(blockIdx.x) * (blockDim.x >> 5) + warp) * 32;
  if (s0 >= a.sections) return;  // the whole warp
  const std::uint64_t s_end = min(s0 + 32, static_cast<std::uint64_t>(a.sections));
  const SplitAt first = splits[s0], last = splits[s_end];
  const std::uint64_t i0 = first.i, j0 = first.j;
  const std::uint64_t nl = last.i - i0, j1 = min(static_cast<std::uint64_t>(last.j + 1), a.heavies), nh = j1 > j0 ? j1 - j0 : 0;
  unsigned char* mine = smem + static_cast<std::size_t>(warp) * per_warp * 12;
  auto* units = reinterpret_cast<std::uint64_t*>(mine);                     // 8-byte aligned
  auto* items = reinterpret_cast<std::uint32_t*>(mine + static_cast<std::size_t>(per_warp) * 8);
  for (std::uint64_t t = lane; t < nl; t += 32) {
    items[t] = a.lists.light[i0 + t];
    units[t] = a.lists.light_unit(i0 + t);
  }
  for (std::uint64_t t = lane; t < nh; t += 32) {
    items[nl + t] = a.lists.heavy[j0 + t];
    units[nl + t] = a.lists.heavy_unit(j0 + t);
  }
  __syncwarp();
  const std::uint64_t s = s0 + lane;
  if (s >= s_end) return;
  const std::uint64_t to = (s + 1) * a.steps / a.sections;
  std::uint64_t i = splits[s].i, j = splits[s].j;
  const u128 cap = a.cap, n = a.steps;
  u128 w = j < a.heavies ? a.lists.excess(j + 1) + cap - a.lists.deficit(i) : 0;  // the spill
  const std::uint32_t* light = items - i0;   // light i at light[i]
  const std::uint64_t* light_u = units - i0;
  const std::uint32_t* heavy = items + nl - j0;
  const std::uint64_t* heavy_u = units + nl - j0;
  for (std::uint64_t step = i + j; step < to; ++step) {
    if (j >= a.heavies) {
      const std::uint32_t l = light[i];
      store_row(rows, l, a.cap, l, a.cap, a.recip);
      ++i;
    } else if (i < a.lights && w > cap) {
      const std::uint32_t l = light[i];
      const u128 m = n * light_u[i];
      store_row(rows, l, static_cast<std::uint64_t>(m), heavy[j], a.cap, a.recip);
      w -= cap - m;
      ++i;
    } else {
      const std::uint32_t h = heavy[j];
      const bool more = j + 1 < a.heavies;
      store_row(rows, h, static_cast<std::uint64_t>(w), more ? heavy[j + 1] : h, a.cap, a.recip);
      if (more) w = n * heavy_u[j + 1] - (cap - w);
      ++j;
    }
  }
}

// The merge pack: PSA's pack as a merge path (Green, McColl and Bader's
// GPU merge). Step k of the sweep is at (i, j) = split_at(k), and everything
// the step writes follows from (i, j) and the lists -- the spill is
// E(j + 1) + U - D(i) -- so a block takes a tile of consecutive steps (a
// section, at most kMergeTile of them), copies its range of l and h (items
// and prefix sums, from which the units come as differences: 12 bytes an
// entry) into shared memory with coalesced loads, and each thread finds
// where its kMergeSteps steps start by the split's binary search in shared
// memory, then packs them as pack_kernel does, each entry's keep and alias
// to shared memory; the tile's rows are then stored in index order. The
// shared pack above holds 32 sections' whole range a warp (24 KB, 12%
// occupancy: docs/PERF.md); a block of 128 threads here holds 27.7 KB.
constexpr int kMergeThreads = 128;
// Odd: a thread's entries lie about kMergeSteps apart, and an odd stride
// spreads a warp's 8-byte reads over every bank (2 wavefronts, the least;
// a stride of 8 put 16 lanes on one bank).
constexpr int kMergeSteps = 9;
constexpr std::size_t kMergeTile = static_cast<std::size_t>(kMergeThreads) * kMergeSteps;
constexpr std::size_t kMergeEntries = kMergeTile + 3;  // lights + heavies <= steps + 1, the light prefixes one more; one spare read
constexpr std::size_t kMergeCopied = kMergeTile + 16;  // the same, copied in whole 16-byte chunks

// A light's share of a block's search for its lights (find_lights).
struct LightRun {
  unsigned lights = 0;
  unsigned long long units = 0;
};
struct LightRunSum {
  __device__ LightRun operator()(const LightRun& a, const LightRun& b) const { return {a.lights + b.lights, a.units + b.units}; }
};
using LightScan = cub::BlockScan<LightRun, kMergeThreads, cub::BLOCK_SCAN_WARP_SCANS>;  // (small storage: eight blocks an SM)

// The merge pack's lights from the weights (ImplicitLists): lights [i0, i1)
// to light[0, i1 - i0) and the units of the lights before each of i0 .. i1
// to light_p[0, i1 - i0], the block together. The split found where the
// section's lights start and where the next section's do (their items and
// prefix sums: split_implicit_kernel), so the block reads exactly the items
// between, kFindPer consecutive ones a thread a round (one round for a
// section of lights at the power law's density), and one block scan of each
// thread's lights and their units puts every light at its place on l.
constexpr int kFindPer = 12;
template <class T>
__device__ void find_lights(const ImplicitLists<T>& l, std::uint64_t section, std::uint64_t i0, std::uint64_t i1, std::uint32_t* light,
                            std::uint64_t* light_p, LightScan::TempStorage& tmp) {
  const std::uint64_t from = l.dir.start_item[section], to = l.dir.start_item[section + 1];  // light i0's item, light i1's (n: none)
  if (threadIdx.x == 0) light_p[i1 - i0] = l.dir.start_prefix[section + 1];
  std::uint64_t pos = i0, prefix = l.dir.start_prefix[section];  // the next light's place, the units before it
  constexpr int kAlign = 16 / sizeof(T);
  for (std::uint64_t base = from / kAlign * kAlign; base < to; base += kMergeThreads * kFindPer) {
    const std::uint64_t mine = base + threadIdx.x * kFindPer;
    T x[kFindPer];
    load_lane_items(l.w, l.n, mine, x);
    std::uint64_t u[kFindPer];
    LightRun run;
    unsigned is_light = 0;  // a bit an item
#pragma unroll
    for (int k = 0; k < kFindPer; ++k) {
      u[k] = l.item.units_of_weight(x[k]);
      const bool in = mine + k >= from && mine + k < to && !l.item.heavy(u[k]);
      is_light |= static_cast<unsigned>(in) << k;
      run.lights += in;
      run.units += in ? u[k] : 0;
    }
    LightRun before, all;
    LightScan(tmp).ExclusiveScan(run, before, LightRun{}, LightRunSum{}, all);
    std::uint64_t p = pos + before.lights - i0, q = prefix + before.units;
#pragma unroll
    for (int k = 0; k < kFindPer; ++k) {
      if (is_light >> k & 1u) {
        light_p[p] = q;
        light[p] = static_cast<std::uint32_t>(mine + k);
        q += u[k];
        ++p;
      }
    }
    pos += all.lights;
    prefix += all.units;
    __syncthreads();  // (the scan's storage, again)
  }
}

template <class L>
__global__ void __launch_bounds__(kMergeThreads, 8) pack_merge_kernel(PackArgs<L> base, const Scale* scale, const SplitAt* __restrict__ splits,
                                                                   AliasRow* rows) {
  detail::join_dependent_chain();
  const PackArgs<L> a = with_scale(base, scale);
  __shared__ __align__(16) std::uint64_t copied_prefix[kMergeCopied];
  __shared__ __align__(16) std::uint32_t copied_items[kMergeCopied];
  __shared__ std::uint64_t keep_of[kMergeEntries];  // each entry's keep
  __shared__ std::uint32_t alias_of[kMergeEntries];
  const std::uint64_t s = blockIdx.x;
  if (s >= a.sections) return;
  const SplitAt first = splits[s], last = splits[s + 1];
  const std::uint64_t i0 = first.i, j0 = first.j, i1 = last.i, j1 = last.j;
  const std::uint64_t k0 = i0 + j0, steps = i1 + j1 - k0;
  if (steps > kMergeTile) __trap();  // the host chose the sections so that it cannot be
  // Entries: lights [i0, i1) at [0, nl), heavies [j0, je) at [nl, nl + nh),
  // je = min(j1 + 1, |h|) (a heavy step reads h[j + 1]); prefixes: the
  // lights' [i0, i1] at [0, nl], the heavies' [j0 + 1, je] at [nl + 1, nl + 1 + nh).
  // Within the tile every index is a 32-bit offset from (i0, j0): light
  // i0 + li, heavy j0 + hj (64-bit arithmetic was a third of the kernel's
  // instructions).
  const std::uint64_t je = min(j1 + 1, static_cast<std::uint64_t>(a.heavies));
  const auto nl = static_cast<unsigned>(i1 - i0), nj = static_cast<unsigned>(j1 - j0);
  const auto lights = static_cast<unsigned>(a.lights - i0), heavies = static_cast<unsigned>(a.heavies - j0);  // from the tile's start
  // Asynchronous copies (cp.async) of whole 16-byte chunks: every load of
  // the tile in flight at once (loads into registers then stores to shared
  // memory waited out a DRAM latency a loop iteration: a third of the
  // kernel's stalls), four items or two prefix sums a copy. Each range
  // starts at the 16-byte boundary below it, so an entry's place is offset
  // by its range's misalignment: lights [i0, i1) at items' li + dl, heavies
  // [j0, je) at hb + hj, the lights' prefix sums [i0, i1] at pl + li, the
  // heavies' [j0 + 1, je] at ph + hj (hj >= 1). The chunks overhang the
  // ranges by at most 3 items or 1 sum (the lists have 16 bytes to spare).
  const auto chunks = [](std::uint64_t from, std::uint64_t to, unsigned per) {  // [from, to) in chunks of `per`
    return static_cast<unsigned>((to + per - 1) / per - from / per);
  };
  // (Lights found from the weights are placed from 0: dl = pl = 0.)
  const unsigned dl = L::kImplicit ? 0u : static_cast<unsigned>(i0 % 4);
  const unsigned hb = (dl + nl + 3) / 4 * 4 + static_cast<unsigned>(j0 % 4), hi_chunks = chunks(j0, je, 4);
  const unsigned pl = L::kImplicit ? 0u : static_cast<unsigned>(i0 % 2);
  const unsigned ph = (pl + nl + 1 + 1) / 2 * 2 + static_cast<unsigned>((j0 + 1) % 2) - 1, hp_chunks = chunks(j0 + 1, je + 1, 2);
  {
    const std::uint32_t* heavy_src = a.lists.heavy + j0 / 4 * 4;
    const std::uint64_t* heavy_p_src = a.lists.heavy_prefix + (j0 + 1) / 2 * 2;
    for (unsigned t = threadIdx.x; t < hi_chunks; t += kMergeThreads) __pipeline_memcpy_async(copied_items + hb - j0 % 4 + 4 * t, heavy_src + 4 * t, 16);
    for (unsigned t = threadIdx.x; t < hp_chunks; t += kMergeThreads) {
      __pipeline_memcpy_async(copied_prefix + ph + 1 - (j0 + 1) % 2 + 2 * t, heavy_p_src + 2 * t, 16);
    }
    if constexpr (!L::kImplicit) {
      const unsigned li_chunks = chunks(i0, i1, 4), lp_chunks = chunks(i0, i1 + 1, 2);
      const std::uint32_t* light_src = a.lists.light + i0 / 4 * 4;
      const std::uint64_t* light_p_src = a.lists.light_prefix + i0 / 2 * 2;
      for (unsigned t = threadIdx.x; t < li_chunks; t += kMergeThreads) __pipeline_memcpy_async(copied_items + 4 * t, light_src + 4 * t, 16);
      for (unsigned t = threadIdx.x; t < lp_chunks; t += kMergeThreads) __pipeline_memcpy_async(copied_prefix + 2 * t, light_p_src + 2 * t, 16);
    }
  }
  __pipeline_commit();
  if constexpr (L::kImplicit) {  // while h's copies are in flight
    __shared__ LightScan::TempStorage light_scan;
    find_lights(a.lists, s, i0, i1, copied_items, copied_prefix, light_scan);
  }
  __pipeline_wait_prior(0);
  __syncthreads();
  const std::uint64_t cap = a.cap;
  const auto n = static_cast<std::uint32_t>(a.steps);  // N <= 2^32 - 1 (kAliasMaxItems): masses as 32 x 64-bit products
  const auto tile_steps = static_cast<unsigned>(steps);
  const unsigned from = threadIdx.x * tile_steps / kMergeThreads, to = (threadIdx.x + 1) * tile_steps / kMergeThreads;
  const std::uint64_t* light_p = copied_prefix + pl;   // light_p[li], li in [0, nl]: the prefix sum of light i0 + li
  const std::uint64_t* heavy_p = copied_prefix + ph;   // heavy_p[hj], hj in [1, nh]
  const std::uint32_t* light = copied_items + dl;      // light[li]
  const std::uint32_t* heavy = copied_items + hb;      // heavy[hj]
  // k U / N as a quotient and a remainder, (q, r) = (floor(k U / N), k U
  // mod N), so that the sweep runs in 64-bit integers (its 128-bit
  // products and spills were half of the kernel's instructions). With S
  // the two prefix sums' sum (< U < 2^62), an integer:
  //   k U < N S  <=>  q_k < S;
  //   the spill w = N S - k U = N (S - q_k) - r_k (w <= U where it is kept);
  //   w > U  <=>  N S > (k + 1) U  <=>  S > q_{k+1}.
  // From U = A N + B (A = floor(U / N), B < N): q_k = k A + floor(k B / N),
  // r_k = k B mod N (k B < 2^64), and each step adds A and B, carrying N.
  const std::uint64_t per_step = a.per_step;
  const auto per_step_rest = static_cast<std::uint32_t>(cap - per_step * n);
  struct Quotient {
    std::uint64_t q;
    std::uint32_t r;
  };
  const auto advance = [&](Quotient x) {
    const bool carry = x.r >= n - per_step_rest;
    return Quotient{x.q + per_step + carry, carry ? x.r - (n - per_step_rest) : x.r + per_step_rest};
  };
  Quotient at;  // k = k0 + from
  {
    const std::uint64_t k = k0 + from, rest = k * per_step_rest;
    at = {k * per_step + rest / n, static_cast<std::uint32_t>(rest % n)};
  }
  // split_at(k0 + from) within the tile: the largest li in [max(0, from - nj),
  // min(nl, from)] at the bottom or with D(i - 1) < E(k - i + 1).
  // D(x - 1) < E(k - x + 1) <=> (x - 1) U + (k - x + 1) U < N (l_p(x - 1)
  // + h_p(k - x + 1)), i.e. k U < N S, i.e. q_k < S: one 64-bit addition and
  // comparison a probe.
  unsigned li = from > nj ? from - nj : 0u, hi = min(nl, from);
  while (li < hi) {
    const unsigned mid = li + (hi - li + 1) / 2, hj = from - mid;
    if (hj >= heavies || at.q < light_p[mid - 1] + heavy_p[hj + 1]) li = mid; else hi = mid - 1;
  }
  unsigned hj = from - li;
  // S = l_p(i) + h_p(j + 1), whose spill N S - k U is E(j + 1) + U - D(i)
  // (meaningless once no heavy is left: not used then).
  std::uint64_t sum = light_p[li] + heavy_p[hj + 1];
  Quotient next = advance(at);
  // pack_kernel's three cases as one path of selects (a warp's lanes take
  // different cases at every step, which branches would serialise): a light
  // step fills light i from heavy j (or, no heavy left, keeps it whole); a
  // heavy step leaves heavy j what is left of it, the rest from heavy j + 1
  // (the last keeps exactly a bucket). Each step's keep and alias go to its
  // entry's place in shared memory; reads past what a step uses stay inside
  // the arrays and are not used.
  for (unsigned step = from; step < to; ++step) {
    const bool none_left = hj >= heavies;
    const bool fill = none_left || (li < lights && sum > next.q);  // (w > U)
    const bool more = hj + 1 < heavies;
    const std::uint32_t h = heavy[hj], following = heavy[hj + 1];
    const std::uint64_t light_units = light_p[li + 1] - light_p[li];
    const std::uint64_t heavy_units = more ? heavy_p[hj + 2] - heavy_p[hj + 1] : 0;  // heavy j + 1's
    // A light keeps its mass N u (<= U < 2^62), a heavy its spill N (S - q) - r.
    const std::uint64_t kept = times_n_low(fill ? light_units : sum - at.q, n) - (fill ? 0 : at.r);
    const unsigned e = fill ? li : nl + hj;
    keep_of[e] = none_left ? cap : kept;
    alias_of[e] = fill ? h : more ? following : h;  // (a full row's alias is the item itself: store_row)
    sum += fill ? light_units : heavy_units;  // (the spill less U, plus light i's mass or heavy j + 1's)
    li += fill;
    hj += !fill;
    at = next;
    next = advance(next);
  }
  __syncthreads();
  // The tile's rows, lights then heavies, each in index order: a warp's 32
  // stores fall on a few lines (one lane a line when each step stored its
  // own row: 2.4x the kernel's time at 10^7 items on an H200).
  for (unsigned e = threadIdx.x; e < nl + nj; e += kMergeThreads) store_row(rows, e < nl ? light[e] : heavy[e - nl], keep_of[e], alias_of[e], cap, a.recip);
}

// ---- sampling ------------------------------------------------------------------

// The chunked pack (Sec. 3.2.4, Alg. 3.2 as oracle/alias/pack_chunked.hpp
// corrects it): a thread a section, reading l and h from its own windows of
// kChunk items in shared memory, each loaded from its current position when
// the next step needs an item outside it (a light step reads l[i] and h[j],
// a heavy step h[j] and h[j + 1]). A thread's windows take 24 kChunk bytes,
// so a block holds many sections -- the shared pack's warp holds its 32
// sections' whole range, 24 KB, and nine warps fill an SM's shared memory.
// The steps are pack_kernel's. kChunk = 8: 24 KB a block of 128 threads.
constexpr int kChunkThreads = 128;

template <int kChunk>
__global__ void __launch_bounds__(kChunkThreads) pack_chunked_kernel(PackArgs<Lists> base, const Scale* scale, const SplitAt* __restrict__ splits,
                                                                     AliasRow* rows) {
  detail::join_dependent_chain();
  const PackArgs<Lists> a = with_scale(base, scale);
  __shared__ std::uint64_t light_u[kChunkThreads * kChunk], heavy_u[kChunkThreads * kChunk];
  __shared__ std::uint32_t light_at[kChunkThreads * kChunk], heavy_at[kChunkThreads * kChunk];
  const std::uint64_t s = blockIdx.x * static_cast<std::uint64_t>(kChunkThreads) + threadIdx.x;
  if (s >= a.sections) return;
  // Thread t's window slot e at t + e kChunkThreads: a warp's lanes read 32
  // consecutive words, one bank each.
  auto slot = [](std::uint64_t e) { return threadIdx.x + static_cast<unsigned>(e) * kChunkThreads; };
  const std::uint64_t to = (s + 1) * a.steps / a.sections;
  std::uint64_t i = splits[s].i, j = splits[s].j;
  const u128 cap = a.cap;
  u128 w = j < a.heavies ? a.lists.excess(j + 1) + cap - a.lists.deficit(i) : 0;  // the spill
  // The windows' first items: none loaded yet, so past the lists' ends
  // (x - origin wraps to a huge number for x < origin).
  std::uint64_t l0 = a.lights + kChunk, h0 = a.heavies + kChunk;
  auto in_l = [&](std::uint64_t x) { return x - l0 < kChunk; };
  auto in_h = [&](std::uint64_t x) { return x - h0 < kChunk; };
  auto load_l = [&] {
    l0 = i;
    for (std::uint64_t e = 0; e < kChunk && i + e < a.lights; ++e) {
      light_at[slot(e)] = a.lists.light[i + e];
      light_u[slot(e)] = a.lists.light_unit(i + e);
    }
  };
  auto load_h = [&] {
    h0 = j;
    for (std::uint64_t e = 0; e < kChunk && j + e < a.heavies; ++e) {
      heavy_at[slot(e)] = a.lists.heavy[j + e];
      heavy_u[slot(e)] = a.lists.heavy_unit(j + e);
    }
  };
  const u128 n = a.steps;
  for (std::uint64_t step = i + j; step < to; ++step) {
    if (j >= a.heavies) {  // no heavy item left: the lights left are exactly full
      if (!in_l(i)) load_l();
      const std::uint32_t l = light_at[slot(i - l0)];
      store_row(rows, l, a.cap, l, a.cap, a.recip);
      ++i;
    } else if (i < a.lights && w > cap) {  // fill light i from heavy j
      if (!in_l(i)) load_l();
      if (!in_h(j)) load_h();
      const std::uint32_t l = light_at[slot(i - l0)];
      const u128 m = n * light_u[slot(i - l0)];
      store_row(rows, l, static_cast<std::uint64_t>(m), heavy_at[slot(j - h0)], a.cap, a.recip);
      w -= cap - m;
      ++i;
    } else {  // heavy j keeps w, the rest from heavy j + 1 (the last keeps exactly a bucket)
      const bool more = j + 1 < a.heavies;
      if (!in_h(j) || (more && !in_h(j + 1))) load_h();
      const std::uint32_t h = heavy_at[slot(j - h0)];
      store_row(rows, h, static_cast<std::uint64_t>(w), more ? heavy_at[slot(j + 1 - h0)] : h, a.cap, a.recip);
      if (more) w = n * heavy_u[slot(j + 1 - h0)] - (cap - w);
      ++j;
    }
  }
}

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
};

__device__ __forceinline__ std::uint32_t draw(const SampleArgs& a, std::uint64_t d) {
  const rng::Bits128 bits = rng::philox_bits128(a.seed, d, 0);
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

// Whether the build leaves l implicit (AliasBuildConfig::implicit_lights):
// with the merge pack only.
bool implicit_lights_for(std::size_t n, std::size_t sections, const AliasBuildConfig& c) {
  return c.implicit_lights && wants_merge_pack(c) && (n + sections - 1) / sections <= kMergeTile;
}

// The sections: the configuration's, else one per tile of the merge pack
// (kMergeTile items), else one per 64 items.
std::size_t sections_for(std::size_t n, const AliasBuildConfig& c) {
  const std::size_t s = c.sections != 0 ? c.sections : wants_merge_pack(c) ? (n + kMergeTile - 1) / kMergeTile : std::max<std::size_t>(1, n / 64);
  return std::min(std::max<std::size_t>(s, 1), n);
}

// The temporary storage of CUB's scan over the tiles.
std::size_t tile_scan_bytes(std::size_t tiles) {
  std::size_t bytes = 0;
  WARPSIM_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, bytes, static_cast<const PrefixItem*>(nullptr), static_cast<PrefixItem*>(nullptr), PrefixSum{},
                                              PrefixItem{}, static_cast<int>(tiles)));
  return bytes;
}

// Where each scratch array lies in one allocation: PSA's unit lists, or
// PSA+'s leftovers and mass lists.
struct Layout {
  std::size_t reduced = 0, counts = 0, light = 0, heavy = 0, light_prefix = 0, heavy_prefix = 0, splits = 0,
              tiles = 0, chunks = 0, tile_prefix = 0, scan_temp = 0, scan_bytes = 0, dir_at = 0, dir_prefix = 0, chunk_start = 0,
              start_item = 0, start_prefix = 0;
  std::size_t left_item = 0, left_mass = 0, group_totals = 0, group_prefix = 0, light_mass = 0, heavy_mass = 0, deficits = 0, excesses = 0;
  std::size_t total = 0;
  Layout(std::size_t n, std::size_t sections, std::size_t group, bool implicit) {
    std::size_t at = 0;
    auto take = [&](std::size_t bytes) {
      const std::size_t here = at;
      at += (bytes + 255) / 256 * 256;
      return here;
    };
    reduced = take(sizeof(Scale));
    counts = take(2 * sizeof(unsigned long long));
    light = take(implicit ? 16 : n * 4 + 16);  // (+ 16: the merge pack copies whole 16-byte chunks)
    heavy = take(n * 4 + 16);
    splits = take((sections + 1) * sizeof(SplitAt));
    if (group == 0) {
      light_prefix = take(implicit ? 16 : (n + 1) * 8 + 16);
      heavy_prefix = take((n + 1) * 8 + 16);
      const std::size_t tile_count = (n + kTile - 1) / kTile;
      if (implicit) {
        dir_at = take((n / 32 + 1) * 4);
        dir_prefix = take((n / 32 + 1) * 8);
        chunk_start = take(tile_count * kTileWarps * sizeof(ChunkStart));
        start_item = take((sections + 1) * 8);
        start_prefix = take((sections + 1) * 8);
      }
      tiles = take(tile_count * sizeof(PrefixItem));
      tile_prefix = take(tile_count * sizeof(PrefixItem));
      scan_bytes = tile_scan_bytes(tile_count);
      scan_temp = take(scan_bytes);
      chunks = take(((n + kTile - 1) / kTile) * kTileWarps * sizeof(PrefixItem));
    } else {
      const std::size_t groups = (n + group - 1) / group;
      left_item = take(n * 4);
      left_mass = take(n * 16);
      group_totals = take(groups * sizeof(GroupTotal));
      group_prefix = take(groups * sizeof(GroupTotal));
      light_mass = take(n * 16);
      heavy_mass = take(n * 16);
      deficits = take((n + 1) * 16);
      excesses = take((n + 1) * 16);
    }
    total = at;
  }
};

}  // namespace

// What a captured build depends on: replaying it with another of these
// would read or write the wrong memory.
struct GraphKey {
  const void* weights = nullptr;
  const void* rows = nullptr;
  const void* scratch = nullptr;
  std::size_t n = 0, sections = 0, psa_plus_group = 0;
  int threads = 0;
  bool shared_pack = false;
  int pack_chunk = 0;
  bool pary_split = false;
  bool merge_pack = false;
  bool implicit_lights = false;
  bool dependent_launch = false;
  bool operator==(const GraphKey& o) const {
    return weights == o.weights && rows == o.rows && scratch == o.scratch && n == o.n && sections == o.sections &&
           psa_plus_group == o.psa_plus_group && threads == o.threads && shared_pack == o.shared_pack && pack_chunk == o.pack_chunk &&
           pary_split == o.pary_split && merge_pack == o.merge_pack && implicit_lights == o.implicit_lights &&
           dependent_launch == o.dependent_launch;
  }
};

template <class T>
struct AliasTableBuilder<T>::Scratch {
  DeviceScratch<unsigned char> device;
  DeviceScratch<unsigned char> weights;  // host weights, copied over
  // AliasBuildConfig::graph: the last build's launches as a CUDA graph.
  cudaStream_t capture = nullptr;
  cudaGraphExec_t exec = nullptr;
  GraphKey key;
  // The scale read back into pinned memory (a pageable copy is staged by
  // the driver: several microseconds more on every build).
  void* pinned = nullptr;
  void* host_scale(std::size_t bytes) {
    if (!pinned) WARPSIM_CUDA(cudaMallocHost(&pinned, bytes));
    return pinned;
  }
  ~Scratch() {
    if (pinned) cudaFreeHost(pinned);
    if (exec) cudaGraphExecDestroy(exec);  // never throw from a destructor
    if (capture) cudaStreamDestroy(capture);
  }
};

namespace {

// The unit's passes: the weights' check and their largest, e', S', e, U on
// the device (each pass finds the scalars it needs from the one before).
template <class T, int kThreads>
void enqueue_units(const T* weights, std::size_t n, Scale* scale, int grid, cudaStream_t on, bool dependent) {
  detail::launch(init_scale, 1, 1, 0, on, false, scale, n);
  detail::launch(check_and_max<T, kThreads>, grid, kThreads, 0, on, dependent, weights, n, scale);
  detail::launch(fine_sum<T, kThreads>, grid, kThreads, 0, on, dependent, weights, n, scale);
  detail::launch(total_units<T, kThreads>, grid, kThreads, 0, on, dependent, weights, n, scale);
}

// One round trip after the unit's passes: the scale, and with it whether the
// weights were good (std::invalid_argument with the oracle's message if not).
template <class T>
Scale read_scale(const Scale* scale, const T* weights, std::size_t n, cudaStream_t stream, void* pinned) {
  WARPSIM_CUDA(cudaMemcpyAsync(pinned, scale, sizeof(Scale), cudaMemcpyDeviceToHost, stream));
  WARPSIM_CUDA(cudaStreamSynchronize(stream));
  Scale host{};
  std::memcpy(&host, pinned, sizeof host);
  if (host.first_bad < n) {
    T x{};
    WARPSIM_CUDA(cudaMemcpy(&x, weights + host.first_bad, sizeof x, cudaMemcpyDeviceToHost));
    throw std::invalid_argument(bad_weight_message(static_cast<std::size_t>(host.first_bad), x));
  }
  if (host.max_bits == 0) throw std::invalid_argument("every weight is 0: there is no distribution");
  if (host.total == 0 || host.total >= (std::uint64_t{1} << kUnitBits)) throw std::logic_error("alias table: the units' total left its range");
  return host;
}

}  // namespace

template <class T>
AliasTableBuilder<T>::AliasTableBuilder() : scratch_(new Scratch) {}

template <class T>
AliasTableBuilder<T>::~AliasTableBuilder() {
  delete scratch_;
}

template <class T>
std::size_t AliasTableBuilder<T>::scratch_bytes(std::size_t n, const AliasBuildConfig& config) {
  const std::size_t sections = sections_for(n, config);
  return Layout(n, sections, config.psa_plus_group, implicit_lights_for(n, sections, config)).total;
}

template <class T>
AliasTableInfo AliasTableBuilder<T>::build(const T* weights, std::size_t n, AliasRow* rows, const AliasBuildConfig& config, cudaStream_t stream) {
  if (n == 0) throw std::invalid_argument("no weights");
  if (n > kAliasMaxItems) throw std::invalid_argument("more than 2^32 - 1 weights: alias indices are 32-bit");
  constexpr int kThreads = 256;
  if (config.threads_per_block < 32 || config.threads_per_block > 1024 || config.threads_per_block % 32 != 0) {
    throw std::invalid_argument("threads_per_block must be a multiple of 32 in [32, 1024]");
  }
  if (config.psa_plus_group > kPlusGroupMax) {
    throw std::invalid_argument("PSA+ groups of at most " + std::to_string(kPlusGroupMax) + " items (" + std::to_string(config.psa_plus_group) +
                                " asked)");
  }
  const std::size_t sections = sections_for(n, config);
  const bool implicit = implicit_lights_for(n, sections, config);
  const Layout at(n, sections, config.psa_plus_group, implicit);
  const std::size_t held = scratch_->device.size();
  if (at.total > held) {  // refuse, saying how much, what the device cannot hold
    std::size_t free_bytes = 0, total_bytes = 0;
    WARPSIM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (at.total - held > free_bytes) {
      throw std::invalid_argument("an alias table of " + std::to_string(n) + " items needs " + std::to_string(at.total) +
                                  " bytes of device memory besides its weights and rows (" + std::to_string(at.total / n) +
                                  " an item); the device has " + std::to_string(free_bytes) + " free");
    }
  }
  if (!device_readable(weights)) {  // host weights: to the device first
    T* copy = reinterpret_cast<T*>(scratch_->weights.ensure(n * sizeof(T)));
    WARPSIM_CUDA(cudaMemcpyAsync(copy, weights, n * sizeof(T), cudaMemcpyHostToDevice, stream));
    weights = copy;
  }
  auto* base = reinterpret_cast<char*>(scratch_->device.ensure(at.total));
  auto* scale = reinterpret_cast<Scale*>(base + at.reduced);
  const int grid = grid_for(n, kThreads);

  // The pack from shared memory where a warp's range fits (set before any
  // capture: not a stream operation).
  const std::size_t per_section = (n + sections - 1) / sections;
  const std::size_t per_warp = (32 * per_section + 2 + 1) / 2 * 2;  // even: the units stay 8-byte aligned
  constexpr std::size_t kSharedMax = 200 * 1024;
  const int warps_per_block = static_cast<int>(std::min<std::size_t>(4, kSharedMax / (per_warp * 12)));
  // The merge pack where every section fits its tile.
  const bool merge_pack = wants_merge_pack(config) && per_section <= kMergeTile;
  const bool shared_pack = config.psa_plus_group == 0 && config.shared_pack && warps_per_block >= 1;
  const std::size_t pack_smem = shared_pack ? static_cast<std::size_t>(warps_per_block) * per_warp * 12 : 0;
  if (shared_pack) {
    WARPSIM_CUDA(cudaFuncSetAttribute(pack_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(pack_smem)));
  }
  if (config.pack_chunk != 0 && config.pack_chunk != 8 && config.pack_chunk != 16) {
    throw std::invalid_argument("pack_chunk must be 0, 8 or 16 (" + std::to_string(config.pack_chunk) + " asked)");
  }

  // Every launch of the build, in order, on one stream; each after the
  // first a programmatic dependent launch of the one before
  // (gpu/detail/dependent_launch.cuh) unless the config says not.
  const bool dependent = config.dependent_launch;
  auto enqueue = [&](cudaStream_t on) {
    enqueue_units<T, kThreads>(weights, n, scale, grid, on, dependent);

    auto* splits = reinterpret_cast<SplitAt*>(base + at.splits);
    const int threads = config.threads_per_block;
    const auto split_blocks = static_cast<unsigned>((sections + 1 + threads - 1) / threads);
    const auto pack_blocks = static_cast<unsigned>((sections + threads - 1) / threads);
    // The splits: a thread a split (binary search), or a warp 32 (p-ary).
    auto split = [&](const auto& args) {
      if (config.pary_split) {
        const auto warps = (sections + 1 + 31) / 32, per_block = static_cast<std::size_t>(threads / 32);
        detail::launch(split_pary_kernel<typename std::decay_t<decltype(args)>::List>, static_cast<unsigned>((warps + per_block - 1) / per_block), threads, 0, on, dependent, args, scale, splits);
      } else {
        detail::launch(split_kernel<typename std::decay_t<decltype(args)>::List>, split_blocks, threads, 0, on, dependent, args, scale, splits);
      }
    };
    if (config.psa_plus_group > 0) {
      // PSA+: the greedy stage a warp a group, its leftovers scanned and
      // scattered onto l and h with their masses, then PSA's split and pack.
      const auto group = static_cast<std::uint32_t>(config.psa_plus_group);
      const std::size_t groups = (n + group - 1) / group;
      Leftovers left{reinterpret_cast<std::uint32_t*>(base + at.left_item), reinterpret_cast<u128*>(base + at.left_mass),
                     reinterpret_cast<GroupTotal*>(base + at.group_totals)};
      auto* prefix = reinterpret_cast<GroupTotal*>(base + at.group_prefix);
      MassLists lists{reinterpret_cast<std::uint32_t*>(base + at.light), reinterpret_cast<std::uint32_t*>(base + at.heavy),
                      reinterpret_cast<u128*>(base + at.light_mass),     reinterpret_cast<u128*>(base + at.heavy_mass),
                      reinterpret_cast<u128*>(base + at.deficits),       reinterpret_cast<u128*>(base + at.excesses),
                      0};
      detail::launch(find_recip, 1, 1, 0, on, dependent, scale, n);  // (PSA's tile totals find these themselves)
      detail::launch(psa_plus_greedy<T>, static_cast<unsigned>(groups), 32, 0, on, dependent, weights, n, scale, group, rows, left);
      detail::launch(scan_groups, 1, 512, 0, on, dependent, left.totals, prefix, groups, scale);
      detail::launch(psa_plus_scatter, static_cast<unsigned>(groups), 32, 0, on, dependent, left, prefix, group, n, scale, lists);
      const PackArgs<MassLists> args{lists, 0, 0, 0, sections, 0, 0};
      split(args);
      detail::launch(pack_kernel<MassLists>, pack_blocks, threads, 0, on, dependent, args, scale, splits, rows);
    } else {
      // The partition: lists, units and prefix sums.
      Lists lists{reinterpret_cast<std::uint32_t*>(base + at.light),    reinterpret_cast<std::uint32_t*>(base + at.heavy),
                  reinterpret_cast<std::uint64_t*>(base + at.light_prefix), reinterpret_cast<std::uint64_t*>(base + at.heavy_prefix),
                  n, 0, scale->counts};
      const LightDirectory dir{reinterpret_cast<std::uint32_t*>(base + at.dir_at), reinterpret_cast<std::uint64_t*>(base + at.dir_prefix),
                               reinterpret_cast<ChunkStart*>(base + at.chunk_start), reinterpret_cast<unsigned long long*>(base + at.start_item),
                               reinterpret_cast<unsigned long long*>(base + at.start_prefix)};
      auto* tiles = reinterpret_cast<PrefixItem*>(base + at.tiles);
      const auto tile_count = static_cast<unsigned>((n + kTile - 1) / kTile);
      auto* chunks = reinterpret_cast<PrefixItem*>(base + at.chunks);
      detail::launch(tile_totals<T>, (tile_count + kTileWarps - 1) / kTileWarps, kScanThreads, 0, on, dependent, weights, n, scale, tiles, chunks, tile_count);
      // tile_prefix[b] <- the sum of tiles[0 .. b - 1] (CUB's single-pass scan).
      auto* tile_prefix = reinterpret_cast<PrefixItem*>(base + at.tile_prefix);
      std::size_t scan_bytes = at.scan_bytes;
      WARPSIM_CUDA(cub::DeviceScan::ExclusiveScan(base + at.scan_temp, scan_bytes, tiles, tile_prefix, PrefixSum{}, PrefixItem{},
                                                  static_cast<int>(tile_count), on));
      WARPSIM_CUDA(cudaGetLastError());
      if (implicit) {
        detail::launch(tile_scatter<T, true>, tile_count, kScanThreads, 0, on, dependent, weights, n, scale, lists, tile_prefix, chunks, dir);
        const ImplicitLists<T> found{weights, lists.heavy, lists.heavy_prefix, dir, n, 0};
        const PackArgs<ImplicitLists<T>> args{found, 0, 0, n, sections, 0, 0};
        const std::size_t per_block = static_cast<std::size_t>(threads / 32);
        if (sections + 1 <= kWarpSplitsMax) {  // a warp a split
          detail::launch(split_implicit_warp_kernel<T>, static_cast<unsigned>((sections + 1 + per_block - 1) / per_block), threads, 0, on, dependent, args, scale, splits);
        } else {  // a warp 32 splits
          const std::size_t warps = (sections + 1 + 31) / 32;
          detail::launch(split_implicit_kernel<T>, static_cast<unsigned>((warps + per_block - 1) / per_block), threads, 0, on, dependent, args, scale, splits);
        }
        detail::launch(pack_merge_kernel<ImplicitLists<T>>, static_cast<unsigned>(sections), kMergeThreads, 0, on, dependent, args, scale, splits, rows);
        return;
      }
      detail::launch(tile_scatter<T, false>, tile_count, kScanThreads, 0, on, dependent, weights, n, scale, lists, tile_prefix, chunks, dir);

      // Split and pack (the lengths, U and 1 / U read from the scale).
      const PackArgs<Lists> args{lists, 0, 0, n, sections, 0, 0};
      split(args);
      // The pack: chunked, or the merge pack, or from shared memory where a
      // warp's range fits, else from global memory.
      const auto chunk_blocks = static_cast<unsigned>((sections + kChunkThreads - 1) / kChunkThreads);
      if (merge_pack) {
        detail::launch(pack_merge_kernel<Lists>, static_cast<unsigned>(sections), kMergeThreads, 0, on, dependent, args, scale, splits, rows);
      } else if (config.pack_chunk == 8) {
        detail::launch(pack_chunked_kernel<8>, chunk_blocks, kChunkThreads, 0, on, dependent, args, scale, splits, rows);
      } else if (config.pack_chunk == 16) {
        detail::launch(pack_chunked_kernel<16>, chunk_blocks, kChunkThreads, 0, on, dependent, args, scale, splits, rows);
      } else if (shared_pack) {
        const std::size_t warps = (sections + 31) / 32;
        const auto blocks = static_cast<unsigned>((warps + static_cast<std::size_t>(warps_per_block) - 1) / static_cast<std::size_t>(warps_per_block));
        detail::launch(pack_shared_kernel, blocks, 32 * warps_per_block, pack_smem, on, dependent, args, scale, splits, rows, static_cast<std::uint32_t>(per_warp));
      } else {
        detail::launch(pack_kernel<Lists>, pack_blocks, threads, 0, on, dependent, args, scale, splits, rows);
      }
    }
  };

  const GraphKey key{weights, rows, base, n, sections, config.psa_plus_group, config.threads_per_block, config.shared_pack, config.pack_chunk,
                     config.pary_split, config.merge_pack, implicit, dependent};
  if (!config.graph) {
    enqueue(stream);
  } else {
    if (!scratch_->exec || !(scratch_->key == key)) {  // capture the launches once, replay them after
      if (scratch_->exec) {
        WARPSIM_CUDA(cudaGraphExecDestroy(scratch_->exec));
        scratch_->exec = nullptr;
      }
      if (!scratch_->capture) WARPSIM_CUDA(cudaStreamCreateWithFlags(&scratch_->capture, cudaStreamNonBlocking));
      WARPSIM_CUDA(cudaStreamBeginCapture(scratch_->capture, cudaStreamCaptureModeThreadLocal));
      cudaGraph_t graph = nullptr;
      try {
        enqueue(scratch_->capture);
      } catch (...) {
        cudaStreamEndCapture(scratch_->capture, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
      }
      WARPSIM_CUDA(cudaStreamEndCapture(scratch_->capture, &graph));
      const cudaError_t made = cudaGraphInstantiate(&scratch_->exec, graph, 0);
      cudaGraphDestroy(graph);
      WARPSIM_CUDA(made);
      scratch_->key = key;
    }
    WARPSIM_CUDA(cudaGraphLaunch(scratch_->exec, stream));
  }

  const Scale host = read_scale(scale, weights, n, stream, scratch_->host_scale(sizeof(Scale)));
  AliasTableInfo info;
  info.n = n;
  info.exponent = host.exponent;
  info.capacity = host.total;
  info.lights = host.counts[0];
  info.heavies = host.counts[1];
  info.sections = sections;
  return info;
}

template <class T>
AliasTableInfo AliasTableBuilder<T>::find_units(const T* weights, std::size_t n, cudaStream_t stream) {
  if (n == 0) throw std::invalid_argument("no weights");
  constexpr int kThreads = 256;
  auto* scale = reinterpret_cast<Scale*>(scratch_->device.ensure(sizeof(Scale)));
  enqueue_units<T, kThreads>(weights, n, scale, grid_for(n, kThreads), stream, true);
  const Scale host = read_scale(scale, weights, n, stream, scratch_->host_scale(sizeof(Scale)));
  AliasTableInfo info;
  info.n = n;
  info.exponent = host.exponent;
  info.capacity = host.total;
  return info;
}

namespace {
SampleArgs sample_args(const AliasRow* rows, const AliasTableInfo& t, std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
  if (t.n == 0 || t.capacity == 0) throw std::invalid_argument("alias_sample: an empty table");
  return {rows, t.n, seed, first, count};
}
}  // namespace

void alias_sample(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                  std::uint32_t* out, cudaStream_t stream) {
  if (count == 0) return;
  const auto a = sample_args(rows, table, seed, first, count);
  sample_kernel<<<grid_for(count, 256), 256, 0, stream>>>(a, out);
  WARPSIM_CUDA(cudaGetLastError());
}

void alias_sample_counts(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                         unsigned long long* counts, cudaStream_t stream) {
  if (count == 0) return;
  const auto a = sample_args(rows, table, seed, first, count);
  sample_counts_kernel<<<grid_for(count, 256), 256, 0, stream>>>(a, counts);
  WARPSIM_CUDA(cudaGetLastError());
}

template class AliasTableBuilder<float>;
template class AliasTableBuilder<double>;

}  // namespace warpsim::gpu
