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
// (NAME.cuh), with the parts they share in gpu/sum_tree/tree.cuh and the
// shape and limits the plan shares in gpu/sum_tree/shape.hpp. The plan
// (gpu/sum_tree/plan.cpp, host code) chooses a layout; this file launches
// its kernels:
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
//                 or, asked (SecondPass::LastWarp), where a row has at
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

#include "gpu/sum_tree/shape.hpp"
#include "gpu/sum_tree/tuning.hpp"

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

PlanDevice PlanDevice::current() { return {multiprocessors(), gpu::memory_gbs(), gpu::l2_bytes()}; }

template <class T>
SumTreePlan SumTreeSampler<T>::plan(int m, std::int64_t k, const SumTreePlan& ask, int draws) {
  return SumTreePlanner<T>::plan_for(PlanDevice::current(), m, k, ask, draws);
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
  if (p.second_pass == SumTreePlan::SecondPass::ClusterPass) {
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
                                  std::to_string(p.warps_per_block) + " warps (a row's cluster, second_pass cluster-pass); ask another second_pass");
    }
    detail::launch_clustered(static_cast<unsigned>(cluster), cluster_pass<T>, dim3(static_cast<unsigned>(grid)), block, smem, stream, weights,
                             k, static_cast<int>(segments), seed, draws, out);
    return;
  }
  if (p.second_pass == SumTreePlan::SecondPass::ResidentPass) {
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
  const bool last_warp = p.second_pass == SumTreePlan::SecondPass::LastWarp;  // (else a second kernel draws)
  // The segment pass keeps its lanes' marks for RowPass's draws a lane a
  // draw from kMarkedDraws draws a segment (segment_keeps_marks;
  // docs/perf/sum-tree-plan.md, "Segment marks").
  const int chunk = p.second_pass == SumTreePlan::SecondPass::RowPass ? row_chunk(draws, p.row_blocks) : draws;  // (the second kernel's draws a block)
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
  if (p.second_pass == SumTreePlan::SecondPass::WarpRowPass) {
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
