// Seed 000, Alg. 7-10 on the model, for the matrix workload: each lane draws
// one index from its own row of K weights with the butterfly-patterned
// partial sums, for any K >= 1.
//
// Per lane (Alg. 8): the remnant (the first K mod W weights, read lane by
// lane) is summed sequentially into p'[0 .. K mod W - 1]; then every W x W
// block is read with transposed (coalesced) access, turned into a butterfly
// table in registers (W - 1 shfl_xor), rows 0 .. W - 2 stored to the lane's
// local p', and the running sum (remnant + whole blocks so far) stored to
// p'[block + W - 1]. The search (Alg. 9) finds the block by binary search on
// those running sums, searches inside it with the butterfly search (Alg. 10:
// 2 shuffles per table row visited, 2(W - 1) in all), and falls back to a
// linear search of the remnant.
//
// Corrections to the listings as printed (docs/errata.md): Alg. 8 line 32
// stores to p'[j + W - 1], not p'[W - 1]; Alg. 9 line 18 reads
// p'[blockBase - 1], not p'[m, blockBase - 1]; Alg. 10 line 22 compares u',
// not the undefined `stop`.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <type_traits>

#include "oracle/butterfly_table.hpp"
#include "oracle/matrix_workload.hpp"
#include "oracle/target.hpp"
#include "sim/local_memory.hpp"

namespace warpsim::oracle {

// Listing fidelity, for the errata tests only: `true` runs Alg. 8 line 32 as
// printed (p'[W - 1] := sum, the same slot for every block).
struct AsPrinted {
  bool alg8_line32 = false;
};

// Told, for step-by-step views, which table entry each lane takes on each
// step of the in-block search: (step, lane, table row, lane it came from).
using SearchObserver = std::function<void(int step, int lane, int row, int from_lane)>;

// Told, for step-by-step views, after each store Alg. 8 makes to p': what
// was stored (a remnant entry or a block) and the lanes' p' arrays.
template <class T>
using PrepareObserver = std::function<void(const std::string& what, const sim::LocalArray<T>& p)>;

// Alg. 8, lines 8-34, for one warp: every lane's p' (K entries) and its row
// sum `sum`. load(dst, k, j) loads register dst: for k < 0 lane l's own
// element j (the remnant), else element j + l of lane k's row (the
// transposed access of a block). butterfly_draw loads from global memory;
// the views load their own values (symbolic or numeric) through the same
// steps.
template <class T, class Load>
void butterfly_prepare(sim::Warp& warp, int K, Load&& load, sim::LocalArray<T>& p, sim::Reg<T>& sum, ButterflyVariant variant,
                       AsPrinted as_printed = {}, const std::type_identity_t<PrepareObserver<T>>& observe = {}) {
  using sim::PerLane;
  using sim::Reg;
  const int W = warp.width();
  const int R = K % W;  // remnant length
  Reg<T> x("x");

  // ---- Alg. 8, lines 8-12: the remnant, lane by lane.
  for (int j = 0; j < R; ++j) {
    load(x, -1, j);
    warp.add(sum, sum, PerLane<T>(x));
    warp.store_local(p, j, sum);
    if (observe) observe("remnant: p'[" + std::to_string(j) + "] <- sum of the lane's weights 0.." + std::to_string(j), p);
  }

  // ---- Alg. 8, lines 13-34: every W x W block.
  sim::RegArray<T> a("a", W);
  for (int j = R; j < K; j += W) {
    for (int k = 0; k < W; ++k) load(a[k], k, j);  // transposed access: lane r reads element j + r of row q·W + k
    butterfly_build(warp, a, variant);
    for (int d = 0; d < W - 1; ++d) warp.store_local(p, j + d, a[d]);
    warp.add(sum, sum, PerLane<T>(a[W - 1]));
    const int at = as_printed.alg8_line32 ? W - 1 : j + W - 1;
    warp.store_local(p, at, sum);
    if (observe) {
      observe("block at " + std::to_string(j) + ": its butterfly table to p'[" + std::to_string(j) + ".." + std::to_string(j + W - 2) +
                  "], the running sum to p'[" + std::to_string(at) + "]",
              p);
    }
  }
}

template <class T>
WarpDraws butterfly_draw(sim::Warp& warp, const sim::GlobalMemory& mem, const WeightMatrix<T>& w, int warp_index,
                         const sim::Reg<T>& u, ButterflyVariant variant, AsPrinted as_printed = {},
                         const SearchObserver& observe = {}) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const int W = warp.width();
  const int K = w.cols;
  const int R = K % W;  // remnant length
  const int blocks = K / W;

