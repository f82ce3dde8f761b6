// Phase 3, the split (oracle/alias/psa.hpp, split_warp.hpp, split_pary.hpp -- seed
// 001's Alg. 3.1): the split and pack's shared arguments, and each section's
// start on the merge path, by a thread, a warp, or a warp 32 sections.
//
// A part of gpu/alias_table.cu's translation unit, included there only and
// in this order (as CUB's agents are by their dispatch): units.cuh,
// partition.cuh, split.cuh, pack.cuh, sample.cuh, psa_plus.cuh. Its kernels
// and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

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

}  // namespace

}  // namespace warpsim::gpu
