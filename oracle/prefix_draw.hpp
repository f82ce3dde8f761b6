// Seed 000, Alg. 1-6 on the model, for the matrix workload: draws from
// complete per-lane running sums.
//
// baseline_draw (Alg. 1-3): each lane reads its own row, one weight per load
// (the per-lane access of Fig. 1a: a line per lane per load), sums it in
// order, then searches.
//
// transposed_draw (Alg. 4-6): the remnant is read lane by lane; every W x W
// block is read with transposed (coalesced) access, and then each lane must
// gather its own W weights back:
//   TransposeBy::Memory    -- Alg. 6 lines 14-22: every lane stores what it
//                             read to a scratch array a_local[M][W] in global
//                             memory and reads its own row back;
//   TransposeBy::Registers -- the in-register transpose of Fig. 2,
//                             (W/2)·log2 W shfl_xor per block.
#pragma once

#include "oracle/matrix_workload.hpp"
#include "oracle/prefix_search.hpp"
#include "oracle/register_transpose.hpp"
#include "oracle/target.hpp"

namespace warpsim::oracle {

template <class T>
WarpDraws collect(const sim::Warp& warp, const WeightMatrix<T>& w, int warp_index, const sim::Reg<int>& z) {
  WarpDraws out;
  for (int l = 0; l < warp.width(); ++l) {
    if (warp_index * warp.width() + l < w.rows) out.index.push_back(z[l]);
  }
  out.counters = warp.counters();
  return out;
}

template <class T>
WarpDraws baseline_draw(sim::Warp& warp, const sim::GlobalMemory& mem, const WeightMatrix<T>& w, int warp_index,
                        const sim::Reg<T>& u, SearchKind search) {
  using sim::Op;
  using sim::PerLane;
  const int W = warp.width();
  const int K = w.cols;
  sim::Reg<std::uint64_t> addr("addr");
  sim::Reg<T> x("x"), sum("sum", T{0});
  sim::LocalArray<T> p("p", static_cast<std::size_t>(K));
  for (int k = 0; k < K; ++k) {
    warp.compute(Op::Other, addr, [&](int l) { return w.address(warp_index * W + l, k); }, "addr <- &a[m][k]");
    warp.load_global(x, mem, PerLane<std::uint64_t>(addr));
    warp.add(sum, sum, PerLane<T>(x));
    warp.store_local(p, k, sum);
  }
  const auto target = scaled_target(warp, sum, u);
  sim::Reg<int> z("z");
  search_prefix(warp, p, K, target, z, search);
  return collect(warp, w, warp_index, z);
}

enum class TransposeBy { Memory, Registers };

inline const char* transpose_name(TransposeBy t) { return t == TransposeBy::Memory ? "memory" : "registers"; }

template <class T>
WarpDraws transposed_draw(sim::Warp& warp, sim::GlobalMemory& mem, const WeightMatrix<T>& w, int warp_index,
                          const sim::Reg<T>& u, SearchKind search, TransposeBy transpose) {
  using sim::Op;
  using sim::PerLane;
  const int W = warp.width();
  const int K = w.cols;
  const int R = K % W;
  sim::Reg<std::uint64_t> addr("addr");
  sim::Reg<T> x("x"), sum("sum", T{0});
  sim::LocalArray<T> p("p", static_cast<std::size_t>(K));
  sim::Reg<int> lane("r");
  warp.lane_id(lane);

  // Remnant (Alg. 6, lines 8-12): lane by lane.
  for (int j = 0; j < R; ++j) {
    warp.compute(Op::Other, addr, [&](int l) { return w.address(warp_index * W + l, j); }, "addr <- &a[m][j]");
    warp.load_global(x, mem, PerLane<std::uint64_t>(addr));
    warp.add(sum, sum, PerLane<T>(x));
    warp.store_local(p, j, sum);
  }

  // a_local[M][W]: the scratch array of Alg. 6 (one W-row per lane of this warp).
  sim::DeviceArray<T> scratch;
  if (transpose == TransposeBy::Memory && K >= W) scratch = mem.allocate<T>(static_cast<std::size_t>(W * W));
  sim::RegArray<T> a("a", W);
  for (int j = R; j < K; j += W) {
    for (int k = 0; k < W; ++k) {
      warp.compute(Op::Other, addr, [&](int l) { return w.address(warp_index * W + k, j + l); }, "addr <- &a[qW+k][j+r]");
      warp.load_global(a[k], mem, PerLane<std::uint64_t>(addr));
    }
    if (transpose == TransposeBy::Memory) {
      // line 16: a_local[m, k] := (element j + r of row qW + k); line 20: read a_local[qW + k, r]
      for (int k = 0; k < W; ++k) {
        warp.compute(Op::Other, addr, [&](int l) { return scratch.at(static_cast<std::size_t>(l * W + k)); }, "addr <- &a_local[m][k]");
        warp.store_global(mem, PerLane<std::uint64_t>(addr), a[k]);
      }
      for (int k = 0; k < W; ++k) {
        warp.compute(Op::Other, addr, [&](int l) { return scratch.at(static_cast<std::size_t>(k * W + l)); }, "addr <- &a_local[qW+k][r]");
        warp.load_global(a[k], mem, PerLane<std::uint64_t>(addr));
      }
    } else {
      register_transpose(warp, a);
    }
    for (int k = 0; k < W; ++k) {
      warp.add(sum, sum, PerLane<T>(a[k]));
      warp.store_local(p, j + k, sum);
    }
  }
  const auto target = scaled_target(warp, sum, u);
  sim::Reg<int> z("z");
  search_prefix(warp, p, K, target, z, search);
  return collect(warp, w, warp_index, z);
}

}  // namespace warpsim::oracle