  Reg<int> lane("r");
  warp.lane_id(lane);
  Reg<std::uint64_t> addr("addr");
  sim::LocalArray<T> p("p'", static_cast<std::size_t>(K));
  Reg<T> sum("sum", T{0});
  butterfly_prepare(
      warp, K,
      [&](Reg<T>& dst, int k, int j) {
        if (k < 0) {
          warp.compute(Op::Other, addr, [&](int l) { return w.address(warp_index * W + l, j); }, "addr <- &a[m][j]");
        } else {
          warp.compute(Op::Other, addr, [&](int l) { return w.address(warp_index * W + k, j + l); }, "addr <- &a[qW+k][j+r]");
        }
        warp.load_global(dst, mem, PerLane<std::uint64_t>(addr));
      },
      p, sum, variant, as_printed);

  // ---- Alg. 9: find the block, search it, fall back to the remnant.
  const Reg<T> target = scaled_target(warp, sum, u);

  Reg<int> lo("j", 0), hi("k", blocks - 1), mid("mid");
  Reg<bool> more("j<k"), less("u'<p'");
  Reg<T> probe("probe");
  warp.loop_while(
      more, [&] { warp.compute(Op::Compare, more, [&](int l) { return lo[l] < hi[l]; }); },
      [&] {
        warp.compute(Op::Other, mid, [&](int l) { return (lo[l] + hi[l]) / 2; }, "mid <- (j + k) / 2");
        Reg<int> at("at");
        warp.compute(Op::Other, at, [&](int l) { return mid[l] * W + R + W - 1; }, "at <- mid*W + searchBase");
        warp.load_local(probe, p, PerLane<int>(at));
        warp.compute(Op::Compare, less, [&](int l) { return target[l] < probe[l]; });
        warp.if_else(
            less, [&] { warp.mov(hi, PerLane<int>(mid)); },
            [&] { warp.compute(Op::Add, lo, [&](int l) { return mid[l] + 1; }); });
      });
  Reg<int> block_base("blockBase");
  warp.compute(Op::Other, block_base, [&](int l) { return R + lo[l] * W; }, "blockBase <- R + j*W");
  Reg<int> z("z", 0);

