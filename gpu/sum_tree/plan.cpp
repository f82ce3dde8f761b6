// The sum-tree plan (gpu/sum_tree_plan.hpp): the rule that lays M rows of K
// weights, S draws a row, over a device, read top to bottom:
//   1. check the shape                                  check_shape
//   2. choose a layout, unless asked                    choose_layout
//   3. check that the layout holds the rows             check_layout
//   4. the layout's knobs                               block_per_row_knobs, segmented_knobs
//      (segmented: the second pass, then its own knobs) choose_second_pass, *_knobs
//   5. whether the pass that only sums reads once       plan_for
// Its thresholds are gpu/sum_tree/tuning.hpp; the runs behind each are in
// docs/perf/sum-tree-plan.md, by the section names quoted here. Host code
// only: built with or without CUDA, tested by tests/unit/sum_tree_plan_test.cpp.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/sum_tree/shape.hpp"
#include "gpu/sum_tree/tuning.hpp"
#include "gpu/sum_tree_plan.hpp"

namespace warpsim::gpu {

namespace {

using namespace sum_tree;
using L = SumTreePlan::Layout;
using Pass = SumTreePlan::SecondPass;

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument("sum-tree draw: " + why); }

std::string str(std::int64_t v) { return std::to_string(v); }

// What every step reads: the device, the matrix, the draws, what was asked.
template <class T>
struct Problem {
  PlanDevice device;
  int m;
  std::int64_t k;
  int draws;
  SumTreePlan ask;
  std::int64_t segments = segments_of<T>(k);
  std::int64_t vectors = vectors_of<T>(k);
  std::int64_t warps() const { return static_cast<std::int64_t>(m) * segments; }  // a warp a segment
  bool past_lanes() const { return k > SumTreePlanner<T>::lanes_per_row_max_k(); }
  bool read_once() const { return device.read_once(static_cast<std::size_t>(m) * static_cast<std::size_t>(k) * sizeof(T)); }
  // Whether plan() may choose a one-kernel pass: no knob it has not was asked.
  bool resident_may() const {
    return ask.warps_per_block <= 1 && ask.row_blocks <= 1 && ask.warp_walk == -1 && past_lanes() &&
           resident_chosen(device.sms, m, segments, draws);
  }
  bool cluster_may() const {
    return ask.warps_per_block == 0 && ask.row_blocks <= 1 && ask.warp_walk == -1 && past_lanes() &&
           cluster_chosen(device.sms, device.fast_memory(), read_once(), m, segments, draws);
  }
};

// 1. The shape.
template <class T>
void check_shape(const Problem<T>& q) {
  if (q.device.sms < 1) refuse("a device has at least one multiprocessor (" + str(q.device.sms) + " given)");
  if (q.m < 1 || q.k < 1) refuse("M and K must be >= 1 (M = " + str(q.m) + ", K = " + str(q.k) + ")");
  if (q.draws < 1) refuse("draws must be >= 1 (" + str(q.draws) + " asked)");
  if (static_cast<std::size_t>(q.k) > SumTreePlanner<T>::max_k()) {
    refuse("rows of at most " + std::to_string(SumTreePlanner<T>::max_k()) + " weights (K = " + str(q.k) + ")");
  }
}

// 2. The layout ("Short rows, one draw", "Lanes a row's rounds", "A thread a
// row's draws", "A block a row or segmented"). One draw: lanes a row for
// rows of 1-2 vectors, of 64 in fp32 (every lane two) and of 65-256
// vectors; a thread a row for the rest of K <= 64 E. S draws: a thread a row
// for few draws of short rows, else lanes a row while its lanes make them in
// few rounds. Longer rows: the resident pass or a row's cluster where
// chosen, else a block a row for rows of up to 16 segments, or up to 32
// where a row has more draws than its warps' lanes or every multiprocessor
// has a row with more than 4 draws or 8 rows; else segmented. A warp 32 rows
// is taken only when asked.
template <class T>
L choose_layout(const Problem<T>& q) {
  const int sms = q.device.sms;
  const bool full_lanes = sizeof(T) == 4 && q.vectors == 2 * kLanes;  // (fp32 K = 253-256: every lane two vectors)
  const bool thread_s = q.draws > 1 && s_draws_on_thread<T>(sms, q.m, q.vectors, q.draws);
  const bool lanes = q.draws == 1 ? q.vectors <= 2 || full_lanes || (q.vectors > 2 * kLanes && q.vectors <= 256)
                                  : !thread_s && s_draws_on_lanes<T>(sms, q.m, q.vectors, q.draws);
  if (lanes) return L::LanesPerRow;
  if ((q.draws == 1 && q.k <= SumTreePlanner<T>::thread_per_row_max_k()) || thread_s) return L::ThreadPerRow;
  const bool resident = q.past_lanes() && resident_chosen(sms, q.m, q.segments, q.draws);
  const bool cluster = q.past_lanes() && cluster_chosen(sms, q.device.fast_memory(), q.read_once(), q.m, q.segments, q.draws);
  const bool block_row =
      q.segments <= kLanes && (q.segments <= kBlockRowSegments || q.draws > kLanes * q.segments ||
                               (q.m >= sms && (q.draws > kWarpWalkDraws || static_cast<std::int64_t>(q.m) >= 8LL * sms)));
  return resident || cluster || !block_row ? L::Segmented : L::BlockPerRow;
}

// 3. The layout holds the rows, and the knobs every layout shares are in range.
template <class T>
void check_layout(const Problem<T>& q, SumTreePlan& p) {
  const std::int64_t G = Shape<T>::G;
  if (p.layout == L::WarpPerRow && q.segments != 1) refuse("a warp 32 rows holds rows of at most " + str(G) + " weights (K = " + str(q.k) + ")");
  if (p.layout == L::ThreadPerRow && q.k > SumTreePlanner<T>::thread_per_row_max_k()) {
    refuse("a thread a row holds rows of at most " + str(SumTreePlanner<T>::thread_per_row_max_k()) + " weights (K = " + str(q.k) + ")");
  }
  if (p.layout == L::LanesPerRow && q.k > SumTreePlanner<T>::lanes_per_row_max_k()) {
    refuse("lanes a row hold rows of at most " + str(SumTreePlanner<T>::lanes_per_row_max_k()) + " weights (K = " + str(q.k) + ")");
  }
  if (p.layout == L::BlockPerRow && q.segments > kLanes) refuse("a block a row holds rows of at most " + str(kLanes * G) + " weights (K = " + str(q.k) + ")");
  if (p.layout == L::BlockPerRow) {
    if (p.keep_rows == 1 && q.segments > kKeptSegments) {
      refuse("a block a row keeps rows of at most " + str(kKeptSegments * G) + " weights in shared memory (K = " + str(q.k) + ")");
    }
    if (p.keep_rows != -1 && p.keep_rows != 0 && p.keep_rows != 1) refuse("keep_rows must be -1, 0 or 1 (" + str(p.keep_rows) + " asked)");
  } else {
    p.keep_rows = -1;
  }
  // (knobs the layout has not)
  if (p.layout != L::Segmented) p.second_pass = Pass::Auto;
  if (p.layout != L::Segmented && p.layout != L::BlockPerRow) p.row_blocks = 0;
  if (p.row_blocks < 0 || p.row_blocks > q.draws) {
    refuse("row_blocks must be 0 (plan() chooses) or 1 to the draws a row, " + str(q.draws) + " (" + str(p.row_blocks) + " asked)");
  }
  if (p.warp_walk != -1 && p.warp_walk != 0 && p.warp_walk != 1) refuse("warp_walk must be -1, 0 or 1 (" + str(p.warp_walk) + " asked)");
  // A block a row's draws go a lane a draw, from its lane's marks ("Lane
  // marks"); the second kernel and the last warp walk.
  if (p.warp_walk == -1) p.warp_walk = p.layout != L::BlockPerRow ? 1 : 0;
}

// 4. A block a row: its blocks a row, spread until the grid holds
// kBlockRowFillWarps warps a multiprocessor, at least two for rows longer
// than a vector a lane with two rounds of draws or more ("A block a row's
// blocks"); rows not kept in shared memory unless asked ("Lane marks").
template <class T>
void block_per_row_knobs(const Problem<T>& q, SumTreePlan& p) {
  p.warps_per_block = 0;
  if (p.row_blocks == 0) {
    const std::int64_t most = (q.draws + kLanes * q.segments - 1) / (kLanes * q.segments);
    const std::int64_t fill = kBlockRowFillWarps * q.device.sms / q.warps();
    std::int64_t blocks = std::clamp<std::int64_t>(fill, 1, most);
    if (q.k > kLanes * Shape<T>::E && most >= 2) blocks = std::max<std::int64_t>(blocks, 2);
    p.row_blocks = static_cast<int>(blocks);
  }
  p.row_blocks = row_chunk(q.draws, row_chunk(q.draws, p.row_blocks));  // (no block without draws)
  if (p.keep_rows == -1) p.keep_rows = 0;
}

// 4a. Segmented: the second pass, unless asked. The resident pass or a row's
// cluster where chosen (and no knob they have not was asked); else a warp a
// row for one draw of rows of up to 256 segments where the grid is at most
// kFewWarps warps a multiprocessor or M is more than kWarpRowRows rows a
// multiprocessor ("A warp a row"); else the second kernel a block a row.
// The last warp only where asked: a warp a row was as fast or faster
// wherever it ran ("A warp a row").
template <class T>
Pass choose_second_pass(const Problem<T>& q) {
  if (q.resident_may()) return Pass::ResidentPass;
  if (q.cluster_may()) return Pass::ClusterPass;
  const int sms = q.device.sms;
  const bool few = q.warps() <= static_cast<std::int64_t>(kFewWarps) * sms;
  const int rows = q.device.fast_memory() ? kWarpRowRowsFast : kWarpRowRows;
  const bool warp_rows = q.draws == 1 && q.segments <= kWarpRowSegments && (few || q.m > rows * sms);
  return warp_rows ? Pass::WarpRowPass : Pass::RowPass;
}

template <class T>
void cluster_knobs(const Problem<T>& q, SumTreePlan& p) {
  if (q.segments > kClusterSegments) {
    refuse("a row's cluster holds rows of at most " + str(kClusterSegments * Shape<T>::G) + " weights (K = " + str(q.k) + ")");
  }
  if (q.ask.warps_per_block == 0) p.warps_per_block = kClusterWarps;
  if ((q.segments + p.warps_per_block - 1) / p.warps_per_block > kClusterBlocks) {
    refuse("a row's cluster is at most " + str(kClusterBlocks) + " blocks: " + str(q.segments) + " segments need more than " +
           str(p.warps_per_block) + " warps a block");
  }
  if (q.ask.warp_walk == 1) refuse("a row's cluster makes its draws a lane a draw (warp_walk 1 asked)");
  if (p.row_blocks > 1) refuse("a row's cluster makes all its draws (row_blocks " + str(p.row_blocks) + " asked)");
  p.warp_walk = 0;
  p.row_blocks = 0;
}

// Its warps a block: 4 where every block has a multiprocessor of its own,
// else 1, unless asked ("The resident pass's warps").
template <class T>
void resident_knobs(const Problem<T>& q, SumTreePlan& p) {
  if (q.segments > kResidentSegments || q.draws > kResidentDraws) {
    refuse("the resident pass draws at most " + str(kResidentDraws) + " draws a row of at most " + str(kResidentSegments * Shape<T>::G) +
           " weights (K = " + str(q.k) + ", S = " + str(q.draws) + ")");
  }
  if (p.row_blocks > 1) refuse("the resident pass makes a row's draws in its own warps (row_blocks " + str(p.row_blocks) + " asked)");
  if (q.ask.warps_per_block != 0 && q.ask.warps_per_block != 1 && q.ask.warps_per_block != kResidentWarps) {
    refuse("the resident pass runs a segment on 1 or 4 warps (warps_per_block " + str(q.ask.warps_per_block) + " asked)");
  }
  p.warps_per_block = q.ask.warps_per_block > 0 ? q.ask.warps_per_block : resident_warps(q.device.sms, q.warps());
  p.warp_walk = -1;
  p.row_blocks = 0;
}

template <class T>
void warp_row_knobs(const Problem<T>& q, SumTreePlan& p) {
  if (q.segments > kWarpRowSegments || q.draws > kWarpWalkDraws) {
    refuse("a warp a row draws at most " + str(kWarpWalkDraws) + " draws a row of at most " + str(kWarpRowSegments * Shape<T>::G) +
           " weights (K = " + str(q.k) + ", S = " + str(q.draws) + ")");
  }
  if (p.warp_walk == 0) refuse("a warp a row walks its draws (warp_walk 0 asked)");
  if (p.row_blocks > 1) refuse("a warp a row makes all its draws (row_blocks " + str(p.row_blocks) + " asked)");
  p.warp_walk = 1;
  p.row_blocks = 0;
}

// The last warp walks a round of up to 4 draws; more go a lane a draw.
template <class T>
void last_warp_knobs(const Problem<T>& q, SumTreePlan& p) {
  if (q.segments > kLanes) refuse("a row's last warp draws for rows of at most " + str(kLanes * Shape<T>::G) + " weights (K = " + str(q.k) + ")");
  if (p.warp_walk == -1 || q.draws > kWarpWalkDraws) p.warp_walk = q.draws <= kWarpWalkDraws ? 1 : 0;
  if (p.row_blocks > 1) refuse("a row's last warp makes all its draws (row_blocks " + str(p.row_blocks) + " asked)");
  p.row_blocks = 0;
}

// The second kernel's blocks a row ("The second kernel's blocks"): where
// its warps walk and M is below the multiprocessors, one for every 32 draws
// up to one for every 8 while M x blocks is at most the multiprocessors;
// past two walked blocks a multiprocessor, a lane a draw, a block for every
// 256 draws (unless asked to walk); else one.
template <class T>
void row_pass_knobs(const Problem<T>& q, SumTreePlan& p) {
  const int sms = q.device.sms;
  const std::int64_t walked_blocks = static_cast<std::int64_t>(q.m) * ((q.draws + kRowWarpDraws - 1) / kRowWarpDraws);
  if (p.row_blocks == 0 && q.ask.warp_walk == -1 && q.m < sms && walked_blocks > 2LL * sms) {
    p.warp_walk = 0;
    p.row_blocks = (q.draws + kRowThreads - 1) / kRowThreads;
  }
  if (p.row_blocks == 0) {
    if (p.warp_walk == 1 && q.m < sms) {
      const std::int64_t fewest = (q.draws + kRowWarpDraws - 1) / kRowWarpDraws, most = (q.draws + kRowWarps - 1) / kRowWarps;
      p.row_blocks = static_cast<int>(std::clamp<std::int64_t>(sms / q.m, fewest, most));
    } else {
      p.row_blocks = 1;
    }
  }
  p.row_blocks = row_chunk(q.draws, row_chunk(q.draws, p.row_blocks));  // (no block without draws)
}

// 4. Segmented: warps a block (the most, up to 8, that leave two blocks for
// every multiprocessor: a short matrix is spread over the GPU), the second
// pass, then its knobs.
template <class T>
void segmented_knobs(const Problem<T>& q, SumTreePlan& p) {
  if (p.warps_per_block == 0) {
    p.warps_per_block = 8;
    while (p.warps_per_block > 1 && q.warps() / p.warps_per_block < 2LL * q.device.sms) p.warps_per_block /= 2;
  }
  if (p.warps_per_block != 1 && p.warps_per_block != 2 && p.warps_per_block != 4 && p.warps_per_block != 8) {
    refuse("warps_per_block must be 1, 2, 4 or 8 (" + str(p.warps_per_block) + " asked)");
  }
  const int pass = static_cast<int>(p.second_pass);
  if (pass < static_cast<int>(Pass::Auto) || pass > static_cast<int>(Pass::ClusterPass)) {
    refuse("second_pass is none of auto, last-warp, row-pass, warp-row-pass, resident-pass, cluster-pass (" + str(pass) + " asked)");
  }
  if (p.second_pass == Pass::Auto) p.second_pass = choose_second_pass(q);
  switch (p.second_pass) {
    case Pass::ClusterPass: return cluster_knobs(q, p);
    case Pass::ResidentPass: return resident_knobs(q, p);
    case Pass::WarpRowPass: return warp_row_knobs(q, p);
    case Pass::LastWarp: return last_warp_knobs(q, p);
    default: return row_pass_knobs(q, p);
  }
}

// Steps 1-4: the layout and its knobs, all but read_once.
template <class T>
SumTreePlan plan_layout(const Problem<T>& q) {
  check_shape(q);
  SumTreePlan p = q.ask;
  if (p.layout == L::Auto) p.layout = choose_layout(q);
  check_layout(q, p);
  switch (p.layout) {
    case L::BlockPerRow: block_per_row_knobs(q, p); break;
    case L::Segmented: segmented_knobs(q, p); break;
    default:  // (lanes, a thread or a warp a row: no knobs)
      p.warps_per_block = 0;
      p.warp_walk = -1;
  }
  return p;
}

}  // namespace

