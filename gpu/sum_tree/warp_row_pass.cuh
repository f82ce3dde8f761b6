// warp_row_pass, the second kernel a warp a row (SecondPass::WarpRowPass).
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// The second kernel a warp a row (SecondPass::WarpRowPass): rows of at
// most kWarpRowSegments segments with at most kWarpWalkDraws draws each,
// many rows. A warp builds its row's tree in its own shared memory, level by
// level as row_pass does (the same tree: a __syncwarp a level, not a
// __syncthreads), then walks the row's draws together. row_pass gives each
// row a block of 8 warps for these few draws (and, before 7d0115a, 68 KB
// of shared memory: three blocks a multiprocessor, so 1,024 rows took
// three rounds of blocks, each a chain of dependent trips through L2); a
// warp a row here takes at most 5 KB of shared memory (P = 256), and tens
// of rows a multiprocessor go in one round.
constexpr int kWarpRowWarps = 4;

// A warp's shared memory in warp_row_pass, in doubles: the row's tree (2 P)
// and each draw's staged lane sums.
__host__ __device__ constexpr std::size_t warp_row_doubles(int p) { return 2 * static_cast<std::size_t>(p) + kWarpWalkDraws * (kLanes + 1); }

template <class T>
__global__ void __launch_bounds__(kWarpRowWarps* kLanes) warp_row_pass(const T* __restrict__ w, int m, std::int64_t k, std::int64_t segments,
                                                                      int p, const double* __restrict__ lane_sums,
                                                                      const double* __restrict__ seg_sums, std::uint64_t seed, int draws,
                                                                      int* __restrict__ out) {
  const RowUniforms uniform(seed);  // rng::uniform<double>(seed, row, s)
  extern __shared__ double warp_rows[];  // each warp's: its row's tree (level 0 at [0, p), ..., the root at 2p - 2), then staged sums
  detail::next_grid_may_start();
  const int lane = threadIdx.x % kLanes, warp = threadIdx.x / kLanes;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / kLanes) + warp;
  const bool live = row < m;
  const bool mine = lane < draws;  // (lane d makes draw d)
  // The lane's uniform is made while the segment pass still runs.
  const double u = live && mine ? uniform(row, lane) : 0.0;
  detail::previous_grid_done();
  if (!live) return;  // (whole warps)
  double* tree = warp_rows + static_cast<std::size_t>(warp) * warp_row_doubles(p);
  for (int i = lane; i < p; i += kLanes) tree[i] = i < segments ? __ldcg(seg_sums + row * segments + i) : 0.0;
  __syncwarp();
  const int levels = build_warp_tree(tree, p, lane);
  double t = 0;
  std::int64_t g = 0;
  if (mine) {
    t = __dmul_rn(u, tree[2 * p - 2]);  // target(): u * the root, rounded once
    g = descend_row_tree(tree, p, levels, t);
  }
  // Each draw's segment's 32 lane sums staged (one coalesced load a draw,
  // all in flight), down them to a lane, then the warp walks the draws.
  double(*staged)[kLanes + 1] = reinterpret_cast<double(*)[kLanes + 1]>(tree + 2 * p);
#pragma unroll
  for (int d = 0; d < kWarpWalkDraws; ++d) {
    const std::int64_t g_d = __shfl_sync(~0u, g, d);
    if (d < draws) staged[d][lane] = __ldcg(lane_sums + (row * segments + g_d) * kLanes + lane);
  }
  __syncwarp();
  const int l = mine ? descend_lanes(Plain{staged[lane]}, t) : 0;
  const T* r = w + row * k;
  const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
  const auto fetch = [&](std::int64_t seg, int l_d, int j, T(&x)[Shape<T>::E]) {
    load_vector(r, k, aligned, vector_first<T>(seg * Shape<T>::G, l_d, j), x);
  };
  const std::int64_t col = walk_together<T>(fetch, draws, g, l, t, lane);
  if (mine) out[row * draws + lane] = static_cast<int>(col);
}

}  // namespace

}  // namespace warpsim::gpu
