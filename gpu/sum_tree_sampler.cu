// The sum-tree draw on the GPU (gpu/sum_tree_sampler.hpp), level by level as
// oracle/sum_tree.hpp defines it; the two share nothing but rng/, so the tree's
// shape is written here again:
//   vector   E = 16 / sizeof(T) consecutive weights, one 16-byte load:
//            (x0 + x1) + (x2 + x3), or x0 + x1
//   lane     lane l of a segment: vectors l, 32 + l, ..., 992 + l, summed in
//            that order from 0
//   segment  G = 1,024 E weights: the 32 lanes' sums by pairs (the warp's
//            xor butterfly)
//   row      the segments' sums by pairs, padded to a power of two P
// and the draw goes down from the root: left if t < left or the right sum
// is 0, else right with t - left. Every addition, subtraction and product is
// written as __dadd_rn, __dsub_rn, __dmul_rn: rounded once, never contracted
// into a fused multiply-add (the oracle rounds each too). Draw s of row r
// takes u = rng::uniform<double>(seed, r, s), made by RowUniforms (the same
// bits, its Philox's round keys made once a kernel), and t = u x the root.
//
// The kernels (the layouts of SumTreePlan), a file each under gpu/sum_tree/
// (NAME.cuh), with the parts they share in gpu/sum_tree/tree.cuh; this file
// is the plan and the launches:
//   lanes_pass    a row on G lanes (G = 1 .. 32 by K), a warp's rows read as
//                 consecutive bytes, the row's tree by its lanes' butterfly,
//                 the draw found by the lane whose turns all lead to it;
//                 S draws G at a time, lane i following draw i's path by
//                 shuffles
//   thread_pass   a thread a row (rows of at most two vectors a lane): the
//                 rows copied to shared memory, each thread's tree over the
//                 lanes its row uses in registers, level by level, then its
//                 draws
//   rows_pass     a warp 32 rows (rows of one segment), summed one after
//                 another, then the 32 rows' draws at once, a lane a row
//   segment_pass  a warp a segment of the M x ceil(K / G) segments: its
//                 lanes' sums to lane_sums and the segment's to seg_sums;
//                 or, asked (SumTreePlan::second_pass 0), where a row has at
//                 most 32 segments its last warp to finish (a ticket a row)
//                 builds the row's tree by a butterfly and draws (walking
//                 up to 4 draws as a warp)
//   block_pass    a block a row (up to 32 segments, a warp a segment): the
//                 row's sums in shared memory, then its draws
//   row_pass      the second kernel: a block a row (or several, sharing a
//                 row's many draws), the row's tree in shared
//                 memory from its segments' sums, then each draw, a thread a
//                 draw, down the row tree, the chosen segment's lanes (from
//                 lane_sums, staged in shared memory by the draw's warp), and
//                 the chosen lane's vectors (read again)
//   warp_row_pass the same for many rows of up to 256 segments with up to 4
//                 draws each: a warp a row, its tree in the warp's shared
//                 memory, its draws walked by the warp
//   cluster_pass  one kernel for many rows of up to 64 segments: a row's
//                 blocks a thread-block cluster, a warp a segment; its
//                 segments' sums read across the cluster's shared memory,
//                 and each block finishes the draws that land in its own
//                 segments, from its lanes' marks in shared memory
//   resident_pass one kernel for few rows: a block a segment (1 or 4 warps
//                 sharing its copy, its vectors' sums and its draws), the
//                 whole grid resident at once (a cooperative launch); each
//                 block posts its segment's sum, reads its row's once all
//                 are posted, builds the row's tree, and finishes the draws
//                 that land in its own segment, kept in shared memory
#include <cooperative_groups.h>
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cuda/std/bit>
#include <cuda/std/type_traits>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/dependent_launch.cuh"
#include "gpu/detail/philox_keyed.hpp"
#include "gpu/sum_tree_sampler.hpp"
#include "rng/philox_uniform.hpp"

#include "gpu/sum_tree/tree.cuh"
#include "gpu/sum_tree/segment_pass.cuh"
#include "gpu/sum_tree/row_pass.cuh"
#include "gpu/sum_tree/warp_row_pass.cuh"
#include "gpu/sum_tree/block_pass.cuh"
#include "gpu/sum_tree/cluster_pass.cuh"
#include "gpu/sum_tree/resident_pass.cuh"
#include "gpu/sum_tree/rows_pass.cuh"
#include "gpu/sum_tree/thread_pass.cuh"
#include "gpu/sum_tree/lanes_pass.cuh"

