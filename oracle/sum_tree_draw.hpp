// The sum-tree draw (sum_tree.hpp) on the warp model, as the kernels run it
// (gpu/sum_tree_sampler.cu): the multi-warp levels as several warps, one
// after another.
//
//   segment pass  a warp a segment: lane l loads its vectors l, 32 + l, ...
//                 (each as E weights), sums each vector by pairs and the
//                 vectors in order, stores its sum to lane_sums, and the
//                 warp's xor butterfly gives the segment's sum (lane 0 stores
//                 it as a leaf of the row's tree)
//   row tree      a warp, 32 nodes a step, each level of the row's pair tree
//                 from the one below (leaves padded to a power of two)
//   draws         a warp 32 draws of the row, a lane a draw: t = u * root,
//                 down the row tree (two loads a level), down the chosen
//                 segment's lanes (its 32 lane sums loaded, the pair sums
//                 formed again), and along the chosen lane's vectors
//   warp walk     (warp_walk) as the second kernel runs it: up to 32 draws
//                 a row spread over its 8 warps, at most 4 a warp, and a
//                 round of at most 4 draws walked by the whole warp, draw
//                 after draw: lane j loads vector j of the draw's lane, and
//                 every lane runs the walk's additions over the 32 vector
//                 sums it gets by shuffles; the lane of the chosen vector
//                 finds the weight and shuffles it to the others
//   row blocks    (row_blocks) a row's draws shared by several blocks of
//                 the second kernel, each building the row's tree again
//
// Every addition and the one product are rounded once (sum_tree.hpp's add,
// sub, mul), as the kernels' __dadd_rn, __dsub_rn and __dmul_rn are. The
// draws equal sum_tree::draw's (tests/unit/sum_tree_test.cpp) and the
// kernels' (tests/gpu/sum_tree_sampler_test.cpp, Registry/GpuEntry).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "oracle/matrix_workload.hpp"
#include "oracle/sum_tree.hpp"
#include "rng/philox_uniform.hpp"
#include "sim/global_memory.hpp"
#include "sim/reg.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle::sum_tree {

struct ModelDraws {
  std::vector<int> index;  // draw s of row r at r * S + s
  sim::Counters counters;  // every warp's, summed
};

