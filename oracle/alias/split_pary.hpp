// PSA's partial p-ary split on the warp model (seed 001, Sec. 3.1.2, 4.4.2,
// Alg. 3.1 -- corrected: errata E15), on a group of warps that finds the
// splits of consecutive steps k_1 <= ... <= k_q, one per lane.
//
// The split of step k is i*(k), the lights taken in its first k steps; it
// does not decrease with k (the merge path, psa.hpp). With lo_k = max(0,
// k - |h|) and hi_k = min(k, |l|),
//   P_k(s) := s <= lo_k  or  (s <= hi_k  and  D(s - 1) < E(k - s + 1))
// is true exactly for s <= i*(k). Phase 1 (p-ary) keeps a range [a, b] that
// holds every lane's split, starting from [lo_{k_1}, hi_{k_q}]: each of the
// group's p lanes takes a pivot s_t = a + t (b - a) / (p - 1), t = 0 .. p - 1,
// and reports
//   below  if P_{k_1}(s_t)    (every split is at least s_t),
//   above  if !P_{k_q}(s_t)   (every split is below s_t);
// below is true on a prefix of the pivots and above on a suffix, so a ballot
// per warp, the warps' ballots through shared memory, and the highest below
// and lowest above pivot give the next range: a = s_m, b = s_n - 1 (b stays
// if no pivot is above). It repeats "while range can be reduced", which Sec.
// 4.4.2 makes a threshold; here: while an iteration at least halves the range
// (what one step of binary search does), so phase 1 stops once the range is
// about the spread of the group's own splits -- taken literally, "reduced at
// all" goes on shaving a pivot spacing off a range it cannot halve (on 2^16
// uniform weights, 1,024 splits: 18 iterations a group instead of 2). Phase 2: each lane's binary search (split_warp.hpp) on its
// own k within [a, b]. Every lane of the group reads at most three 16-byte
// words an iteration (D(s - 1), E(k_1 - s + 1), E(k_q - s + 1)), at pivots
// spread over the range: p-ary search trades the binary search's shared
// first reads for more, independent ones (Sec. 3.1.2: "utilizes multiple
// memory banks").
#pragma once

#include <bit>
#include <vector>

#include "oracle/alias/split_warp.hpp"
#include "sim/shared_memory.hpp"