namespace warpsim::gpu {

namespace {

// S draws a row go lanes a row while a row's lanes make them in at most
// kLanesRounds rounds of G (one round where a draw's shuffles across
// lanes, below, are more than kLanesShuffles: fp32 rows of 8 vectors a
// lane, 48 shuffles a draw; H100, rows-trials/h100-lanes-rounds/, forced
// beside a block a row: fp32 (2,048, 1,024, S = 64), 2 rounds, 16.7 us
// against 13.1, (4,096, 1,024, 256) 86.1 against 38.7, (256, 1,024, 64)
// 9.9 against 9.2; but one round, (2,048, 1,024, 32), 8.3 against 10.4,
// (16,384, 1,024, 32) 30.7 against 34.6; fp64's 8 vectors a lane, 32
// shuffles, stay: (4,096, 512, 256) 24.5 against 33.3); more wait on one
// row's lanes, and a block a row spreads them over its warps and blocks
// (fp32 (4,096, 256, S = 256), 8 rounds: 0.027 ms lanes a row, 0.043 a
// block a row; (256, 64, 4,096), 256
// rounds: 0.844 against 0.113; docs/PERF.md). Up to kLanesRoundsMany
// rounds where a lane holds 2 or more of its row's vectors, a draw's
// shuffles across lanes (its chosen lane's NV vectors and their sums,
// NV (E + 2)) are at most kLanesShuffles, and the rows fill the GPU
// (at least kLanesFullWarps warps a multiprocessor): there a block a row's
// draws, each a descent through shared memory and a lane's walk through
// L1, cost more than the row's lanes' (H200, docs/PERF.md: fp32 (4,096,
// 256, S = 1,024), 32 rounds, 0.078 ms against 0.086; fp64 0.061 against
// 0.091; but (1,024, 256, 1,024), two warps a multiprocessor, 0.071
// against 0.029, and fp32 (8,192, 128, 512), a vector a lane, 0.073
// against 0.057; fp32 (4,096, 1,024, 512), 48 shuffles, 0.14 against
// 0.074). Since few rows' draws take one step of rows a warp
// (lanes_one_step), also up to kLanesRoundsRows rounds of rows on 16 or 32
// lanes, a vector a lane or more, where that step gives at least
// kLanesStepWarps warps a multiprocessor (H100, docs/PERF.md, forced
// beside a block a row: fp32 (4,096, 64, S = 1,024), 64 rounds, 2,048
// warps, 46.9 us against 57.6; (4,096, 128, 1,024) 46.7 against 59.2;
// (16,384, 64, 256) 43.2 against 57.2; fp64 (4,096, 64, 1,024) 42.3
// against 55.8; (2,048, 64, 1,024) 25.9 against 31.5; but at 512-1,024
// warps, fp32 (1,024, 64, 1,024) 30.9 against 20.1, (1,024, 128, 2,048)
// 37.0 against 32.9, (2,048, 64, 1,024) 34.3 against 32.9).
constexpr int kLanesRounds = 8;
constexpr int kLanesRoundsMany = 32;
constexpr int kLanesShuffles = 32;
constexpr int kLanesFullWarps = 4;
constexpr int kLanesRoundsRows = 64;
constexpr int kLanesStepWarps = 12;

// Whether lanes a row's S > 1 draws (the LanesDraws::Many kernel, S <= G
// too) take one step of R rows a warp, not a batch of vectors a lane's
// (kBatch / NV steps): where the batch's grid would hold fewer than 32 warps a
// multiprocessor, whose draws, each warp's rows one after another, are
// latency-bound (H100, ncu: fp32 (4,096, 256, S = 1,024) on 256 blocks of
// 4 warps, 0.32 waves, 12% of the warps a multiprocessor achieved, an
// instruction issued every 2.4 cycles a scheduler; docs/PERF.md).
// The warps lanes a row takes for M rows on g lanes, `steps` steps of
// kLanes / g rows a warp (a batch of NV-vector lanes: kBatch / NV steps).
constexpr std::int64_t lanes_warps(std::int64_t m, std::int64_t g, std::int64_t steps) {
  const std::int64_t rows_a_warp = (kLanes / g) * steps;
  return (m + rows_a_warp - 1) / rows_a_warp;
}

constexpr bool lanes_one_step(int sms, std::int64_t m, int g, int nv) { return lanes_warps(m, g, kBatch / nv) < 32LL * sms; }

// The lanes a row lanes_pass_for gives rows of `vectors` vectors.
constexpr std::int64_t lanes_of(std::int64_t vectors) {
  std::int64_t g = 1;
  while (g < vectors && g < kLanes) g *= 2;
  return g;
}

// The vectors a lane holds there (NV: 1, 2, 4 or 8).
constexpr std::int64_t lane_vectors_of(std::int64_t vectors) {
  std::int64_t nv = 1;
  while (nv * kLanes < vectors) nv *= 2;
  return nv;
}

// Whether S draws of M rows of `vectors` vectors go lanes a row (above).
template <class T>
constexpr bool s_draws_on_lanes(int sms, int m, std::int64_t vectors, int draws) {
  if (vectors > kLanes * kBatch) return false;
  const std::int64_t g = lanes_of(vectors), nv = lane_vectors_of(vectors);
  const std::int64_t rounds = (draws + g - 1) / g;
  const bool shuffles = nv * (Shape<T>::E + 2) <= kLanesShuffles;
  if (rounds <= (shuffles ? kLanesRounds : 1)) return true;
  const std::int64_t warps = lanes_warps(m, g, kBatch / nv);
  // Rows of 1-2 vectors with up to 32 draws (16-32 rounds) and a warp for
  // every multiprocessor: a block a row would be a block a round of draws,
  // and the grid's blocks the time (H100, rows-trials/h100-short-s/: fp32
  // (33,554,432, 8, S = 32) 13.8 ms lanes a row against 40.4 a block a row;
  // (65,536, 8, 32) 0.045 against 0.086).
  if (draws <= kLanes && warps >= sms) return true;
  if (rounds <= kLanesRoundsMany && nv >= 2 && shuffles && warps >= static_cast<std::int64_t>(kLanesFullWarps) * sms) return true;
  return rounds <= kLanesRoundsRows && g >= kLanes / 2 && shuffles && lanes_warps(m, g, 1) >= static_cast<std::int64_t>(kLanesStepWarps) * sms;
}

// Whether S > 1 draws of M rows of K weights (`vectors` vectors) go a
// thread a row: each thread's draws one after another over its own tree,
// where lanes a row make them across a row's lanes by shuffles, a round of
// draws a step. A thread a row measured faster for up to 4 draws a row of
// 2-63 vectors (fp32; 2-64 fp64), and up to 8 of 16-32 vectors; rows of
// two vectors a lane (33-64) only where they give every multiprocessor 32
// warps (H100, rows-trials/h100-short-s/, M x K = 2^28 and M = 65,536:
// fp32 (4,194,304, 64, S = 4) 0.401 ms against 0.582, (16,777,216, 16, 2)
// 0.395 against 0.560, (2,097,152, 128, 8) 0.468 against 0.701; fp64
// (4,194,304, 64, 8) 0.832 against 1.247; but fp32 (16,777,216, 16, 8)
// 1.466 against 1.086, (4,194,304, 64, 16) 0.936 against 0.910, and
// (65,536, 200, 4) 0.0404 against 0.0345).
template <class T>
constexpr bool s_draws_on_thread(int sms, int m, std::int64_t vectors, int draws) {
  if (vectors < 2 || vectors > 2 * kLanes) return false;
  if (sizeof(T) == 4 && vectors == 2 * kLanes) return false;  // (fp32 K = 253-256: lanes a row, every lane full)
  if (vectors > kLanes && static_cast<std::int64_t>(m) < 32LL * kLanes * sms) return false;
  return draws <= 4 || (draws <= 8 && vectors >= 16 && vectors <= kLanes);
}

template <class T, int G, int NV>
void launch_lanes_pass(const T* w, int m, std::int64_t k, std::uint64_t seed, int draws, int* out, cudaStream_t stream, int sms) {
  // (S <= G draws too, on the Many kernel's one round: the Round kernel's
  // batch of steps took fp32 (1,024, 128, S = 32) 12.3 us against 6.5, (100,
  // 64, 16) 11.5 against 6.9; H100, rows-trials/h100-lanes-rounds/)
  const bool one_step = draws > 1 && lanes_one_step(sms, m, G, NV);
  const std::int64_t rows_a_block = static_cast<std::int64_t>(kLanes / G) * (one_step ? 1 : kBatch / NV) * kLanesWarps;
  const auto pick = [&](auto aligned) {
    constexpr bool kAligned = decltype(aligned)::value;
    auto kernel = draws <= G ? lanes_pass<T, G, NV, LanesDraws::Round, kAligned> : lanes_pass<T, G, NV, LanesDraws::Many, kAligned>;
    if (one_step) kernel = lanes_pass<T, G, NV, LanesDraws::Many, kAligned, 1>;
    if (draws == 1) {
      if constexpr (lanes_one_apart<T>(G, NV)) {
        kernel = lanes_pass<T, G, NV, LanesDraws::One, kAligned>;
      } else {
        kernel = lanes_pass<T, G, NV, LanesDraws::Both, kAligned>;
      }
    }
    return kernel;
  };
  // Every row starts on 16 bytes: the matrix does and K weights are 16 bytes' multiple.
  const bool aligned = reinterpret_cast<std::uintptr_t>(w) % 16 == 0 && (k * static_cast<std::int64_t>(sizeof(T))) % 16 == 0;
  const auto kernel = aligned ? pick(cuda::std::true_type{}) : pick(cuda::std::false_type{});
  detail::launch(kernel, dim3(static_cast<unsigned>((m + rows_a_block - 1) / rows_a_block)), dim3(kLanesWarps * kLanes), 0,
                 stream, false, w, m, k, seed, draws, out);
}

// The lanes a row and vectors a lane for rows of K weights (K <= 256 E).
template <class T>
void lanes_pass_for(const T* w, int m, std::int64_t k, std::uint64_t seed, int draws, int* out, cudaStream_t stream, int sms) {
  const std::int64_t vectors = (k + Shape<T>::E - 1) / Shape<T>::E;
  if (vectors <= 1) return launch_lanes_pass<T, 1, 1>(w, m, k, seed, draws, out, stream, sms);
  if (vectors <= 2) return launch_lanes_pass<T, 2, 1>(w, m, k, seed, draws, out, stream, sms);
  if (vectors <= 4) return launch_lanes_pass<T, 4, 1>(w, m, k, seed, draws, out, stream, sms);
  if (vectors <= 8) return launch_lanes_pass<T, 8, 1>(w, m, k, seed, draws, out, stream, sms);
  if (vectors <= 16) return launch_lanes_pass<T, 16, 1>(w, m, k, seed, draws, out, stream, sms);
  if (vectors <= 32) return launch_lanes_pass<T, 32, 1>(w, m, k, seed, draws, out, stream, sms);
  if (vectors <= 64) return launch_lanes_pass<T, 32, 2>(w, m, k, seed, draws, out, stream, sms);
  if (vectors <= 128) return launch_lanes_pass<T, 32, 4>(w, m, k, seed, draws, out, stream, sms);
  return launch_lanes_pass<T, 32, 8>(w, m, k, seed, draws, out, stream, sms);
}


// Whether a block a row with one block a row takes the kernel that can
// split a row's draws over blocks (the same draws, scheduled differently):
// where it measured faster. One H200 call, two rounds each
// (docs/PERF.md): fp64 at every point 1-9% faster ((1,024, 32,768) 0.0797
// against 0.0766 ms), fp32 with rows kept or walked 3-9% ((1, 32,768)
// 0.0133 against 0.0122), fp32 with neither 2-15% slower ((65,536, 4,096)
// 0.264 against 0.302).
template <class T>
constexpr bool block_split_compiled(bool keep, bool walk) {
  return sizeof(T) == 8 || keep || walk;
}

// block_pass's dynamic shared memory: a kept row, or the lanes' marks
// where its draws go a lane a draw over rows of more than a vector a lane
// (marks_a_lane; a row of one batch a lane is one segment: 1,824 bytes
// more a 32-thread block, whose occupancy its registers bound).
template <class T>
std::size_t block_shared_bytes(const SumTreePlan& p, std::int64_t k, std::int64_t segments) {
  if (p.keep_rows == 1) return static_cast<std::size_t>(segments) * Shape<T>::G * sizeof(T);
  if (p.warp_walk == 1 || marks_a_lane<T>(k) == 0) return 0;
  return static_cast<std::size_t>(segments) * (static_cast<std::size_t>(marks_a_lane<T>(k)) * kLanes * sizeof(double) + kLanes);
}

// The block a row kernel for a plan: rows kept or not, at most 8 segments
// or 32, warps walking draws or not, a row's draws over blocks or not.
template <class T, bool kSpread>
auto block_pass_for(const SumTreePlan& p, std::int64_t segments) {
  const bool walk = p.warp_walk == 1;
  return p.keep_rows == 1 ? (walk ? block_pass<T, kKeptSegments, true, true, kSpread> : block_pass<T, kKeptSegments, true, false, kSpread>)
         : segments <= 8  ? (walk ? block_pass<T, 8, false, true, kSpread> : block_pass<T, 8, false, false, kSpread>)
                          : (walk ? block_pass<T, kLanes, false, true, kSpread> : block_pass<T, kLanes, false, false, kSpread>);
}

}  // namespace

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
             (second_pass == 2  ? ", then a warp a row"
              : second_pass == 3 ? ", resident: each draws what lands in its segment"
              : second_pass == 4 ? ", a row's blocks a cluster"
              : second_pass != 1 ? ""
              : row_blocks > 1   ? ", then " + std::to_string(row_blocks) + " blocks a row"
                                 : ", then a block a row") +
             (warp_walk == 1 ? ", warps walk draws" : "") + (read_once == 1 ? ", read once" : "");
    default: return "auto";
  }
}

