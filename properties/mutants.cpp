#include "properties/mutants.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "oracle/matrix_workload.hpp"
#include "oracle/target.hpp"
#include "rng/philox_uniform.hpp"
#include "sim/shared_memory.hpp"
#include "sim/warp.hpp"

namespace warpsim::properties {

const std::vector<MutantInfo>& mutants() {
  static const std::vector<MutantInfo> list = {
      {Mutation::LoadBoundOffByOne, "load-bound-off-by-one", "the load guard is j <= K, so each row reads one weight past its end"},
      {Mutation::LastNeverDrawn, "last-never-drawn", "the search's candidates are j < K - 1: the last category can never be drawn"},
      {Mutation::LessEqualAtBoundary, "less-equal-at-boundary", "u' <= P[j] where the definition says u' < P[j]"},
      {Mutation::UniformOpenClosed, "uniform-open-closed", "u = 1 - u, so u lies in (0, 1] instead of [0, 1)"},
      {Mutation::FloatAccumulation, "float-accumulation", "fp64 weights accumulated in an fp32 running sum"},
      {Mutation::WrongXorDistance, "wrong-xor-distance", "the shfl_xor min-reduction starts at distance W/4 instead of W/2"},
      {Mutation::WrongSourceLane, "wrong-source-lane", "the block's running total is shuffled from lane W - 2 instead of W - 1"},
      {Mutation::RemnantSkipped, "remnant-skipped", "K / W blocks are read: the last K mod W weights are skipped"},
      {Mutation::OtherLanesUniform, "other-lanes-uniform", "row i is drawn with the uniform the lane of row i + 1 holds"},
      {Mutation::MissingSyncwarp, "missing-syncwarp", "the block's end is read back from shared memory without __syncwarp"},
      {Mutation::SameUniformTwoRows, "same-uniform-two-rows", "rows 2i and 2i + 1 are drawn with one uniform"},
      {Mutation::RunningSumResetPerBlock, "running-sum-reset-per-block", "the search does not carry the running sum into the next block"},
      {Mutation::ZeroAfterHeavy, "zero-after-heavy",
       "the block is entered on u' <= its end, and a tie falls back to the block's last lane: a zero weight after a heavy one"},
      {Mutation::ZeroGuardEpsilon, "zero-guard-epsilon", "zero weights are raised to 1e-30 to guard against an all-zero row"},
      {Mutation::StalePadding, "stale-padding", "lanes past K keep the previous block's weight instead of 0"},
      {Mutation::StreamByLane, "stream-by-lane", "the Philox stream is the lane (threadIdx.x), not the row: every warp repeats warp 0's uniforms"},
      {Mutation::SinglePrecisionUniform, "single-precision-uniform", "fp64 weights drawn with a 24-bit fp32 uniform"},
  };
  return list;
}

namespace {

using sim::LaneMask;
using sim::Op;
using sim::PerLane;
using sim::Reg;

constexpr int kW = 32;
constexpr int kNone = std::numeric_limits<int>::max();

template <class T>
struct WarpPerRow {
  Mutation mut;
  sim::Warp& warp;
  const sim::GlobalMemory& mem;
  const oracle::WeightMatrix<T>& w;
  sim::SharedMemory& smem;
  sim::SharedArray<T> slot;
  Reg<int> lane{"lane"};
  Reg<T> x{"x"}, s{"s"}, y{"y"};
  Reg<bool> p{"p"};
  Reg<std::uint64_t> addr{"addr"};

  bool is(Mutation m) const { return mut == m; }
  LaneMask all() const { return warp.lanes(); }

  // x <- weight j = b W + lane of row r (0 past the row).
  void load_block(int r, int b) {
    const int k = w.cols;
    const int bound = is(Mutation::LoadBoundOffByOne) ? k + 1 : k;  // MUTATION load-bound-off-by-one: j <= K
    warp.compute(Op::Compare, p, [&](int l) { return b * kW + l < bound; });
    if (!is(Mutation::StalePadding)) warp.mov(x, PerLane<T>(T(0)));  // MUTATION stale-padding: not zeroed
    warp.if_then(p, [&] {
      warp.compute(Op::Other, addr, [&](int l) {
        return w.data.at(static_cast<std::size_t>(r) * static_cast<std::size_t>(k) + static_cast<std::size_t>(b * kW + l));
      }, "addr <- &w[r][j]");
      warp.load_global(x, mem, PerLane<std::uint64_t>(addr));
    });
    if (is(Mutation::ZeroGuardEpsilon)) {  // MUTATION zero-guard-epsilon
      warp.compute(Op::MinMax, x, [&](int l) { return std::max(x[l], static_cast<T>(1e-30)); });
    }
  }

  T add(T a, T b) const {
    if (is(Mutation::FloatAccumulation)) {  // MUTATION float-accumulation: an fp32 accumulator
      volatile float f = static_cast<float>(a) + static_cast<float>(b);
      return static_cast<T>(f);
    }
    volatile T t = a + b;
    return t;
  }

  // s <- carry + x[0] + ... + x[lane], added in order: lane 0 takes the
  // carry, then W - 1 steps of s[l] <- s[l - 1] + x[l].
  void scan_in_order(T carry) {
    warp.compute(Op::Add, s, [&](int l) { return l == 0 ? add(carry, x[l]) : x[l]; });
    for (int step = 1; step < kW; ++step) {
      warp.shfl_up_sync(y, all(), s, 1);
      warp.compute(Op::Add, s, [&](int l) { return l == 0 ? s[l] : add(y[l], x[l]); });
    }
  }

