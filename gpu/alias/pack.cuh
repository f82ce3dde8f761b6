// Phase 4, the pack (oracle/alias/psa.hpp, pack_warp.hpp, pack_chunked.hpp -- seed
// 001's Alg. 3.2): each section's rows from its split, a thread, a block
// (the merge pack) or in chunks; every row one 16-byte store.
//
// A part of gpu/alias_table.cu's translation unit, included there only and
// in this order (as CUB's agents are by their dispatch): units.cuh,
// partition.cuh, split.cuh, pack.cuh, sample.cuh, psa_plus.cuh. Its kernels
// and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

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

}  // namespace

}  // namespace warpsim::gpu