const char* to_string(SumTreePlan::SecondPass pass) {
  switch (pass) {
    case Pass::Auto: return "auto";
    case Pass::LastWarp: return "last-warp";
    case Pass::RowPass: return "row-pass";
    case Pass::WarpRowPass: return "warp-row-pass";
    case Pass::ResidentPass: return "resident-pass";
    case Pass::ClusterPass: return "cluster-pass";
  }
  return "unknown";
}

std::string SumTreePlan::describe() const {
  switch (layout) {
    case Layout::LanesPerRow: return "lanes-per-row";
    case Layout::ThreadPerRow: return "thread-per-row";
    case Layout::WarpPerRow: return "warp-per-row";
    case Layout::BlockPerRow:
      return std::string(keep_rows == 1 ? "block-per-row, rows in shared memory" : "block-per-row") +
             (row_blocks > 1 ? ", " + std::to_string(row_blocks) + " blocks a row" : "") + (warp_walk == 1 ? ", warps walk draws" : "");
    case Layout::Segmented:
      return "segmented, " + std::to_string(warps_per_block) + " warps a block" +
             (second_pass == SecondPass::WarpRowPass    ? ", then a warp a row"
              : second_pass == SecondPass::ResidentPass ? ", resident: each draws what lands in its segment"
              : second_pass == SecondPass::ClusterPass  ? ", a row's blocks a cluster"
              : second_pass != SecondPass::RowPass      ? ""
              : row_blocks > 1                          ? ", then " + std::to_string(row_blocks) + " blocks a row"
                                                        : ", then a block a row") +
             (warp_walk == 1 ? ", warps walk draws" : "") + (read_once == 1 ? ", read once" : "");
    default: return "auto";
  }
}

