// The sum-tree plan's thresholds: where one layout measured faster than
// another. gpu/sum_tree/plan.cpp applies them in order; each names the
// section of docs/perf/sum-tree-plan.md that holds its runs and figures.
// Changing one changes which kernel runs, never a draw.
#pragma once

#include <cstdint>

#include "gpu/sum_tree/shape.hpp"

namespace warpsim::gpu::sum_tree {

// --- Short rows, S draws: lanes a row or a thread a row ("Lanes a row's rounds")

// S draws a row go lanes a row while a row's G lanes make them in at most
// kLanesRounds rounds of G (one round where a draw shuffles more than
// kLanesShuffles values across lanes: fp32 rows of 8 vectors a lane); up to
// kLanesRoundsMany rounds where a lane holds 2 or more vectors and the rows
// give every multiprocessor kLanesFullWarps warps; up to kLanesRoundsRows
// rounds of rows on 16 or 32 lanes whose one step of rows gives every
// multiprocessor kLanesStepWarps warps.
inline constexpr int kLanesRounds = 8;
inline constexpr int kLanesRoundsMany = 32;
inline constexpr int kLanesShuffles = 32;
inline constexpr int kLanesFullWarps = 4;
inline constexpr int kLanesRoundsRows = 64;
inline constexpr int kLanesStepWarps = 12;

// The warps lanes a row takes for M rows on g lanes, `steps` steps of
// kLanes / g rows a warp (a batch of NV-vector lanes: kBatch / NV steps).
constexpr std::int64_t lanes_warps(std::int64_t m, std::int64_t g, std::int64_t steps) {
  const std::int64_t rows_a_warp = (kLanes / g) * steps;
  return (m + rows_a_warp - 1) / rows_a_warp;
}

// Whether lanes a row's S > 1 draws take one step of rows a warp, not a
// batch of steps: where the batch's grid would hold fewer than 32 warps a
// multiprocessor ("Lanes a row's one step").
constexpr bool lanes_one_step(int sms, std::int64_t m, int g, int nv) { return lanes_warps(m, g, kBatch / nv) < 32LL * sms; }

// The lanes a row lanes_pass gives rows of `vectors` vectors (a power of two
// up to 32), and the vectors a lane holds there (1, 2, 4 or 8).
constexpr std::int64_t lanes_of(std::int64_t vectors) {
  std::int64_t g = 1;
  while (g < vectors && g < kLanes) g *= 2;
  return g;
}
constexpr std::int64_t lane_vectors_of(std::int64_t vectors) {
  std::int64_t nv = 1;
  while (nv * kLanes < vectors) nv *= 2;
  return nv;
}

// Whether S draws of M rows of `vectors` vectors go lanes a row.
template <class T>
constexpr bool s_draws_on_lanes(int sms, int m, std::int64_t vectors, int draws) {
  if (vectors > kLanes * kBatch) return false;
  const std::int64_t g = lanes_of(vectors), nv = lane_vectors_of(vectors);
  const std::int64_t rounds = (draws + g - 1) / g;
  const bool shuffles = nv * (Shape<T>::E + 2) <= kLanesShuffles;
  if (rounds <= (shuffles ? kLanesRounds : 1)) return true;
  const std::int64_t warps = lanes_warps(m, g, kBatch / nv);
  // rows of 1-2 vectors with up to 32 draws and a warp for every multiprocessor
  if (draws <= kLanes && warps >= sms) return true;
  if (rounds <= kLanesRoundsMany && nv >= 2 && shuffles && warps >= static_cast<std::int64_t>(kLanesFullWarps) * sms) return true;
  return rounds <= kLanesRoundsRows && g >= kLanes / 2 && shuffles && lanes_warps(m, g, 1) >= static_cast<std::int64_t>(kLanesStepWarps) * sms;
}

// Whether S > 1 draws of M rows go a thread a row: up to 4 draws of rows of
// 2-63 vectors (fp32; 2-64 fp64), up to 8 of 16-32 vectors; rows of two
// vectors a lane (33-64) only where they give every multiprocessor 32
// warps ("A thread a row's draws").
template <class T>
constexpr bool s_draws_on_thread(int sms, int m, std::int64_t vectors, int draws) {
  if (vectors < 2 || vectors > 2 * kLanes) return false;
  if (sizeof(T) == 4 && vectors == 2 * kLanes) return false;  // (fp32 K = 253-256: lanes a row, every lane full)
  if (vectors > kLanes && static_cast<std::int64_t>(m) < 32LL * kLanes * sms) return false;
  return draws <= 4 || (draws <= 8 && vectors >= 16 && vectors <= kLanes);
}

// --- Longer rows: a block a row or segmented ("A block a row or segmented")

// The longest row a block a row takes whatever M and S, in segments.
inline constexpr int kBlockRowSegments = 16;
// A block a row spreads a few rows' many draws over blocks a row until the
// grid holds this many warps a multiprocessor ("A block a row's blocks").
inline constexpr std::int64_t kBlockRowFillWarps = 16;

// --- Segmented: how a row is finished

// A grid of at most kFewWarps warps a multiprocessor (M x segments) is
// latency-bound: the resident pass, or a warp a row for one draw ("Few
// warps").
inline constexpr int kFewWarps = 4;

// ResidentPass for rows longer than lanes a row hold, up to 512 segments
// and 64 draws, at most 4 draws a segment, where the grid is at most
// kFewWarps warps a multiprocessor (one draw a row, or one row), or a block
// a multiprocessor (S > 1 draws of several rows) ("The resident pass").
constexpr bool resident_chosen(int sms, int m, std::int64_t segments, int draws) {
  const std::int64_t warps = static_cast<std::int64_t>(m) * segments;
  return segments <= kResidentSegments && draws <= kResidentDraws && draws <= 4 * segments &&
         warps <= static_cast<std::int64_t>(draws == 1 || m == 1 ? kFewWarps : 1) * sms;
}
// Its warps a block: kResidentWarps where every block has a multiprocessor
// of its own, else 1 ("The resident pass's warps").
constexpr int resident_warps(int sms, std::int64_t blocks) { return blocks <= sms ? kResidentWarps : 1; }

// ClusterPass for rows of 9-64 segments with at most 64 draws where the
// grid has at least 32 warps a multiprocessor or a row 16 draws or more;
// on fast memory not for one draw of rows past kBlockRowSegments below 8
// rows a multiprocessor, nor for up to kClusterReadOnceDraws draws of rows
// past a block a row's at most 4 rows a multiprocessor where the matrix is
// read once ("A row's cluster", "Fast memory").
inline constexpr int kClusterReadOnceDraws = 16;
constexpr bool cluster_chosen(int sms, bool fast_memory, bool read_once, int m, std::int64_t segments, int draws) {
  if (fast_memory && draws == 1 && segments > kBlockRowSegments && static_cast<std::int64_t>(m) < 8LL * sms) return false;
  if (fast_memory && read_once && draws <= kClusterReadOnceDraws && segments > kLanes && static_cast<std::int64_t>(m) <= 4LL * sms) return false;
  return segments > 8 && segments <= kClusterSegments && draws <= kClusterDraws &&
         (static_cast<std::int64_t>(m) * segments >= 32LL * sms || draws >= 16);
}

// WarpRowPass, not RowPass, for one draw a row of up to 256 segments where
// the grid has at most kFewWarps warps a multiprocessor or M is more than
// kWarpRowRows rows a multiprocessor (kWarpRowRowsFast on fast memory)
// ("A warp a row").
inline constexpr int kWarpRowRows = 3;
inline constexpr int kWarpRowRowsFast = 2;

}  // namespace warpsim::gpu::sum_tree