namespace model {

using sim::Op;
using sim::PerLane;
using sim::Reg;

// Each lane's vector starting at element first[l] of `row` (zeros past K, or
// where `want` is false): its E weights as doubles, and their sum by pairs.
template <class T>
struct Vector {
  std::array<Reg<double>, kVectorElems<T>> x;
  Reg<double> sum{"q"};
  Vector() {
    for (auto& r : x) r = Reg<double>("x");
  }
};

template <class T>
void load_vector(sim::Warp& warp, const sim::GlobalMemory& mem, const WeightMatrix<T>& w, int row, const Reg<std::int64_t>& first,
                 const Reg<bool>& want, Vector<T>& v) {
  Reg<bool> in("in");
  Reg<std::uint64_t> addr("addr");
  Reg<T> raw("w");
  for (int c = 0; c < kVectorElems<T>; ++c) {
    warp.compute(Op::Compare, in, [&](int l) { return want[l] && first[l] + c < w.cols; }, "in <- want && first + c < K");
    warp.mov(raw, PerLane<T>(T(0)));
    warp.if_then(in, [&] {
      warp.compute(Op::Other, addr, [&](int l) { return w.address(row, static_cast<int>(first[l] + c)); }, "addr <- &w[row][first + c]");
      warp.load_global(raw, mem, PerLane<std::uint64_t>(addr));
    });
    warp.compute(Op::Convert, v.x[static_cast<std::size_t>(c)], [&](int l) { return static_cast<double>(raw[l]); }, "x_c <- (double) w");
  }
  warp.compute(
      Op::Add, v.sum,
      [&](int l) {
        if constexpr (kVectorElems<T> == 4) return add(add(v.x[0][l], v.x[1][l]), add(v.x[2][l], v.x[3][l]));
        else return add(v.x[0][l], v.x[1][l]);
      },
      kVectorElems<T> == 4 ? "q <- (x0 + x1) + (x2 + x3)" : "q <- x0 + x1");
}

// The segment pass of segment g of `row`: lane sums to lane_sums[g * 32 +
// l], the segment's sum to leaves[g].
template <class T>
void segment_pass(sim::Warp& warp, sim::GlobalMemory& mem, const WeightMatrix<T>& w, int row, std::size_t g,
                  const sim::DeviceArray<double>& lane_sums, const sim::DeviceArray<double>& leaves) {
  Reg<int> lane("lane");
  warp.lane_id(lane);
  Reg<double> r("r", 0.0);
  Reg<std::int64_t> first("first");
  const Reg<bool> all("all", true);
  Vector<T> v;
  for (int j = 0; j < kVectorsPerLane; ++j) {
    if (element_of<T>(g, 0, j, 0) >= static_cast<std::size_t>(w.cols)) break;  // the rest are zeros: r + 0 is r
    warp.compute(Op::Other, first, [&](int l) { return static_cast<std::int64_t>(element_of<T>(g, l, j, 0)); }, "first <- vector 32 j + l");
    load_vector(warp, mem, w, row, first, all, v);
    warp.compute(Op::Add, r, [&](int l) { return add(r[l], v.sum[l]); }, "r <- r + q");
  }
  Reg<std::uint64_t> addr("addr");
  warp.compute(Op::Other, addr, [&](int l) { return lane_sums.at(g * kLanes + static_cast<std::size_t>(l)); }, "addr <- &lane_sums[g][l]");
  warp.store_global(mem, PerLane<std::uint64_t>(addr), r);
  Reg<double> s("s"), other("other");
  warp.mov(s, PerLane<double>(r));
  for (int bit = 1; bit < kLanes; bit <<= 1) {
    warp.shfl_xor_sync(other, warp.lanes(), s, bit);
    warp.compute(Op::Add, s, [&](int l) { return add(s[l], other[l]); }, "s <- s + shfl_xor(s, bit)");
  }
  Reg<bool> first_lane("lane0");
  warp.compute(Op::Compare, first_lane, [&](int l) { return lane[l] == 0; }, "lane == 0");
  warp.if_then(first_lane, [&] { warp.store_global(mem, PerLane<std::uint64_t>(leaves.at(g)), s); });
}

// Level h + 1 of the row's pair tree from level h (n nodes at `below`, n / 2
// at `above`), 32 nodes a step.
inline void tree_level(sim::Warp& warp, sim::GlobalMemory& mem, const sim::DeviceArray<double>& tree, std::size_t below, std::size_t above,
                       std::size_t n) {
  Reg<std::size_t> i("i");
  Reg<bool> in("in");
  Reg<std::uint64_t> addr("addr");
  Reg<double> a("a"), b("b");
  for (std::size_t base = 0; base < n / 2; base += kLanes) {
    warp.compute(Op::Other, i, [&](int l) { return base + static_cast<std::size_t>(l); }, "i <- base + l");
    warp.compute(Op::Compare, in, [&](int l) { return i[l] < n / 2; }, "i < n / 2");
    warp.if_then(in, [&] {
      warp.compute(Op::Other, addr, [&](int l) { return tree.at(below + 2 * i[l]); }, "addr <- &level[2 i]");
      warp.load_global(a, mem, PerLane<std::uint64_t>(addr));
      warp.compute(Op::Other, addr, [&](int l) { return tree.at(below + 2 * i[l] + 1); }, "addr <- &level[2 i + 1]");
      warp.load_global(b, mem, PerLane<std::uint64_t>(addr));
      warp.compute(Op::Add, a, [&](int l) { return add(a[l], b[l]); }, "node <- left + right");
      warp.compute(Op::Other, addr, [&](int l) { return tree.at(above + i[l]); }, "addr <- &up[i]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), a);
    });
  }
}

// The node over lanes [lo, lo + n) of 32 lane sums, by pairs.
inline double pair_sum(const std::array<double, kLanes>& s, int lo, int n) {
  return n == 1 ? s[static_cast<std::size_t>(lo)] : add(pair_sum(s, lo, n / 2), pair_sum(s, lo + n / 2, n / 2));
}

// Inside each lane's vector x (t: the target less the vectors before it):
// its pair tree descended, the weight's place in the vector.
template <class T>
void in_vector(sim::Warp& warp, const Vector<T>& x, const Reg<double>& t, Reg<int>& c) {
  warp.compute(
      Op::Other, c,
      [&](int l) {
        double tl = t[l];
        int at = 0;
        if constexpr (kVectorElems<T> == 4) {
          const double a = add(x.x[0][l], x.x[1][l]), b = add(x.x[2][l], x.x[3][l]);
          if (!(tl < a) && b > 0) tl = sub(tl, a), at = 2;
        }
        if (!(tl < x.x[static_cast<std::size_t>(at)][l]) && x.x[static_cast<std::size_t>(at) + 1][l] > 0) at += 1;
        return at;
      },
      "c <- the weight inside the vector, by pairs");
}

// The second kernel's warps (256 threads) and the draws a warp walks
// together: gpu/sum_tree_sampler.cu's kRowThreads / 32 and kWarpWalkDraws,
// written again here (the oracle shares only rng/ with the kernels).
constexpr int kRowWarps = 8;
constexpr int kWalkDraws = 4;

// Draw d of the round walked by the whole warp (its segment g, lane lo and
// target t held by lane d): returns its column, the same in every lane.
template <class T>
std::int64_t walk_together(sim::Warp& warp, const sim::GlobalMemory& mem, const WeightMatrix<T>& w, int row, int d, const Reg<std::int64_t>& g,
                           const Reg<int>& lo, const Reg<double>& t) {
  Reg<std::int64_t> g_d("g_d"), first("first");
  Reg<int> lo_d("lane_d"), lane("lane"), chosen("chosen", 0), c("c"), c_all("c");
  Reg<double> t_d("t_d"), r("r", 0.0), below("below", 0.0), qj("q_j");
  Reg<bool> going("going", true);
  const Reg<bool> all("all", true);
  warp.shfl_sync(g_d, warp.lanes(), g, PerLane<int>(d));
  warp.shfl_sync(lo_d, warp.lanes(), lo, PerLane<int>(d));
  warp.shfl_sync(t_d, warp.lanes(), t, PerLane<int>(d));
  warp.lane_id(lane);
  warp.compute(Op::Other, first, [&](int l) { return static_cast<std::int64_t>(element_of<T>(static_cast<std::size_t>(g_d[l]), lo_d[l], lane[l], 0)); },
               "first <- vector j = lane of lane lo_d, segment g_d");
  Vector<T> v;
  load_vector(warp, mem, w, row, first, all, v);  // (zeros past K)
  for (int j = 0; j < kVectorsPerLane; ++j) {
    warp.shfl_sync(qj, warp.lanes(), v.sum, PerLane<int>(j));
    warp.compute(Op::Compare, going, [&](int l) { return going[l] && t_d[l] >= r[l]; }, "going <- going && t >= r");
    warp.if_then(going, [&] {
      Reg<bool> take("take");
      warp.compute(Op::Compare, take, [&](int l) { return qj[l] > 0; }, "q_j > 0");
      warp.if_then(take, [&] {
        warp.mov(chosen, PerLane<int>(j));
        warp.mov(below, PerLane<double>(r));
      });
      warp.compute(Op::Add, r, [&](int l) { return add(r[l], qj[l]); }, "r <- r + q_j");
    });
  }
  // (a lane whose vector sums to 0 holds only zeros, as a lane a draw's
  // kept vector does when none is chosen)
  warp.compute(Op::Sub, t_d, [&](int l) { return sub(t_d[l], below[l]); }, "t <- t - r_(j*-1)");
  in_vector(warp, v, t_d, c);
  warp.shfl_sync(c_all, warp.lanes(), c, PerLane<int>(chosen));
  return static_cast<std::int64_t>(element_of<T>(static_cast<std::size_t>(g_d[d]), lo_d[d], chosen[d], c_all[d]));
}

}  // namespace model

// Draws s = 0 .. draws - 1 of every row of w (rng::uniform<double>(seed,
// row, s)), the model running each row's segments, its tree and its draws:
// a lane a draw, or (warp_walk) as the second kernel walks them, a row's
// draws shared by `row_blocks` blocks as the second kernel may share them
// (each its own tree, then its draws). The draws are the same either way.
// Told, for step-by-step views, where each lane's draw is after each step
// down (lanes drawing with a lane a draw, not the warp walk): depth 0, 1, ...
// from the root; `level` names the step ("segments", "lanes", "vector",
// "element"); `node` is the draw's place at that depth: the node of the row
// tree (its index within the level), the first of the segment's lanes still
// holding it, the lane's vector j, or the element's column in the row.
using DescentObserver = std::function<void(int depth, const char* level, int lane, std::int64_t node)>;

template <class T>
ModelDraws draw_on_model(sim::GlobalMemory& mem, const WeightMatrix<T>& w, std::uint64_t seed, int draws, bool warp_walk = false,
                         int row_blocks = 1, const DescentObserver& observe = {}) {
  using namespace model;
  if (draws < 1) throw std::invalid_argument("sum_tree::draw_on_model: draws must be >= 1");
  if (row_blocks < 1 || row_blocks > draws) throw std::invalid_argument("sum_tree::draw_on_model: row_blocks must be 1 to draws");
  ModelDraws out;
  const std::size_t k = static_cast<std::size_t>(w.cols), segments = segments_of<T>(k);
  std::size_t p = 1;
  while (p < segments) p *= 2;
  const auto lane_sums = mem.allocate<double>(segments * kLanes);
  const auto tree = mem.allocate<double>(2 * p - 1);  // level 0 (p leaves) first, the root last
  for (int row = 0; row < w.rows; ++row) {
    mem.upload<double>(tree, std::vector<double>(2 * p - 1, 0.0));
    for (std::size_t g = 0; g < segments; ++g) {
      sim::Warp warp({.width = kLanes});
      segment_pass(warp, mem, w, row, g, lane_sums, tree);
      out.counters += warp.counters();
    }
    // The row's blocks (row_blocks), each building the row's tree again and
    // making its share of the draws, [d0, d0 + chunk).
    const int chunk = (draws + row_blocks - 1) / row_blocks;
    for (int d0 = 0; d0 < draws; d0 += chunk) {
      const int block_draws = std::min(chunk, draws - d0);
      std::vector<std::size_t> start{0};  // each level's first node
      {
        sim::Warp warp({.width = kLanes});
        for (std::size_t n = p; n > 1; n /= 2) {
          start.push_back(start.back() + n);
          tree_level(warp, mem, tree, start[start.size() - 2], start.back(), n);
        }
        out.counters += warp.counters();
      }
      const int levels = static_cast<int>(start.size()) - 1;
      // A warp's round: 32 draws, or up to 32 spread over the second
      // kernel's 8 warps (at most 4 a warp) where warps walk.
      const int round = warp_walk && block_draws <= kRowWarps * kWalkDraws ? (block_draws + kRowWarps - 1) / kRowWarps : kLanes;
      for (int s0 = d0; s0 < d0 + block_draws; s0 += round) {
        const int n = std::min(round, d0 + block_draws - s0);
        sim::Warp warp({.width = kLanes});
        Reg<bool> active("active");
        warp.compute(Op::Compare, active, [&](int l) { return l < n; }, "the lane holds draw s0 + l");
        Reg<double> root("root"), t("t"), left("left"), right("right");
        Reg<std::uint64_t> addr("addr");
        warp.load_global(root, mem, PerLane<std::uint64_t>(tree.at(start.back())));
        warp.compute(
            Op::Mul, t,
            [&](int l) { return mul(rng::uniform<double>(seed, static_cast<std::uint64_t>(row), static_cast<std::uint32_t>(s0 + l)), root[l]); },
            "t <- u(seed, row, s) * root");
        // Down the row tree.
        Reg<std::int64_t> g("g", 0);
        Reg<bool> go_right("right?");
        for (int h = levels; h > 0; --h) {
          const std::size_t below = start[static_cast<std::size_t>(h - 1)];
          warp.compute(Op::Other, addr, [&](int l) { return tree.at(below + 2 * static_cast<std::size_t>(g[l])); }, "addr <- &level[2 g]");
          warp.load_global(left, mem, PerLane<std::uint64_t>(addr));
          warp.compute(Op::Other, addr, [&](int l) { return tree.at(below + 2 * static_cast<std::size_t>(g[l]) + 1); }, "addr <- &level[2 g + 1]");
          warp.load_global(right, mem, PerLane<std::uint64_t>(addr));
          warp.compute(Op::Compare, go_right, [&](int l) { return !(t[l] < left[l]) && right[l] > 0; }, "t >= left && right > 0");
          warp.compute(Op::Sub, t, [&](int l) { return go_right[l] ? sub(t[l], left[l]) : t[l]; }, "t <- t - left (right)");
          warp.compute(Op::Other, g, [&](int l) { return 2 * g[l] + (go_right[l] ? 1 : 0); }, "g <- 2 g + right");
          if (observe)
            for (int l = 0; l < n; ++l) observe(levels - h, "segments", l, g[l]);
        }
        // Down the chosen segment's lanes: its 32 lane sums, by pairs.
        std::array<Reg<double>, kLanes> ls;
        for (int i = 0; i < kLanes; ++i) {
          ls[static_cast<std::size_t>(i)] = Reg<double>("lane_sum");
          warp.compute(Op::Other, addr, [&](int l) { return lane_sums.at(static_cast<std::size_t>(g[l]) * kLanes + static_cast<std::size_t>(i)); },
                       "addr <- &lane_sums[g][i]");
          warp.load_global(ls[static_cast<std::size_t>(i)], mem, PerLane<std::uint64_t>(addr));
        }
        Reg<int> lo("lo", 0);
        for (int half = kLanes / 2; half >= 1; half /= 2) {
          warp.compute(
              Op::Add, left,
              [&](int l) {
                std::array<double, kLanes> s{};
                for (int i = 0; i < kLanes; ++i) s[static_cast<std::size_t>(i)] = ls[static_cast<std::size_t>(i)][l];
                return pair_sum(s, lo[l], half);
              },
              "left <- the pair sum of lanes [lo, lo + half)");
          warp.compute(
              Op::Compare, go_right,
              [&](int l) {
                bool any = false;
                for (int i = lo[l] + half; i < lo[l] + 2 * half; ++i) any |= ls[static_cast<std::size_t>(i)][l] > 0;
                return !(t[l] < left[l]) && any;
              },
              "t >= left && a lane of the right half > 0");
          warp.compute(Op::Sub, t, [&](int l) { return go_right[l] ? sub(t[l], left[l]) : t[l]; }, "t <- t - left (right)");
          warp.compute(Op::Add, lo, [&](int l) { return lo[l] + (go_right[l] ? half : 0); }, "lo <- lo + half (right)");
          if (observe)
            for (int l = 0; l < n; ++l) observe(levels + std::countr_zero(static_cast<unsigned>(kLanes / half)) - 1, "lanes", l, lo[l]);
        }
        if (warp_walk && n <= kWalkDraws) {
          for (int d = 0; d < n; ++d) out.index.push_back(static_cast<int>(walk_together<T>(warp, mem, w, row, d, g, lo, t)));
          out.counters += warp.counters();
          continue;
        }
        // Along the chosen lane's vectors: the last j with q_j > 0 and t >= r_(j-1).
        Reg<double> r("r", 0.0), below("below", 0.0);
        Reg<int> chosen("chosen", 0);
        Reg<bool> going("going");
        Reg<std::int64_t> first("first");
        Vector<T> v, kept;
        for (auto& x : kept.x) warp.mov(x, PerLane<double>(0.0));
        for (int j = 0; j < kVectorsPerLane; ++j) {
          warp.compute(Op::Other, first, [&](int l) { return static_cast<std::int64_t>(element_of<T>(static_cast<std::size_t>(g[l]), lo[l], j, 0)); },
                       "first <- vector 32 j + lo of segment g");
          warp.compute(Op::Compare, going, [&](int l) { return active[l] && t[l] >= r[l] && first[l] < w.cols; }, "t >= r && first < K");
          load_vector(warp, mem, w, row, first, going, v);
          warp.if_then(going, [&] {
            Reg<bool> take("take");
            warp.compute(Op::Compare, take, [&](int l) { return v.sum[l] > 0; }, "q > 0");
            warp.if_then(take, [&] {
              warp.mov(chosen, PerLane<int>(j));
              warp.mov(below, PerLane<double>(r));
              for (int c = 0; c < kVectorElems<T>; ++c) warp.mov(kept.x[static_cast<std::size_t>(c)], PerLane<double>(v.x[static_cast<std::size_t>(c)]));
            });
            warp.compute(Op::Add, r, [&](int l) { return add(r[l], v.sum[l]); }, "r <- r + q");
          });
        }
        warp.compute(Op::Sub, t, [&](int l) { return sub(t[l], below[l]); }, "t <- t - r_(j*-1)");
        if (observe)
          for (int l = 0; l < n; ++l) observe(levels + 5, "vector", l, chosen[l]);
        Reg<int> c("c");
        in_vector(warp, kept, t, c);
        if (observe)
          for (int l = 0; l < n; ++l)
            observe(levels + 6, "element", l,
                    static_cast<std::int64_t>(element_of<T>(static_cast<std::size_t>(g[l]), lo[l], chosen[l], c[l])));
        for (int l = 0; l < n; ++l) {
          out.index.push_back(static_cast<int>(element_of<T>(static_cast<std::size_t>(g[l]), lo[l], chosen[l], c[l])));
        }
        out.counters += warp.counters();
      }
    }
  }
  return out;
}

}  // namespace warpsim::oracle::sum_tree