template <class T>
std::size_t SumTreeSampler<T>::max_k() {
  return static_cast<std::size_t>(8192) * static_cast<std::size_t>(Shape<T>::G);  // a tree of 2 x 8,192 doubles: 128 KB
}

template <class T>
std::int64_t SumTreeSampler<T>::lanes_per_row_max_k() {
  return kLanes * kBatch * Shape<T>::E;  // eight vectors a lane: 1,024 fp32, 512 fp64
}

template <class T>
std::int64_t SumTreeSampler<T>::thread_per_row_max_k() {
  return 2 * kLanes * Shape<T>::E;  // two vectors a lane: 256 fp32, 128 fp64 (docs/PERF.md)
}

PlanDevice PlanDevice::current() { return {multiprocessors(), gpu::memory_gbs(), gpu::l2_bytes()}; }

template <class T>
SumTreePlan SumTreeSampler<T>::plan(int m, std::int64_t k, const SumTreePlan& ask, int draws) {
  return plan_for(PlanDevice::current(), m, k, ask, draws);
}

template <class T>
SumTreePlan SumTreeSampler<T>::plan_for(int sms, int m, std::int64_t k, const SumTreePlan& ask, int draws) {
  return plan_for(PlanDevice{sms}, m, k, ask, draws);
}

template <class T>
SumTreePlan SumTreeSampler<T>::plan_for(const PlanDevice& device, int m, std::int64_t k, const SumTreePlan& ask, int draws) {
  // The pass that only sums reads a matrix larger than L2 (and at most 32
  // of them) with loads L2 evicts first, so that the segments' and lanes'
  // sums it writes are still there for the second kernel, whose chain of
  // trips through them (the segments' sums, a segment's lane sums, a lane's
  // vectors) is what these points spend past the read: 5.5-6.5 us at 256
  // MB on an H200, where the second kernel launched but returning at once
  // cost nothing (rows-trials/h200-second-kernel-chain/). Forced against
  // the plan as before, four rounds (rows-trials/h200-read-once/):
  // fp64 (256, 131,072) 76.8 -> 73.8 us, (32, 1,048,576) 76.8 -> 73.1,
  // (64, 1,048,576) 139.9 -> 132.2, fp32 (64, 1,048,576) 77.3 -> 75.1,
  // (1, 16,777,216) 34.6 -> 33.7; 1 GB 0.98-0.99x. Not a matrix L2 holds,
  // whose next call reads it from there (fp32 (64, 131,072), 32 MB: 17.5
  // -> 22.8 us), nor 4-8 GB, where the evictions cost the stream 1.3-1.9%
  // (fp32 (1,024, 1,048,576) 1.027 -> 1.046 ms). The sums are the same.
  if (ask.read_once != -1 && ask.read_once != 0 && ask.read_once != 1) {
    throw std::invalid_argument("sum-tree draw: read_once is -1, 0 or 1 (" + std::to_string(ask.read_once) + " asked)");
  }
  SumTreePlan p = plan_layout(device, m, k, ask, draws);
  const std::int64_t segments = (k + Shape<T>::G - 1) / Shape<T>::G;
  const bool sums_only = p.layout == SumTreePlan::Layout::Segmented && (p.second_pass == 1 || p.second_pass == 2) &&
                         !segment_keeps_marks<T>(p, k, segments, draws);
  if (p.read_once == 1 && !sums_only) {
    throw std::invalid_argument(
        "sum-tree draw: only the pass that only sums, before a second kernel (Segmented, second_pass 1 or 2, not keeping its lanes' marks for "
        "S >= 4 draws a segment), reads once (" +
        p.describe() + ")");
  }
  if (p.read_once == -1) {
    const std::size_t bytes = static_cast<std::size_t>(m) * static_cast<std::size_t>(k) * sizeof(T);
    p.read_once = sums_only && device.read_once(bytes) ? 1 : 0;
  }
  return p;
}