namespace warpsim::oracle::alias {

struct ParyStats {
  int iterations = 0;         // p-ary iterations (phase 1)
  std::size_t first = 0, last = 0;  // the range phase 1 leaves
};

// The splits of ks (nondecreasing, at most warps.size() x W of them) by the
// group of `warps`, which share `smem` (2 words a warp). `as_printed`: phase 1
// goes on while the range shrinks at all (errata E15), not while it halves.
inline std::vector<Split> split_pary_on_group(std::vector<sim::Warp>& warps, sim::SharedMemory& smem, const sim::GlobalMemory& mem,
                                              const DevicePrefixSums& d, const std::vector<std::size_t>& ks, ParyStats* stats = nullptr,
                                              bool as_printed = false) {
  using sim::LaneMask;
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const int w = warps.front().width();
  const auto g = static_cast<int>(warps.size());
  const std::uint64_t p = static_cast<std::uint64_t>(g) * static_cast<std::uint64_t>(w);
  if (ks.empty() || ks.size() > p || p < 2) throw std::invalid_argument("split_pary_on_group: 1 .. p splits, p >= 2 lanes");
  const std::uint64_t k1 = ks.front(), kq = ks.back();  // every lane computes these from its group's index
  auto lo_of = [&](std::uint64_t k) { return k > d.heavies ? k - d.heavies : std::uint64_t{0}; };
  auto hi_of = [&](std::uint64_t k) { return std::min<std::uint64_t>(k, d.lights); };
  const auto votes = smem.allocate<LaneMask>(2 * static_cast<std::size_t>(g));

  struct State {  // one warp's registers
    Reg<std::uint64_t> a{"a"}, b{"b"}, s{"s"}, addr{"addr"}, na{"a'"}, nb{"b'"}, t{"t"};
    Reg<u128> dv{"D[s-1]"}, e1{"E[k1-s+1]"}, eq{"E[kq-s+1]"};
    Reg<bool> below{"below"}, above{"above"}, read1{"read k1"}, readq{"read kq"}, lane0{"lane 0"}, reduced{"reduced"};
    Reg<LaneMask> below_mask{"below ballot"}, above_mask{"above ballot"}, mask{"ballot"};
  };
  std::vector<State> st(warps.size());
  for (int x = 0; x < g; ++x) {
    auto& warp = warps[static_cast<std::size_t>(x)];
    auto& r = st[static_cast<std::size_t>(x)];
    warp.compute(Op::Other, r.a, [&](int) { return lo_of(k1); }, "a <- lo(k1)");
    warp.compute(Op::Other, r.b, [&](int) { return hi_of(kq); }, "b <- hi(kq)");
    warp.compute(Op::Other, r.t, [&](int l) { return static_cast<std::uint64_t>(x * w + l); }, "t <- group lane");
    warp.compute(Op::Compare, r.lane0, [&](int l) { return l == 0; }, "lane == 0");
  }
  ParyStats ps;
  for (;;) {  // uniform over the group: every warp holds the same a, b
    if (st.front().b[0] <= st.front().a[0]) break;
    // Each lane tests its pivot and its warp's ballots go to shared memory.
    for (int x = 0; x < g; ++x) {
      auto& warp = warps[static_cast<std::size_t>(x)];
      auto& r = st[static_cast<std::size_t>(x)];
      warp.compute(Op::Other, r.s, [&](int l) { return r.a[l] + r.t[l] * (r.b[l] - r.a[l]) / (p - 1); }, "s <- a + t (b - a) / (p - 1)");
      warp.compute(Op::Compare, r.read1, [&](int l) { return r.s[l] > lo_of(k1) && r.s[l] <= hi_of(k1); }, "lo(k1) < s <= hi(k1)");
      warp.compute(Op::Compare, r.readq, [&](int l) { return r.s[l] > lo_of(kq) && r.s[l] <= hi_of(kq); }, "lo(kq) < s <= hi(kq)");
      warp.compute(Op::Compare, r.below, [&](int l) { return r.read1[l] || r.readq[l]; }, "read D");
      warp.if_then(r.below, [&] {
        warp.compute(Op::Other, r.addr, [&](int l) { return d.deficit.at(r.s[l] - 1); }, "addr <- &D[s - 1]");
        warp.load_global(r.dv, mem, PerLane<std::uint64_t>(r.addr));
      });
      warp.if_then(r.read1, [&] {
        warp.compute(Op::Other, r.addr, [&](int l) { return d.excess.at(k1 - r.s[l] + 1); }, "addr <- &E[k1 - s + 1]");
        warp.load_global(r.e1, mem, PerLane<std::uint64_t>(r.addr));
      });
      warp.if_then(r.readq, [&] {
        warp.compute(Op::Other, r.addr, [&](int l) { return d.excess.at(kq - r.s[l] + 1); }, "addr <- &E[kq - s + 1]");
        warp.load_global(r.eq, mem, PerLane<std::uint64_t>(r.addr));
      });
      warp.compute(Op::Compare, r.below, [&](int l) {
        return r.s[l] <= lo_of(k1) || (r.read1[l] && r.dv[l] < r.e1[l]);
      }, "below <- P_k1(s)");
      warp.compute(Op::Compare, r.above, [&](int l) {
        return !(r.s[l] <= lo_of(kq) || (r.readq[l] && r.dv[l] < r.eq[l]));
      }, "above <- !P_kq(s)");
      warp.ballot_sync(r.below_mask, warp.lanes(), r.below);
      warp.ballot_sync(r.above_mask, warp.lanes(), r.above);
      warp.if_then(r.lane0, [&] {
        warp.store_shared(smem, PerLane<std::uint64_t>(votes.at(2 * static_cast<std::size_t>(x))), r.below_mask);
        warp.store_shared(smem, PerLane<std::uint64_t>(votes.at(2 * static_cast<std::size_t>(x) + 1)), r.above_mask);
      });
      warp.syncwarp(warp.lanes());  // with the other warps': __syncthreads()
    }
    // Every warp reads every warp's ballots and narrows the range alike.
    for (int x = 0; x < g; ++x) {
      auto& warp = warps[static_cast<std::size_t>(x)];
      auto& r = st[static_cast<std::size_t>(x)];
      warp.mov(r.na, PerLane<std::uint64_t>(r.a));
      warp.mov(r.nb, PerLane<std::uint64_t>(r.b));
      auto pivot = [&](int l, std::uint64_t t) { return r.a[l] + t * (r.b[l] - r.a[l]) / (p - 1); };
      for (int y = 0; y < g; ++y) {
        warp.load_shared(r.mask, smem, PerLane<std::uint64_t>(votes.at(2 * static_cast<std::size_t>(y))));
        warp.compute(Op::Other, r.na, [&](int l) {  // the highest pivot below every split
          return r.mask[l] == 0 ? r.na[l] : pivot(l, static_cast<std::uint64_t>(y * w + 63 - std::countl_zero(r.mask[l])));
        }, "a' <- s_m, m the highest below");
        warp.load_shared(r.mask, smem, PerLane<std::uint64_t>(votes.at(2 * static_cast<std::size_t>(g - 1 - y) + 1)));
        warp.compute(Op::Other, r.nb, [&](int l) {  // the lowest pivot above every split, less 1
          return r.mask[l] == 0 ? r.nb[l] : pivot(l, static_cast<std::uint64_t>((g - 1 - y) * w + std::countr_zero(r.mask[l]))) - 1;
        }, "b' <- s_n - 1, n the lowest above");
      }
      warp.compute(Op::Compare, r.reduced, [&](int l) {
        return as_printed ? r.nb[l] - r.na[l] < r.b[l] - r.a[l] : 2 * (r.nb[l] - r.na[l]) <= r.b[l] - r.a[l];
      }, as_printed ? "reduced <- b' - a' < b - a" : "halved <- b' - a' <= (b - a) / 2");
      warp.mov(r.a, PerLane<std::uint64_t>(r.na));
      warp.mov(r.b, PerLane<std::uint64_t>(r.nb));
      warp.syncwarp(warp.lanes());  // __syncthreads() before the ballots are written again
    }
    ++ps.iterations;
    if (!st.front().reduced[0]) break;
  }
  ps.first = st.front().a[0];
  ps.last = st.front().b[0];
  if (stats) *stats = ps;
  // Phase 2: each lane's own binary search within [a, b].
  std::vector<Split> out;
  for (int x = 0; x < g && static_cast<std::size_t>(x * w) < ks.size(); ++x) {
    const std::vector<std::size_t> mine(ks.begin() + x * w, ks.begin() + static_cast<std::ptrdiff_t>(std::min(ks.size(), static_cast<std::size_t>((x + 1) * w))));
    const auto got = split_on_warp(warps[static_cast<std::size_t>(x)], mem, d, mine, {SearchRange{ps.first, ps.last}});
    out.insert(out.end(), got.begin(), got.end());
  }
  return out;
}

}  // namespace warpsim::oracle::alias