  if (K >= W) {
    // ---- Alg. 10: butterfly search inside the block.
    Reg<T> low("lowValue"), high("highValue"), y("y"), t("t"), send("send"), compare("compareValue");
    Reg<int> idx("idx"), flip("flip", 0), him("him"), his_base("hisBlockBase");
    Reg<bool> has_low("blockBase>0"), take("take"), upper("r&bit"), left("u'<compare");
    warp.compute(Op::Compare, has_low, [&](int l) { return block_base[l] > 0; });
    warp.mov(low, PerLane<T>(T{0}));
    warp.if_then(has_low, [&] {
      warp.compute(Op::Other, idx, [&](int l) { return block_base[l] - 1; });
      warp.load_local(low, p, PerLane<int>(idx));
    });
    warp.compute(Op::Other, idx, [&](int l) { return block_base[l] + W - 1; });
    warp.load_local(high, p, PerLane<int>(idx));
    warp.mov(flip, PerLane<int>(0));
    for (int b = 0; (1 << b) < W; ++b) {
      const int bit = (W / 2) >> b;
      const int mask = ((W - 1) * (2 * bit)) & (W - 1);  // the bits above `bit`
      warp.mov(y, PerLane<T>(T{0}));
      for (int i = 0; i < W / (2 * bit); ++i) {
        const int d = (bit - 1) + 2 * bit * i;
        warp.compute(Op::Logic, him, [&](int l) { return (d & mask) + (lane[l] & ~mask); });
        warp.shfl_sync(his_base, warp.lanes(), block_base, PerLane<int>(him));
        warp.compute(Op::Add, idx, [&](int l) { return his_base[l] + d; });
        warp.load_local(send, p, PerLane<int>(idx));
        warp.shfl_xor_sync(t, warp.lanes(), send, PerLane<int>(flip));
        warp.compute(Op::Compare, take, [&](int l) { return ((lane[l] ^ d) & mask) == 0; });
        warp.select(y, take, PerLane<T>(t), PerLane<T>(y));
        if (observe) {
          for (int l = 0; l < W; ++l)
            if (take[l]) observe(b, l, d, l ^ flip[l]);
        }
      }
      warp.compute(Op::Logic, upper, [&](int l) { return (lane[l] & bit) != 0; });
      if (variant == ButterflyVariant::AddSub) {
        warp.compute(Op::Add, compare, [&](int l) {
          return upper[l] ? static_cast<T>(high[l] - y[l]) : static_cast<T>(low[l] + y[l]);
        }, "compare <- (r & bit) ? high - y : low + y");
      } else {
        warp.add(compare, low, PerLane<T>(y));
      }
      warp.compute(Op::Compare, left, [&](int l) { return target[l] < compare[l]; });
      warp.if_else(
          left,
          [&] {
            warp.mov(high, PerLane<T>(compare));
            warp.compute(Op::Logic, flip, [&](int l) { return flip[l] ^ (bit & lane[l]); });
          },
          [&] {
            warp.mov(low, PerLane<T>(compare));
            warp.compute(Op::Logic, flip, [&](int l) { return flip[l] ^ (bit & ~lane[l]); });
          });
    }
    warp.compute(Op::Add, z, [&](int l) { return block_base[l] + (flip[l] ^ lane[l]); }, "z <- blockBase + (flip ^ r)");
  }

  // ---- Alg. 9, lines 17-27: not in a block after all: search the remnant.
  Reg<bool> in_remnant("in remnant");
  Reg<int> prev("blockBase-1");
  warp.compute(Op::Other, prev, [&](int l) { return block_base[l] > 0 ? block_base[l] - 1 : 0; });
  warp.load_local(probe, p, PerLane<int>(prev));
  warp.compute(Op::Compare, in_remnant, [&](int l) { return R > 0 && block_base[l] > 0 && target[l] < probe[l]; });
  warp.if_then(in_remnant, [&] {
    // for i from 0 through R - 1: if u' < p'[i] then j := i; break
    Reg<int> i("i", 0);
    Reg<bool> searching("searching");
    warp.mov(i, PerLane<int>(0));
    warp.loop_while(
        searching,
        [&] {
          Reg<int> at("at");  // never past the remnant's last entry
          warp.compute(Op::MinMax, at, [&](int l) { return i[l] < R ? i[l] : R - 1; });
          warp.load_local(probe, p, PerLane<int>(at));
          warp.compute(Op::Compare, searching, [&](int l) { return i[l] < R && !(target[l] < probe[l]); });
        },
        [&] { warp.compute(Op::Add, i, [&](int l) { return i[l] + 1; }); });
    warp.mov(z, PerLane<int>(i));
  });

  WarpDraws out;
  for (int l = 0; l < W; ++l) {
    if (warp_index * W + l < w.rows) out.index.push_back(z[l]);
  }
  out.counters = warp.counters();
  return out;
}

}  // namespace warpsim::oracle
