// The sum-tree draw's plan: how gpu::SumTreeSampler lays M rows of K
// weights, S draws a row, over a GPU. Host code only (no CUDA), so the rule
// is tested on any machine (tests/unit/sum_tree_plan_test.cpp).
//
// The rule itself is gpu/sum_tree/plan.cpp, read top to bottom; its
// thresholds are gpu/sum_tree/tuning.hpp, each naming the section of
// docs/perf/sum-tree-plan.md that holds its measurements. The draws never
// depend on the plan: every layout's indices are the oracle's.
//
// Usage:
//   auto p = gpu::SumTreePlanner<float>::plan_for(gpu::PlanDevice{132, 4814.0}, m, k, {}, draws);
//   p.describe();  // "segmented, 8 warps a block, then a warp a row, read once"
//   gpu::SumTreePlan ask{.layout = gpu::SumTreePlan::Layout::Segmented,
//                        .second_pass = gpu::SumTreePlan::SecondPass::ClusterPass};  // force one
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace warpsim::gpu {

// How rows are laid over the GPU; the result never depends on it.
//   LanesPerRow   K <= 256 E (eight vectors a lane: 1,024 fp32, 512 fp64): a
//                 row on the fewest lanes (a power of two) that hold a vector
//                 each, or on the warp with up to eight vectors a lane; a
//                 warp's rows are consecutive bytes, read at once, and a
//                 draw is found without a search (gpu/sum_tree/lanes_pass.cuh)
//   ThreadPerRow  K <= 64 E (two vectors a lane: 256 fp32, 128 fp64): a thread a
//                 row, its warp's rows copied to shared memory first
//                 (gpu/sum_tree/thread_pass.cuh)
//   WarpPerRow    K <= G: a warp sums 32 rows one after another, then makes
//                 their draws at once, a lane a row (gpu/sum_tree/rows_pass.cuh;
//                 only where asked)
//   BlockPerRow   up to 32 segments (131,072 fp32, 65,536 fp64): a block a
//                 row, a warp a segment, the row's sums in shared memory, then
//                 the block's warps make its draws (gpu/sum_tree/block_pass.cuh)
//   Segmented     a warp a segment of G weights (4,096 fp32, 2,048 fp64), a
//                 row over as many warps and blocks as it has segments
//                 (gpu/sum_tree/segment_pass.cuh), then the row is finished
//                 as second_pass says
struct SumTreePlan {
  enum class Layout { Auto, LanesPerRow, ThreadPerRow, WarpPerRow, BlockPerRow, Segmented };
  // How a Segmented row is finished once its segments are summed; each
  // names its kernel's file under gpu/sum_tree/.
  enum class SecondPass {
    Auto,         // plan() chooses
    LastWarp,     // segment_pass.cuh: the row's last warp to finish draws, in
                  // the one kernel (rows of up to 32 segments; only where asked)
    RowPass,      // row_pass.cuh: a second kernel, a block a row (any row),
                  // or several sharing its draws (row_blocks)
    WarpRowPass,  // warp_row_pass.cuh: a second kernel, a warp a row (rows of
                  // up to 256 segments, up to 4 draws a row, walked)
    ResidentPass, // resident_pass.cuh: one cooperative kernel, a block of 1 or
                  // 4 warps a segment, the grid held at once; each block reads
                  // its row's sums once all are posted and finishes the draws
                  // that land in its segment (rows of up to 512 segments, up
                  // to 64 draws: few rows, latency)
    ClusterPass,  // cluster_pass.cuh: one kernel, a row's blocks a thread-block
                  // cluster of up to 8 (rows of up to 64 segments, up to 64
                  // draws), the segments' sums exchanged in distributed shared
                  // memory (many rows)
  };
  Layout layout = Layout::Auto;
  // Segmented: 1, 2, 4 or 8; ResidentPass 1 or 4; 0: plan() chooses.
  int warps_per_block = 0;
  // BlockPerRow: 1 copies each row (up to 8 segments) to shared memory first
  // and its draws read it there; 0 reads it from global memory, its draws
  // reading one batch of 8 of a lane's vectors again from the lane's marks;
  // -1: plan() chooses (0).
  int keep_rows = -1;
  SecondPass second_pass = SecondPass::Auto;
  // BlockPerRow, and Segmented's RowPass and LastWarp: 1 walks a round of up
  // to 4 draws with the whole warp (the round's loads at once), 0 a lane a
  // draw; -1: plan() chooses.
  int warp_walk = -1;
  // BlockPerRow and RowPass: the blocks a row's draws go over, each summing
  // the row (or building its tree) and making its share (1 to S); 0: plan()
  // chooses.
  int row_blocks = 0;
  // RowPass and WarpRowPass: 1 has the pass that only sums read the matrix
  // with loads L2 evicts first (ld.global.cs), so that the sums it writes
  // are still in L2 for the second kernel; 0 reads it as every other pass
  // does; -1: plan() chooses (1 where the matrix is larger than the device's
  // L2 and at most PlanDevice::kReadOnceMaxL2s times it).
  int read_once = -1;
  std::string describe() const;
};

// The name of a second pass, as the options and docs spell it
// ("row-pass", "cluster-pass", ...).
const char* to_string(SumTreePlan::SecondPass pass);

// What plan() takes from a device: its multiprocessors, its memory's peak
// bandwidth (twice the memory clock times the bus width: H100 SXM 3,352
// GB/s, H200 4,814 GB/s) and its L2's bytes (H100 SXM 50 MiB, H200 60 MiB).
//
// Usage:
//   gpu::SumTreePlanner<float>::plan_for(gpu::PlanDevice{132, 4814.0}, m, k);
struct PlanDevice {
  int sms = 0;
  double memory_gbs = 0;     // 0: not known (not fast)
  std::size_t l2_bytes = 0;  // its L2 (cudaDevAttrL2CacheSize); 0: not known (never read once)
  // The largest matrix, in L2s, whose pass that only sums reads it once
  // (SumTreePlan::read_once).
  static constexpr std::size_t kReadOnceMaxL2s = 32;
  bool read_once(std::size_t matrix_bytes) const {
    return l2_bytes > 0 && matrix_bytes > l2_bytes && matrix_bytes <= kReadOnceMaxL2s * l2_bytes;
  }
  // At least kFastMemoryGbs a multiprocessor (the H200, not the H100): its
  // segment pass ends soon enough that a row's cluster, whose blocks wait
  // at its barriers for the row's last segment, loses to a second kernel
  // (docs/perf/sum-tree-plan.md, "Fast memory").
  static constexpr double kFastMemoryGbs = 32.0;
  bool fast_memory() const { return sms > 0 && memory_gbs >= kFastMemoryGbs * sms; }
  // The current device's (defined only where the CUDA parts are built).
  static PlanDevice current();
};

// The plan for fp32 (T = float) or fp64 (T = double) weights.
template <class T>
struct SumTreePlanner {
  // Rows of at most this many weights (the row's tree, 2 P doubles for P
  // segments rounded up to a power of two, is built in shared memory).
  static std::size_t max_k();
  // The longest rows lanes a row hold (eight vectors a lane).
  static std::int64_t lanes_per_row_max_k();
  // The longest rows a thread a row holds (two vectors a lane).
  static std::int64_t thread_per_row_max_k();

  // The layout for an M x K matrix, S = draws, on `device`: the rule of
  // gpu/sum_tree/plan.cpp, with `ask`'s knobs kept where set. Throws
  // std::invalid_argument on M < 1, K < 1, K > max_k(), draws < 1,
  // device.sms < 1, or a plan that cannot hold K or a knob out of range
  // (LanesPerRow past lanes_per_row_max_k(), ThreadPerRow past
  // thread_per_row_max_k(), WarpPerRow past G, BlockPerRow past 32 G,
  // read_once 1 but where the pass that only sums runs, ResidentPass past
  // 512 G or 64 draws or other than 1 or 4 warps a block, ClusterPass past
  // 64 segments or 8 blocks, warps_per_block not a power of two up to 8).
  static SumTreePlan plan_for(const PlanDevice& device, int m, std::int64_t k, const SumTreePlan& ask = {}, int draws = 1);
  // A device of `sms` multiprocessors whose memory is not fast (an H100's).
  static SumTreePlan plan_for(int sms, int m, std::int64_t k, const SumTreePlan& ask = {}, int draws = 1);
};

}  // namespace warpsim::gpu