  // Pass 1: the row's total.
  T total(int r, int blocks) {
    T carry = 0;
    for (int b = 0; b < blocks; ++b) {
      load_block(r, b);
      scan_in_order(carry);
      const int src = is(Mutation::WrongSourceLane) ? kW - 2 : kW - 1;  // MUTATION wrong-source-lane
      warp.shfl_sync(y, all(), s, src);
      carry = y[0];
    }
    return carry;
  }

  // Pass 2: the first j with u' < P[j].
  int search(int r, int blocks, T target) {
    const int k = w.cols;
    const int last = is(Mutation::LastNeverDrawn) ? k - 2 : k - 1;  // MUTATION last-never-drawn: the last index is K - 2
    T carry = 0;
    Reg<T> end("end");
    Reg<int> cand("cand"), other("other");
    for (int b = 0; b < blocks; ++b) {
      load_block(r, b);
      scan_in_order(is(Mutation::RunningSumResetPerBlock) ? T(0) : carry);  // MUTATION running-sum-reset-per-block
      // The block's end, through shared memory: lane W - 1 publishes it.
      warp.compute(Op::Compare, p, [&](int l) { return l == kW - 1; });
      warp.if_then(p, [&] { warp.store_shared(smem, PerLane<std::uint64_t>(slot.at(0)), s); });
      if (!is(Mutation::MissingSyncwarp)) warp.syncwarp(all());  // MUTATION missing-syncwarp
      warp.load_shared(end, smem, PerLane<std::uint64_t>(slot.at(0)));
      warp.syncwarp(all());  // before the next block overwrites the slot
      const bool enter = is(Mutation::ZeroAfterHeavy) ? target <= end[0] : target < end[0];  // MUTATION zero-after-heavy
      if (!enter) {
        carry = end[0];
        continue;
      }
      warp.compute(Op::Select, cand, [&](int l) {
        const int j = b * kW + l;
        const bool hit = is(Mutation::LessEqualAtBoundary) ? target <= s[l] : target < s[l];  // MUTATION less-equal-at-boundary
        return j <= last && hit ? j : kNone;
      });
      const int first_distance = is(Mutation::WrongXorDistance) ? kW / 4 : kW / 2;  // MUTATION wrong-xor-distance
      for (int d = first_distance; d >= 1; d /= 2) {
        warp.shfl_xor_sync(other, all(), cand, d);
        warp.compute(Op::MinMax, cand, [&](int l) { return std::min(cand[l], other[l]); });
      }
      if (cand[0] != kNone) return cand[0];
      return std::min(last, b * kW + kW - 1);  // no candidate: the block's last lane
    }
    return last;  // past every block (unreachable while u' < total)
  }
};

template <class T>
std::vector<int> draw_warp_per_row(Mutation mut, const Matrix<T>& m, std::uint64_t seed) {
  sim::GlobalMemory mem;
  const auto w = oracle::upload_matrix<T>(mem, m.weights, m.rows, m.cols);
  std::vector<int> out(static_cast<std::size_t>(m.rows));
  const int blocks = mut == Mutation::RemnantSkipped ? m.cols / kW : (m.cols + kW - 1) / kW;  // MUTATION remnant-skipped
  for (int q = 0; q * kW < m.rows; ++q) {
    sim::Warp warp({.width = kW});
    sim::SharedMemory smem(256);
    WarpPerRow<T> k{mut, warp, mem, w, smem, smem.allocate<T>(1)};
    warp.lane_id(k.lane);
    // Each lane holds the uniform of its row of this warp.
    Reg<T> u_own("u");
    warp.compute(Op::Other, u_own, [&](int l) {
      std::uint64_t row = static_cast<std::uint64_t>(q * kW + l);
      if (mut == Mutation::SameUniformTwoRows) row &= ~std::uint64_t{1};  // MUTATION same-uniform-two-rows
      if (mut == Mutation::StreamByLane) row = static_cast<std::uint64_t>(l);  // MUTATION stream-by-lane
      if (mut == Mutation::SinglePrecisionUniform) return static_cast<T>(rng::uniform<float>(seed, row));  // MUTATION single-precision-uniform
      return rng::uniform<T>(seed, row);
    }, "u <- philox(seed, row)");
    for (int i = 0; i < kW && q * kW + i < m.rows; ++i) {
      const int r = q * kW + i;
      Reg<T> u("u_row");
      const int src = mut == Mutation::OtherLanesUniform ? (i + 1) % kW : i;  // MUTATION other-lanes-uniform
      warp.shfl_sync(u, warp.lanes(), u_own, src);
      T ur = u[0];
      if (mut == Mutation::UniformOpenClosed) ur = T(1) - ur;  // MUTATION uniform-open-closed
      const T total = k.total(r, blocks);
      const T target = oracle::target_below_total(total, ur);
      out[static_cast<std::size_t>(r)] = k.search(r, blocks, target);
    }
  }
  return out;
}

}  // namespace

Sampler host_mutant(Mutation m) {
  std::string name = "warp-per-row";
  for (const auto& info : mutants())
    if (info.mutation == m) name += "/" + info.name;
  return Sampler{.name = name,
                 .algorithm = "warp-per-row",
                 .where = "host (sim/)",
                 .determinism = Determinism::Replayable,
                 .adds_in_order = true,
                 .f32 = [m](const Matrix<float>& x, std::uint64_t seed) { return draw_warp_per_row<float>(m, x, seed); },
                 .f64 = [m](const Matrix<double>& x, std::uint64_t seed) { return draw_warp_per_row<double>(m, x, seed); }};
}

}  // namespace warpsim::properties
