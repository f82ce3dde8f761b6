// row_pass, the second kernel a block a row (SecondPass::RowPass):
// the row's tree from its segments' sums, then each draw down to its vector.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// A row's tree over its P segments (P a power of two, zeros past the row's
// segments) in shared memory: level 0 at [0, P), level 1 after it, ..., the
// root last, at 2P - 2. Built by the block's threads (the caller syncs
// before it); returns log2 P.
__device__ __forceinline__ int build_row_tree(double* tree, int p) {
  int levels = 0;
  for (int n = p, off = 0; n > 1; off += n, n /= 2, ++levels) {
    for (int i = threadIdx.x; i < n / 2; i += blockDim.x) tree[off + n + i] = add(tree[off + 2 * i], tree[off + 2 * i + 1]);
    __syncthreads();
  }
  return levels;
}

// The same tree built by one warp (its level 0 in place, the warp synced
// after it): a __syncwarp a level, not a __syncthreads.
__device__ __forceinline__ int build_warp_tree(double* tree, int p, int lane) {
  int levels = 0;
  for (int n = p, off = 0; n > 1; off += n, n /= 2, ++levels) {
    for (int i = lane; i < n / 2; i += kLanes) tree[off + n + i] = add(tree[off + 2 * i], tree[off + 2 * i + 1]);
    __syncwarp();
  }
  return levels;
}

// Down a row tree from the root to a segment (t becomes its target).
__device__ __forceinline__ std::int64_t descend_row_tree(const double* tree, int p, int levels, double& t) {
  std::int64_t g = 0;
  // Level h starts at 2p - 2^(L + 1 - h) (L = log2 p): down from the root.
  for (int h = levels; h > 0; --h) {
    const int below = 2 * p - (2 << (levels - h + 1));  // level h - 1's start
    const double left = tree[below + 2 * g], right = tree[below + 2 * g + 1];
    if (!(t < left) && right > 0) {
      t = __dsub_rn(t, left);
      g = 2 * g + 1;
    } else {
      g = 2 * g;
    }
  }
  return g;
}

// The rows of lane sums a warp of row_pass stages at a time: its round's
// draws, at most 4 where the walked draws of a block spread over its warps
// (a warp's round, ceil(chunk / 8), is then at most 4), else 32. The
// shared memory asked is no more than the round needs: 68 KB a block for
// rounds of 32, 10 KB for rounds of 4.
__host__ __device__ constexpr int row_staged_rows(bool walk, int chunk) {
  return walk && chunk <= kRowWarpDraws ? kWarpWalkDraws : kLanes;
}

