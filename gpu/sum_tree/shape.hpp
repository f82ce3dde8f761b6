// The sum tree's shape on the GPU and what each pass can hold: the facts the
// kernels (gpu/sum_tree/*.cuh) and the plan (gpu/sum_tree/plan.cpp) share.
// Plain C++ (no CUDA), so the plan is built and tested without nvcc.
//
// The tree (oracle/sum_tree.hpp defines it; written here again):
//   vector   E = 16 / sizeof(T) consecutive weights, one 16-byte load
//   lane     lane l of a segment: vectors l, 32 + l, ..., 992 + l
//   segment  G = 1,024 E weights: a warp's 32 lanes
//   row      the segments' sums by pairs, padded to a power of two P
#pragma once

#include <cstdint>

#include "gpu/detail/host_device.hpp"
#include "gpu/sum_tree_plan.hpp"

namespace warpsim::gpu::sum_tree {

inline constexpr int kLanes = 32;
inline constexpr int kVectorsPerLane = 32;
inline constexpr int kBatch = 8;  // vectors a lane has in flight
inline constexpr int kBatches = kVectorsPerLane / kBatch;  // a lane's vectors come in kBatches batches of kBatch
inline constexpr int kRowThreads = 256;  // the second kernel's (row_pass's) block

template <class T>
struct Shape {
  static constexpr int E = 16 / static_cast<int>(sizeof(T));
  static constexpr std::int64_t G = static_cast<std::int64_t>(kLanes) * kVectorsPerLane * E;
};

// Segments of a row of K weights.
template <class T>
constexpr std::int64_t segments_of(std::int64_t k) {
  return (k + Shape<T>::G - 1) / Shape<T>::G;
}

// Vectors of a row of K weights.
template <class T>
constexpr std::int64_t vectors_of(std::int64_t k) {
  return (k + Shape<T>::E - 1) / Shape<T>::E;
}

// Whether rows of K weights give a lane more than one batch of vectors in
// their first segment: only there do a lane's marks save a draw any loads.
template <class T>
WARPSIM_HD constexpr bool past_a_batch(std::int64_t k) {
  return k > static_cast<std::int64_t>(kBatch) * kLanes * Shape<T>::E;
}

// The marks a lane keeps a segment for a block a row's draws a lane a
// draw: one a batch but the last past a batch (lane_sum_marked), one a
// vector but the first for a row of 2 to 8 vectors a lane
// (lane_sum_vector_marked), none for a vector a lane.
template <class T>
WARPSIM_HD constexpr int marks_a_lane(std::int64_t k) {
  return past_a_batch<T>(k) ? kBatches - 1 : k > static_cast<std::int64_t>(kLanes) * Shape<T>::E ? kBatch - 1 : 0;
}

// Draws a warp walks together (SumTreePlan::warp_walk): a round of at most
// this many draws; more go a lane a draw.
inline constexpr int kWarpWalkDraws = 4;

// BlockPerRow: the longest row kept in shared memory (keep_rows 1), in
// segments (16 KB each).
inline constexpr int kKeptSegments = 8;

// RowPass: its warps, and the most draws a block of it spreads over them
// (one walked round of 4 a warp).
inline constexpr int kRowWarps = kRowThreads / kLanes;
inline constexpr int kRowWarpDraws = kRowWarps * kWarpWalkDraws;
// Each of a row's blocks (row_blocks) makes this many of its draws (the
// last block the rest).
WARPSIM_HD constexpr int row_chunk(int draws, int blocks) { return (draws + blocks - 1) / blocks; }

// WarpRowPass: rows of up to this many segments.
inline constexpr int kWarpRowSegments = 256;

// ResidentPass: rows of up to kResidentSegments segments (the tree: 8 KB),
// up to kResidentDraws draws a row (each block descends them all), a block
// of 1 or kResidentWarps warps (one a scheduler).
inline constexpr int kResidentSegments = 512;
inline constexpr int kResidentDraws = 64;
inline constexpr int kResidentWarps = 4;

// ClusterPass: a cluster of at most kClusterBlocks blocks (the portable
// cluster size) of at most kClusterWarps warps, a warp a segment.
inline constexpr int kClusterBlocks = 8;
inline constexpr int kClusterWarps = 8;
inline constexpr int kClusterSegments = kClusterBlocks * kClusterWarps;
inline constexpr int kClusterDraws = 64;  // every block descends them all

// RowPass after a segment pass that keeps its lanes' marks: from this many
// draws a segment (docs/perf/sum-tree-plan.md, "Segment marks").
inline constexpr std::int64_t kMarkedDraws = 4;

// Whether the segment pass keeps its lanes' marks under plan `p`: for
// RowPass with its draws a lane a draw (not walked, or more than 4 a warp),
// rows of more than a batch a lane, and at least kMarkedDraws draws a
// segment. The launch and the plan (a pass that keeps marks does not read
// once) both ask this.
template <class T>
bool segment_keeps_marks(const SumTreePlan& p, std::int64_t k, std::int64_t segments, int draws) {
  if (p.layout != SumTreePlan::Layout::Segmented || p.second_pass != SumTreePlan::SecondPass::RowPass) return false;
  const int chunk = row_chunk(draws, p.row_blocks);  // (the second kernel's draws a block)
  return (p.warp_walk != 1 || chunk > kRowWarps * kWarpWalkDraws) && past_a_batch<T>(k) &&
         static_cast<std::int64_t>(draws) >= kMarkedDraws * segments;
}

}  // namespace warpsim::gpu::sum_tree