template <class T>
SumTreePlan SumTreeSampler<T>::plan_layout(const PlanDevice& device, int m, std::int64_t k, const SumTreePlan& ask, int draws) {
  const int sms = device.sms;
  const bool fast = device.fast_memory();
  const bool once = device.read_once(static_cast<std::size_t>(m) * static_cast<std::size_t>(k) * sizeof(T));  // (a matrix past L2)
  if (sms < 1) throw std::invalid_argument("sum-tree draw: a device has at least one multiprocessor (" + std::to_string(sms) + " given)");
  if (m < 1 || k < 1) throw std::invalid_argument("sum-tree draw: M and K must be >= 1 (M = " + std::to_string(m) + ", K = " + std::to_string(k) + ")");
  if (draws < 1) throw std::invalid_argument("sum-tree draw: draws must be >= 1 (" + std::to_string(draws) + " asked)");
  if (static_cast<std::size_t>(k) > max_k()) {
    throw std::invalid_argument("sum-tree draw: rows of at most " + std::to_string(max_k()) + " weights (K = " + std::to_string(k) + ")");
  }
  using L = SumTreePlan::Layout;
  SumTreePlan p = ask;
  const std::int64_t segments = (k + Shape<T>::G - 1) / Shape<T>::G;
  if (p.layout == L::Auto) {
    // Lanes a row for one draw a row where it measured fastest (docs/PERF.md,
    // M x K = 2^28 on the H200): rows of 1-2 vectors (a warp holds 16 or
    // more rows at once), rows that fill a warp's lanes with two fp32
    // vectors each (64), and rows of 65-256 vectors, whose lanes each sum
    // several vectors. Rows of 3-64 vectors go a thread a row: a warp-wide
    // tree per row costs more than each thread's own, which keeps its
    // tree's levels, over the lanes its rows use, in registers
    // (rows-trials/h200-thread-used/: fp32 K = 16 0.270 ms a thread a row,
    // 0.353 lanes a row; K = 32 0.277 against 0.370; K = 128 0.269 against
    // 0.454; fp64 K = 8 0.523 against 0.592; rows-trials/h200-thread-two-
    // vectors/: fp32 K = 200 0.325 against 0.437, fp64 K = 100 0.523
    // against 0.714, K = 128 0.521 against 0.542; but fp32 K = 256, 64
    // vectors, 0.346 against 0.315, K = 8, 2 vectors, 0.370 against 0.365,
    // and K = 4 0.722 against 0.415). S draws a row: a thread a row for
    // few draws of rows it holds (s_draws_on_thread); else lanes a row, G
    // draws at a time, for rows they hold (256 vectors) while G lanes make
    // them in at most kLanesRounds rounds (fp32 (262,144, 1,024, S = 8):
    // 0.290 ms against 0.368 a block a row), or in up to kLanesRoundsMany
    // where a lane holds several vectors and the rows fill the GPU, or up
    // to 32 draws of rows of 1-2 vectors with a warp a multiprocessor
    // (s_draws_on_lanes); more go a block a row, spread over blocks
    // (below).
    const std::int64_t vectors = (k + Shape<T>::E - 1) / Shape<T>::E;
    const bool full_lanes = sizeof(T) == 4 && vectors == 2 * kLanes;  // (fp32 K = 253-256: every lane two vectors)
    const bool thread_s = draws > 1 && s_draws_on_thread<T>(sms, m, vectors, draws);
    const bool lanes = draws == 1 ? vectors <= 2 || full_lanes || (vectors > 2 * kLanes && vectors <= 256)
                                  : !thread_s && s_draws_on_lanes<T>(sms, m, vectors, draws);
    // Rows of up to 32 segments go a block a row (their sums stay in shared
    // memory) where a row is at most 16 segments (256 KB: one
    // multiprocessor reads it soon enough), or where a row has more draws
    // than its warps' lanes (spread over blocks: fp32 (1, 131,072, S =
    // 65,536) 0.045 ms against 0.093 segmented), or where every multiprocessor
    // has a row and either a row has more than 4 draws or there are 8 rows
    // a multiprocessor; other rows are spread a warp a segment over the
    // GPU, then drawn by a second kernel, whose warps walk up to 4 draws.
    // H200 (docs/PERF.md), one draw: fp32 (256, 131,072) 43.5-45.2 us
    // segmented against 48.9-50.2 a block a row, (1,024, 131,072)
    // 0.151-0.155 ms against 0.157-0.159 (four calls), but fp64 (2,048,
    // 65,536) 0.297 against 0.280; S = 64: fp32 (256, 131,072) 58.5 us a
    // block a row against 68.4-71.7. A warp 32 rows is taken only when
    // asked: it lost to a block a row for S draws of rows past lanes a
    // row's (fp32 (262,144, 1,024, S = 8): 0.68 against 0.37 ms).
    const bool block_row =
        segments <= kLanes && (segments <= kBlockRowSegments || draws > kLanes * segments ||
                               (m >= sms && (draws > kWarpWalkDraws || static_cast<std::int64_t>(m) >= 8LL * sms)));
    // Few rows longer than lanes a row hold, with few draws: the resident
    // pass (Segmented, second_pass 3; resident_chosen).
    const bool resident = k > lanes_per_row_max_k() && resident_chosen(sms, m, segments, draws);
    // Else many rows of 9-64 segments, or few with 16-64 draws: a row's
    // cluster (Segmented, second_pass 4; cluster_chosen).
    const bool cluster = k > lanes_per_row_max_k() && cluster_chosen(sms, fast, once, m, segments, draws);
    p.layout = lanes                                                   ? L::LanesPerRow
               : (draws == 1 && k <= thread_per_row_max_k()) || thread_s ? L::ThreadPerRow
               : resident || cluster || !block_row                     ? L::Segmented
                                                                       : L::BlockPerRow;
  }
  if (p.layout == L::WarpPerRow && segments != 1) {
    throw std::invalid_argument("sum-tree draw: a warp 32 rows holds rows of at most " + std::to_string(Shape<T>::G) + " weights (K = " +
                                std::to_string(k) + ")");
  }
  if (p.layout == L::ThreadPerRow && k > thread_per_row_max_k()) {
    throw std::invalid_argument("sum-tree draw: a thread a row holds rows of at most " + std::to_string(thread_per_row_max_k()) +
                                " weights (K = " + std::to_string(k) + ")");
  }
  if (p.layout == L::LanesPerRow && k > lanes_per_row_max_k()) {
    throw std::invalid_argument("sum-tree draw: lanes a row hold rows of at most " + std::to_string(lanes_per_row_max_k()) + " weights (K = " +
                                std::to_string(k) + ")");
  }
  if (p.layout == L::BlockPerRow && segments > kLanes) {
    throw std::invalid_argument("sum-tree draw: a block a row holds rows of at most " + std::to_string(kLanes * Shape<T>::G) + " weights (K = " +
                                std::to_string(k) + ")");
  }
  if (p.layout == L::BlockPerRow) {
    if (p.keep_rows == 1 && segments > kKeptSegments) {
      throw std::invalid_argument("sum-tree draw: a block a row keeps rows of at most " + std::to_string(kKeptSegments * Shape<T>::G) +
                                  " weights in shared memory (K = " + std::to_string(k) + ")");
    }
    if (p.keep_rows != -1 && p.keep_rows != 0 && p.keep_rows != 1) {
      throw std::invalid_argument("sum-tree draw: keep_rows must be -1, 0 or 1 (" + std::to_string(p.keep_rows) + " asked)");
    }
  } else {
    p.keep_rows = -1;
  }
  if (p.layout != L::Segmented) p.second_pass = -1;  // (knobs the layout has not)
  if (p.layout != L::Segmented && p.layout != L::BlockPerRow) p.row_blocks = 0;
  if (p.row_blocks < 0 || p.row_blocks > draws) {
    throw std::invalid_argument("sum-tree draw: row_blocks must be 0 (plan() chooses) or 1 to the draws a row, " + std::to_string(draws) +
                                " (" + std::to_string(p.row_blocks) + " asked)");
  }
  if (p.warp_walk != -1 && p.warp_walk != 0 && p.warp_walk != 1) {
    throw std::invalid_argument("sum-tree draw: warp_walk must be -1, 0 or 1 (" + std::to_string(p.warp_walk) + " asked)");
  }
  // A block a row: a lane a draw, from its lane's marks: it reads one
  // batch of 8 vectors in one round trip, as the walk reads its 32, and
  // forced side by side it was as fast or faster at every block-a-row
  // point measured, the walk's few rows and draws included (H100,
  // rows-trials/h100-lane-marks/ and rows-h100-lane-marks/extra_block.jsonl:
  // fp32 (1, 4,096) 10.7 us against 11.4 walked from a kept row, (1,024,
  // 4,096) 12.2 against 13.2 walked, (1, 4,096, S = 4) 10.9 against 14.3;
  // fp64 (1, 32,768) 11.5 against 11.9). Before the marks, warps walked a
  // block a row's draws where a row had at most 4 and M x segments was at
  // most 32 warps a multiprocessor. The second kernel's registers are the
  // same either way: it always walks (up to 32 draws a row spread over its
  // warps, at most 4 a warp; past that, the rounds of at most 4 draws that
  // are left) (docs/PERF.md).
  if (p.warp_walk == -1) p.warp_walk = p.layout != L::BlockPerRow ? 1 : 0;
  if (p.layout == L::BlockPerRow) {
    p.warps_per_block = 0;
    // Its blocks a row: a row's draws past a round of its warps' lanes are
    // spread over more blocks, each summing the row and making its share,
    // until the grid holds kBlockRowFillWarps warps a multiprocessor (at
    // least a round of draws a block): one row's draws no longer wait on
    // one block's warps. fp32 (1, 64, S = 65,536): 1.65 ms a block a row
    // (docs/PERF.md). Rows longer than a vector a lane, whose draws each
    // walk a batch of their lane's vectors, go over at least two blocks
    // where they have two rounds of draws or more, however many rows
    // (H100: fp32 (4,096, 4,096, S = 256) 120.0 us on one block a row,
    // 60.4 on two; fp64 135.2 against 82.7; fp32 (4,096, 1,024, 512) 72.4
    // against 65.7, fp64 70.1 against 62.3; fp64 (8,192, 1,024, 512) 119.2
    // against 113.1, but fp32 120.6 against 122.4).
    if (p.row_blocks == 0) {
      const std::int64_t most = (draws + kLanes * segments - 1) / (kLanes * segments);
      const std::int64_t fill = kBlockRowFillWarps * sms / (static_cast<std::int64_t>(m) * segments);
      std::int64_t blocks = std::clamp<std::int64_t>(fill, 1, most);
      if (k > kLanes * Shape<T>::E && most >= 2) blocks = std::max<std::int64_t>(blocks, 2);
      p.row_blocks = static_cast<int>(blocks);
    }
    p.row_blocks = row_chunk(draws, row_chunk(draws, p.row_blocks));  // (no block without draws)
    // Rows are not kept in shared memory unless asked: with its lane's
    // marks a draw reads one batch of its lane's vectors again, and that
    // measured faster than a kept row's draws wherever kept rows had been
    // chosen (few rows of up to 8 segments and more than a vector a lane,
    // a row's draws on one block: fp32 (1, 32,768) 11.8 us against 12.4
    // kept; fp64 (1, 4,096) 10.1 against 10.7; (100, 4,096, S = 32) 9.8
    // against 11.7; rows-trials/h100-lane-marks/, rows-h100-lane-marks/).
    if (p.keep_rows == -1) p.keep_rows = 0;
    return p;
  }
  if (p.layout == L::LanesPerRow || p.layout == L::ThreadPerRow || p.layout == L::WarpPerRow) {
    p.warps_per_block = 0;
    p.warp_walk = -1;
    return p;
  }
  if (p.warps_per_block == 0) {
    // The most warps a block (up to 8) that still leaves two blocks for
    // every multiprocessor: a short matrix is spread over the GPU.
    const std::int64_t warps = static_cast<std::int64_t>(m) * segments;
    const std::int64_t want = 2LL * sms;
    p.warps_per_block = 8;
    while (p.warps_per_block > 1 && warps / p.warps_per_block < want) p.warps_per_block /= 2;
  }
  if (p.warps_per_block != 1 && p.warps_per_block != 2 && p.warps_per_block != 4 && p.warps_per_block != 8) {
    throw std::invalid_argument("sum-tree draw: warps_per_block must be 1, 2, 4 or 8 (" + std::to_string(p.warps_per_block) + " asked)");
  }
  if (p.second_pass < -1 || p.second_pass > 4) {
    throw std::invalid_argument("sum-tree draw: second_pass must be -1, 0, 1, 2, 3 or 4 (" + std::to_string(p.second_pass) + " asked)");
  }
  // The resident pass where plan() may choose it (resident_chosen) and no
  // knob it has not was asked.
  if (p.second_pass == -1 && ask.warps_per_block <= 1 && ask.row_blocks <= 1 && ask.warp_walk == -1 && k > lanes_per_row_max_k() &&
      resident_chosen(sms, m, segments, draws)) {
    p.second_pass = 3;
  }
  // A row's cluster where plan() may choose it (cluster_chosen) and no knob
  // it has not was asked.
  if (p.second_pass == -1 && ask.warps_per_block == 0 && ask.row_blocks <= 1 && ask.warp_walk == -1 && k > lanes_per_row_max_k() &&
      cluster_chosen(sms, fast, once, m, segments, draws)) {
    p.second_pass = 4;
  }
  if (p.second_pass == 4) {
    if (segments > kClusterSegments) {
      throw std::invalid_argument("sum-tree draw: a row's cluster holds rows of at most " + std::to_string(kClusterSegments * Shape<T>::G) +
                                  " weights (K = " + std::to_string(k) + ")");
    }
    if (ask.warps_per_block == 0) p.warps_per_block = kClusterWarps;
    if ((segments + p.warps_per_block - 1) / p.warps_per_block > kClusterBlocks) {
      throw std::invalid_argument("sum-tree draw: a row's cluster is at most " + std::to_string(kClusterBlocks) + " blocks: " +
                                  std::to_string(segments) + " segments need more than " + std::to_string(p.warps_per_block) +
                                  " warps a block");
    }
    if (ask.warp_walk == 1) throw std::invalid_argument("sum-tree draw: a row's cluster makes its draws a lane a draw (warp_walk 1 asked)");
    if (p.row_blocks > 1) {
      throw std::invalid_argument("sum-tree draw: a row's cluster makes all its draws (row_blocks " + std::to_string(p.row_blocks) + " asked)");
    }
    p.warp_walk = 0;
    p.row_blocks = 0;
    return p;
  }
  if (p.second_pass == 3) {
    if (segments > kResidentSegments || draws > kResidentDraws) {
      throw std::invalid_argument("sum-tree draw: the resident pass draws at most " + std::to_string(kResidentDraws) + " draws a row of at most " +
                                  std::to_string(kResidentSegments * Shape<T>::G) + " weights (K = " + std::to_string(k) + ", S = " +
                                  std::to_string(draws) + ")");
    }
    if (p.row_blocks > 1) {
      throw std::invalid_argument("sum-tree draw: the resident pass makes a row's draws in its own warps (row_blocks " +
                                  std::to_string(p.row_blocks) + " asked)");
    }
    if (ask.warps_per_block != 0 && ask.warps_per_block != 1 && ask.warps_per_block != kResidentWarps) {
      throw std::invalid_argument("sum-tree draw: the resident pass runs a segment on 1 or 4 warps (warps_per_block " +
                                  std::to_string(ask.warps_per_block) + " asked)");
    }
    p.warps_per_block = ask.warps_per_block > 0 ? ask.warps_per_block : resident_warps(sms, static_cast<std::int64_t>(m) * segments);
    p.warp_walk = -1;
    p.row_blocks = 0;
    return p;
  }
  if (p.second_pass == 2 && (segments > kWarpRowSegments || draws > kWarpWalkDraws)) {
    throw std::invalid_argument("sum-tree draw: a warp a row draws at most " + std::to_string(kWarpWalkDraws) + " draws a row of at most " +
                                std::to_string(kWarpRowSegments * Shape<T>::G) + " weights (K = " + std::to_string(k) + ", S = " +
                                std::to_string(draws) + ")");
  }
  if (p.second_pass == 0 && segments > kLanes) {
    throw std::invalid_argument("sum-tree draw: a row's last warp draws for rows of at most " + std::to_string(kLanes * Shape<T>::G) +
                                " weights (K = " + std::to_string(k) + ")");
  }
  // One draw a row of up to 256 segments: a second kernel a warp a row
  // where the grid's warps (M x segments) are few, at most 4 a
  // multiprocessor (latency, not bandwidth), or where the rows are more
  // than a block a row's one round (three of its blocks a multiprocessor);
  // a block a row between, and for S > 1 (one warp walks up to 4 draws in
  // turn, where a block a row gives each its own warp). H100, forced
  // layouts side by side (rows-trials/h100-warp-row/, h100-warp-row-m/):
  // fp32 (1, 131,072) 11.6 and 13.5 us a warp a row against 12.5 and 15.5
  // a block a row and 13.0 and 14.8 with the row's last warp drawing in one
  // kernel; (16, 131,072) 12.0 and 12.3 against 13.2 and 13.2 (last warp
  // 13.3, 14.2); fp64 (1, 65,536) 10.9 and 10.8 against 12.4 and 13.5 (last
  // warp 11.9, 11.9); but fp32 (32, 131,072), 1,024 warps, 15.4 and 15.6
  // against 14.2 and 14.4, (256, 131,072) 59.6 against 57.2, fp64 (64,
  // 131,072) 37.5 against 33.8; and fp64 (1,024, 131,072) 0.377 ms against
  // 0.388, fp32 0.195 against 0.208. The last warp draws only where asked
  // (second_pass 0): a warp a row was as fast or faster wherever it ran.
  if (p.second_pass == -1) {
    const bool few = static_cast<std::int64_t>(m) * segments <= static_cast<std::int64_t>(kFewWarps) * sms;
    // (fast memory: past 2 rows a multiprocessor; H200, rows-h200-cluster-
    // sweep/: fp64 (320, 262,144) 0.176 ms against 0.177 a block a row,
    // (384, 262,144) 0.207 against 0.209, fp32 (320, 131,072) 56.1-56.2 us
    // against 56.8-57.0, but (256, 262,144) fp64 0.144 against 0.141)
    const bool warp_rows = draws == 1 && segments <= kWarpRowSegments && (few || m > (fast ? 2 : 3) * sms);
    p.second_pass = warp_rows ? 2 : 1;
  }
  if (p.second_pass == 2) {
    if (p.warp_walk == 0) throw std::invalid_argument("sum-tree draw: a warp a row walks its draws (warp_walk 0 asked)");
    if (p.row_blocks > 1) {
      throw std::invalid_argument("sum-tree draw: a warp a row makes all its draws (row_blocks " + std::to_string(p.row_blocks) + " asked)");
    }
    p.warp_walk = 1;
    p.row_blocks = 0;
    return p;
  }
  if (p.second_pass == 0) {
    // The last warp walks a round of up to 4 draws where asked or by
    // default; more go a lane a draw.
    if (p.warp_walk == -1 || draws > kWarpWalkDraws) p.warp_walk = draws <= kWarpWalkDraws ? 1 : 0;
    if (p.row_blocks > 1) {
      throw std::invalid_argument("sum-tree draw: a row's last warp makes all its draws (row_blocks " + std::to_string(p.row_blocks) +
                                  " asked)");
    }
    p.row_blocks = 0;
    return p;
  }
  // The second kernel's blocks a row: where its warps walk and M is below
  // the multiprocessors, at least one for every 32 draws (one walked round
  // of at most 4 a warp; two such rounds a warp measured slower than a lane
  // a draw), and up to one for every 8 (a draw a warp) while M x blocks is
  // at most the multiprocessors: a few rows' many draws are spread over the
  // GPU. With a row for every multiprocessor, one (fp64 (256, 131,072, S =
  // 64): 99.3 us one, 102.2 two; docs/PERF.md).
  // Past one wave of walked blocks (two a multiprocessor), a lane a draw
  // instead, a round of 256 draws a block: fp64 (1, 131,072, S = 65,536)
  // 0.035 ms over 256 blocks against 0.091 walked over 2,048; fp32 (1,
  // 1,048,576, 65,536) 0.036 against 0.096 (docs/PERF.md). Where asked to
  // walk, it walks.
  const std::int64_t walked_blocks = static_cast<std::int64_t>(m) * ((draws + kRowWarpDraws - 1) / kRowWarpDraws);
  if (p.row_blocks == 0 && ask.warp_walk == -1 && m < sms && walked_blocks > 2LL * sms) {
    p.warp_walk = 0;
    p.row_blocks = (draws + kRowThreads - 1) / kRowThreads;
  }
  if (p.row_blocks == 0) {
    if (p.warp_walk == 1 && m < sms) {
      const std::int64_t fewest = (draws + kRowWarpDraws - 1) / kRowWarpDraws, most = (draws + kRowWarps - 1) / kRowWarps;
      p.row_blocks = static_cast<int>(std::clamp<std::int64_t>(sms / m, fewest, most));
    } else {
      p.row_blocks = 1;
    }
  }
  p.row_blocks = row_chunk(draws, row_chunk(draws, p.row_blocks));  // (no block without draws)
  return p;
}