template <class T>
__global__ void __launch_bounds__(kRowThreads, 2) row_pass(const T* __restrict__ w, std::int64_t k, std::int64_t segments, int p,
                                                        const double* __restrict__ lane_sums, const double* __restrict__ seg_sums,
                                                        const double* __restrict__ marks, const unsigned char* __restrict__ positive,
                                                        std::uint64_t seed, int draws, int chunk, bool walk, int* __restrict__ out) {
  const RowUniforms uniform(seed);  // rng::uniform<double>(seed, row, s)
  // level 0 (the segments) at [0, p), level 1 after it, ..., the root last;
  // then each warp's staged lane sums, row_staged_rows(walk, chunk) rows of 33
  extern __shared__ double tree[];
  // A row's draws may go over several blocks, `chunk` draws each (the row's
  // draws [part x chunk, ...)): each builds the row's tree and makes its
  // own draws, which are the same whichever block makes them.
  const int parts = (draws + chunk - 1) / chunk;
  const std::int64_t row = blockIdx.x / parts;
  const int part = static_cast<int>(blockIdx.x % parts);
  const int d0 = part * chunk, mine_draws = min(chunk, draws - d0);  // (the block's draws)
  // The thread's first uniform is made while the segment pass still runs
  // (the launch is programmatic: this grid starts once that one's blocks
  // have all begun, and waits below for its sums).
  detail::next_grid_may_start();
  constexpr int kWarps = kRowWarps;
  const int lane = threadIdx.x % kLanes, warp = threadIdx.x / kLanes;
  // A warp's round of draws: 32, a lane a draw; or, where warps walk and the
  // block has at most one round of 4 draws for every warp (32), the draws
  // spread over all the block's warps, up to 4 a warp, each round walked by
  // its warp (S = 4: four warps, one draw each, at once). Two such rounds a
  // warp (S = 64) measured slower than two warps' 32 lanes (docs/PERF.md).
  const int round = walk && mine_draws <= kWarps * kWarpWalkDraws ? (mine_draws + kWarps - 1) / kWarps : kLanes;
  const int first = warp * round + lane;  // the thread's first draw of the block's (lanes < round)
  const double u_first = lane < round && first < mine_draws ? uniform(row, d0 + first) : 0.0;
  detail::previous_grid_done();
  for (int i = threadIdx.x; i < p; i += blockDim.x) tree[i] = i < segments ? seg_sums[row * segments + i] : 0.0;
  __syncthreads();
  const int levels = build_row_tree(tree, p);
  const double root = tree[2 * p - 2];
  const T* r = w + row * k;
  const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
  // A warp a round of draws at a time, a lane a draw: down the row's tree
  // to a segment, then the warp stages each draw's segment's 32 lane sums
  // in shared memory (coalesced loads in flight together, not the five
  // dependent rounds through L2 of a descent over them there), down them to
  // a lane, and along its vectors (walk: a round of up to 4 draws is walked
  // by the whole warp, walk_together).
  double(*staged)[kLanes + 1] = reinterpret_cast<double(*)[kLanes + 1]>(tree + 2 * p) + warp * row_staged_rows(walk, chunk);
  for (int s0 = warp * round; s0 < mine_draws; s0 += kWarps * round) {  // (s0 the same across the warp)
    const int s = s0 + lane;
    const int n = min(round, mine_draws - s0);
    const bool mine = lane < n;  // (the lane holds the block's draw s, the row's d0 + s)
    double t = 0;
    std::int64_t g = 0;
    if (mine) {
      const double u = s == first ? u_first : uniform(row, d0 + s);
      t = __dmul_rn(u, root);  // target(): u * the root, rounded once
      g = descend_row_tree(tree, p, levels, t);
    }
#pragma unroll
    for (int d = 0; d < kLanes; ++d) {  // (all 32 loads in flight)
      const std::int64_t g_d = __shfl_sync(~0u, g, d);
      if (d < n) staged[d][lane] = __ldcg(lane_sums + (row * segments + g_d) * kLanes + lane);
    }
    __syncwarp();
    const int l = mine ? descend_lanes(Plain{staged[lane]}, t) : 0;
    if (walk && n <= kWarpWalkDraws) {
      const auto fetch = [&](std::int64_t seg, int l_d, int j, T(&x)[Shape<T>::E]) {
        load_vector(r, k, aligned, vector_first<T>(seg * Shape<T>::G, l_d, j), x);
      };
      const std::int64_t col = walk_together<T>(fetch, n, g, l, t, lane);
      if (mine) out[row * draws + d0 + s] = static_cast<int>(col);
    } else if (mine) {
      if (marks != nullptr) {  // (the segment pass kept its lanes' marks: one batch of the lane's vectors)
        const std::int64_t at = row * segments + g;
        const auto fetch = [&](int j, T(&x)[Shape<T>::E]) { load_vector(r, k, aligned, vector_first<T>(g * Shape<T>::G, l, j), x); };
        const auto mark = [&](int b) { return __ldcg(marks + (at * (kBatches - 1) + b) * kLanes + l); };
        out[row * draws + d0 + s] = static_cast<int>(descend_marked<T>(fetch, g * Shape<T>::G, l, t, mark, __ldcg(positive + at * kLanes + l)));
      } else {
        out[row * draws + d0 + s] = static_cast<int>(descend_vectors<T, 2 * kBatch>(r, k, aligned, g * Shape<T>::G, l, t));
      }
    }
    __syncwarp();
  }
}

}  // namespace

}  // namespace warpsim::gpu