template <class T>
std::size_t SumTreePlanner<T>::max_k() {
  return static_cast<std::size_t>(8192) * static_cast<std::size_t>(Shape<T>::G);  // a tree of 2 x 8,192 doubles: 128 KB
}

template <class T>
std::int64_t SumTreePlanner<T>::lanes_per_row_max_k() {
  return kLanes * kBatch * Shape<T>::E;  // eight vectors a lane: 1,024 fp32, 512 fp64
}

template <class T>
std::int64_t SumTreePlanner<T>::thread_per_row_max_k() {
  return 2 * kLanes * Shape<T>::E;  // two vectors a lane: 256 fp32, 128 fp64
}

template <class T>
SumTreePlan SumTreePlanner<T>::plan_for(int sms, int m, std::int64_t k, const SumTreePlan& ask, int draws) {
  return plan_for(PlanDevice{sms}, m, k, ask, draws);
}

// 5. Read once: the pass that only sums, before a second kernel, reads a
// matrix past the device's L2 (up to kReadOnceMaxL2s of them) with loads L2
// evicts first, so that the sums it writes are still there for the second
// kernel ("Read once").
template <class T>
SumTreePlan SumTreePlanner<T>::plan_for(const PlanDevice& device, int m, std::int64_t k, const SumTreePlan& ask, int draws) {
  if (ask.read_once != -1 && ask.read_once != 0 && ask.read_once != 1) refuse("read_once is -1, 0 or 1 (" + str(ask.read_once) + " asked)");
  const Problem<T> q{device, m, k, draws, ask};
  SumTreePlan p = plan_layout(q);
  const bool second_kernel = p.second_pass == Pass::RowPass || p.second_pass == Pass::WarpRowPass;
  const bool sums_only = p.layout == L::Segmented && second_kernel && !segment_keeps_marks<T>(p, k, q.segments, draws);
  if (p.read_once == 1 && !sums_only) {
    refuse("only the pass that only sums, before a second kernel (Segmented, second_pass row-pass or warp-row-pass, not keeping its lanes' "
           "marks for S >= 4 draws a segment), reads once (" + p.describe() + ")");
  }
  if (p.read_once == -1) p.read_once = sums_only && q.read_once() ? 1 : 0;
  return p;
}

template struct SumTreePlanner<float>;
template struct SumTreePlanner<double>;

}  // namespace warpsim::gpu