template <class T>
void SumTreeSampler<T>::draw(const T* weights, int m, std::int64_t k, std::uint64_t seed, int draws, int* out, cudaStream_t stream,
                             const SumTreePlan& ask) {
  const SumTreePlan p = plan(m, k, ask, draws);  // (throws on draws < 1)
  if (static_cast<std::int64_t>(m) * draws > 0x7fffffff) throw std::invalid_argument("sum-tree draw: M x draws past 2^31 - 1");
  using L = SumTreePlan::Layout;
  if (p.layout == L::LanesPerRow) return lanes_pass_for(weights, m, k, seed, draws, out, stream, multiprocessors());
  if (p.layout == L::ThreadPerRow) {
    const std::size_t smem = thread_pass_smem<T>(k);
    const std::int64_t vectors = (k + Shape<T>::E - 1) / Shape<T>::E;
    const auto kernel = vectors <= 2      ? thread_pass<T, 2>
                        : vectors <= 4    ? thread_pass<T, 4>
                        : vectors <= 8    ? thread_pass<T, 8>
                        : vectors <= 16   ? thread_pass<T, 16>
                        : vectors <= kLanes ? thread_pass<T, kLanes>
                                          : thread_pass<T, kLanes, 2>;
    allow_dynamic_shared(reinterpret_cast<const void*>(kernel), smem);
    detail::launch(kernel, dim3(static_cast<unsigned>((m + kThreadRows - 1) / kThreadRows)), dim3(kThreadRows), smem, stream, false,
                   weights, m, k, seed, draws, out);
    return;
  }
  if (p.layout == L::WarpPerRow) {
    const std::int64_t warps = (static_cast<std::int64_t>(m) + kLanes - 1) / kLanes;
    detail::launch(rows_pass<T>, dim3(static_cast<unsigned>((warps + kRowsWarps - 1) / kRowsWarps)), dim3(kRowsWarps * kLanes), 0, stream,
                   false, weights, m, k, seed, draws, out);
    return;
  }
  const std::int64_t segments = (k + Shape<T>::G - 1) / Shape<T>::G;
  if (p.layout == L::BlockPerRow) {
    const bool split = p.row_blocks > 1 || block_split_compiled<T>(p.keep_rows == 1, p.warp_walk == 1);
    const auto kernel = split ? block_pass_for<T, true>(p, segments) : block_pass_for<T, false>(p, segments);
    const std::size_t smem = block_shared_bytes<T>(p, k, segments);
    allow_dynamic_shared(reinterpret_cast<const void*>(kernel), smem);
    const std::int64_t grid = static_cast<std::int64_t>(m) * p.row_blocks;
    if (grid > 0x7fffffff) throw std::invalid_argument("sum-tree draw: M x a row's blocks past 2^31 - 1");
    detail::launch(kernel, dim3(static_cast<unsigned>(grid)), dim3(static_cast<unsigned>(segments) * kLanes), smem, stream, false, weights, k,
                   static_cast<int>(segments), seed, draws, row_chunk(draws, p.row_blocks), out);
    return;
  }
  const std::int64_t warps = static_cast<std::int64_t>(m) * segments;
  const std::int64_t blocks = (warps + p.warps_per_block - 1) / p.warps_per_block;
  if (blocks > 0x7fffffff) throw std::invalid_argument("sum-tree draw: too many segments for one grid");
  if (p.second_pass == 4) {
    const int cluster = static_cast<int>((segments + p.warps_per_block - 1) / p.warps_per_block);
    const std::int64_t grid = static_cast<std::int64_t>(m) * cluster;
    if (grid > 0x7fffffff) throw std::invalid_argument("sum-tree draw: M x a row's blocks past 2^31 - 1");
    const std::size_t smem = cluster_shared_bytes<T>(p.warps_per_block);
    allow_dynamic_shared(reinterpret_cast<const void*>(cluster_pass<T>), smem);
    const dim3 block(p.warps_per_block * kLanes);
    // Once a shape: whether the device holds such a cluster at all (a
    // launch it cannot hold fails; this says why, and nothing is launched).
    signed char& fits = cluster_fits_[cuda::std::countr_zero(static_cast<unsigned>(p.warps_per_block))][cluster];
    if (fits == 0) fits = detail::cluster_fits(static_cast<unsigned>(cluster), cluster_pass<T>, block, smem) ? 1 : -1;
    if (fits < 0) {
      throw std::invalid_argument("sum-tree draw: this device holds no cluster of " + std::to_string(cluster) + " blocks of " +
                                  std::to_string(p.warps_per_block) + " warps (a row's cluster, second_pass 4); ask another second_pass");
    }
    detail::launch_clustered(static_cast<unsigned>(cluster), cluster_pass<T>, dim3(static_cast<unsigned>(grid)), block, smem, stream, weights,
                             k, static_cast<int>(segments), seed, draws, out);
    return;
  }
  if (p.second_pass == 3) {
    const int pow2 = static_cast<int>(cuda::std::bit_ceil(static_cast<std::uint64_t>(segments)));
    const int wpb = p.warps_per_block;
    const auto kernel = wpb == kResidentWarps ? resident_pass<T, kResidentWarps> : resident_pass<T, 1>;
    const std::size_t smem = resident_shared_bytes(kResidentSegments);  // (one size: the occupancy asked once)
    allow_dynamic_shared(reinterpret_cast<const void*>(kernel), smem);
    int& holds = resident_blocks_[wpb == kResidentWarps ? 1 : 0];
    if (holds == 0) {
      int per_sm = 0;
      WARPSIM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, wpb * kLanes, smem));
      holds = per_sm * multiprocessors();
    }
    if (warps > holds) {
      throw std::invalid_argument("sum-tree draw: the resident pass needs its " + std::to_string(warps) +
                                  " blocks (M x segments) resident at once; this device holds " + std::to_string(holds) + " of " +
                                  std::to_string(wpb) + " warps");
    }
    // Its posted sums: a slot (2 doubles: the sum, the epoch) a segment,
    // epoch 0 in new memory; each call posts with the next epoch.
    const std::size_t had = posted_.size();
    double* const posted = segments > 1 ? posted_.ensure(2 * static_cast<std::size_t>(warps)) : nullptr;
    if (posted_.size() != had) WARPSIM_CUDA(cudaMemsetAsync(posted, 0, posted_.size() * sizeof(double), stream));
    detail::launch_cooperative(kernel, dim3(static_cast<unsigned>(warps)), dim3(wpb * kLanes), smem, stream, weights, k,
                               static_cast<int>(segments), pow2, posted, ++resident_epoch_, seed, draws, out);
    return;
  }
  const bool last_warp = p.second_pass == 0;  // (else a second kernel draws)
  // The second kernel a block a row with its draws a lane a draw (not
  // walked, or more than 4 a warp) reads one batch of a lane's vectors
  // again from the lane's marks, which the segment pass then keeps, where
  // a row has more than a batch a lane and at least kMarkedDraws draws a
  // segment: the marks are 800 more bytes a segment written, and at one
  // draw a segment they cost the segment pass what they saved the second
  // kernel (H100, rows-trials/h100-segment-marks/: fp64 (256, 131,072,
  // S = 64) 0.1225 ms without, 0.1230 with; (1, 1,048,576, 65,536)
  // 0.0351 -> 0.0287, fp32 0.0363 -> 0.0292).
  const int chunk = p.second_pass == 1 ? row_chunk(draws, p.row_blocks) : draws;  // (the second kernel's draws a block)
  const bool with_marks = segment_keeps_marks<T>(p, k, segments, draws);
  double* lane_sums = nullptr;
  double* seg_sums = nullptr;
  double* marks = nullptr;
  unsigned char* positive = nullptr;
  int* tickets = nullptr;
  // lane sums (32 a segment), segment sums (1), marks ((kBatches - 1) x 32),
  // their batch flags (32 bytes: 4 doubles)
  constexpr std::size_t kMarkDoubles = (kBatches - 1) * kLanes + kLanes / sizeof(double);
  lane_sums = scratch_.ensure(static_cast<std::size_t>(warps) * (kLanes + 1 + (with_marks ? kMarkDoubles : 0)));
  seg_sums = lane_sums + warps * kLanes;
  if (with_marks) {
    marks = seg_sums + warps;
    positive = reinterpret_cast<unsigned char*>(marks + warps * (kBatches - 1) * kLanes);
  }
  if (last_warp) {
    const std::size_t had = tickets_.size();
    tickets = tickets_.ensure(static_cast<std::size_t>(m));
    if (tickets_.size() != had) WARPSIM_CUDA(cudaMemsetAsync(tickets, 0, tickets_.size() * sizeof(int), stream));  // (new memory)
  }
  const std::size_t staged = last_warp ? static_cast<std::size_t>(p.warps_per_block) * kStagedPerWarp : 0;
  const auto sum_kernel = with_marks   ? segment_pass<T, Tail::Marks>
                          : !last_warp ? (p.read_once == 1 ? segment_pass<T, Tail::None, true> : segment_pass<T, Tail::None>)
                          : p.warp_walk == 1 ? segment_pass<T, Tail::Walk>
                                             : segment_pass<T, Tail::Lanes>;
  allow_dynamic_shared(reinterpret_cast<const void*>(sum_kernel), staged);
  detail::launch(sum_kernel, dim3(static_cast<unsigned>(blocks)), dim3(p.warps_per_block * kLanes), staged, stream, false, weights, m,
                 k, segments, lane_sums, seg_sums, marks, positive, tickets, seed, draws, out);
  if (last_warp) return;
  const int pow2 = static_cast<int>(cuda::std::bit_ceil(static_cast<std::uint64_t>(segments)));
  if (p.second_pass == 2) {
    const std::size_t smem = kWarpRowWarps * warp_row_doubles(pow2) * sizeof(double);
    allow_dynamic_shared(reinterpret_cast<const void*>(warp_row_pass<T>), smem);
    detail::launch(warp_row_pass<T>, dim3(static_cast<unsigned>((m + kWarpRowWarps - 1) / kWarpRowWarps)), dim3(kWarpRowWarps * kLanes), smem,
                   stream, true, weights, m, k, segments, pow2, static_cast<const double*>(lane_sums), static_cast<const double*>(seg_sums),
                   seed, draws, out);
    return;
  }
  const std::size_t smem = (2 * static_cast<std::size_t>(pow2) + static_cast<std::size_t>(kRowWarps) *
                                                                    row_staged_rows(p.warp_walk == 1, chunk) * (kLanes + 1)) *
                           sizeof(double);  // the tree, each warp's staged sums
  allow_dynamic_shared(reinterpret_cast<const void*>(row_pass<T>), smem);
  const std::int64_t row_grid = static_cast<std::int64_t>(m) * p.row_blocks;
  if (row_grid > 0x7fffffff) throw std::invalid_argument("sum-tree draw: M x the second kernel's blocks a row past 2^31 - 1");
  detail::launch(row_pass<T>, dim3(static_cast<unsigned>(row_grid)), dim3(kRowThreads), smem, stream, true, weights, k, segments, pow2,
                 static_cast<const double*>(lane_sums), static_cast<const double*>(seg_sums), static_cast<const double*>(marks),
                 static_cast<const unsigned char*>(positive), seed, draws, chunk, p.warp_walk == 1, out);
}

template class SumTreeSampler<float>;
template class SumTreeSampler<double>;

}  // namespace warpsim::gpu
