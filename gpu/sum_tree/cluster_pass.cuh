// cluster_pass (SecondPass::ClusterPass): a row's blocks a thread-block
// cluster, its segments' sums read across the cluster's shared memory.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// A row's cluster (SecondPass::ClusterPass): the row's segments over
// one thread-block cluster of up to 8 blocks (a warp a segment: segment
// rank x warps + w on the block of cluster rank `rank`, its warp w), for
// many rows of up to 64 segments with few draws a segment. Each warp sums
// its segment as a block a row does, keeping its lanes' pair tree (the
// butterfly's heap) and, past a batch a lane, its lanes' marks in its
// block's shared memory, and stores the segment's sum into every block's
// copy of the row's tree (distributed shared memory); one cluster barrier,
// then every block builds the row's tree (the levels row_pass builds) and
// descends every draw of the row; a draw that lands in one of the block's
// own segments it finishes there, a lane a draw (finish_lane: one batch of
// the lane's vectors from its marks). No scratch in global memory, no
// second kernel, no ticket: the draws' few loads overlap other clusters'
// streaming, where the second kernel reads a row's lanes again from DRAM
// after the whole matrix. The barriers are split (arrive, other work,
// wait), and after the sums' no block touches another's shared memory, so
// each leaves once its own draws are made.
// Its limits (kClusterBlocks, kClusterWarps, kClusterSegments) are in
// gpu/sum_tree/shape.hpp; where plan() takes it, gpu/sum_tree/tuning.hpp.

// Its dynamic shared memory: each warp's lanes' marks and their batch bits.
template <class T>
__host__ __device__ constexpr std::size_t cluster_shared_bytes(int warps) {
  return static_cast<std::size_t>(warps) * ((kBatches - 1) * kLanes * sizeof(double) + kLanes);
}

template <class T>
__global__ void __launch_bounds__(kClusterWarps * kLanes, 3) cluster_pass(const T* __restrict__ w, std::int64_t k, int segments, std::uint64_t seed, int draws,
                                                       int* __restrict__ out) {
  const RowUniforms uniform(seed);  // rng::uniform<double>(seed, row, s)
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  __shared__ double heaps[kClusterWarps][2 * kLanes];  // warp w's segment's pair tree over its lanes (butterfly_kept)
  __shared__ double tree[2 * kClusterSegments];  // the row's tree (level 0 at [0, p), ..., the root at 2p - 2)
  extern __shared__ __align__(16) unsigned char cluster_smem[];
  // The cluster's barrier, split (arrive: release; wait: acquire, at the
  // cluster's scope), three times: every block has started (its shared
  // memory may be written by the others: waited on once the sums are
  // made), every segment's sum is written to every block's tree, and (none
  // needed) after that no block touches another's shared memory.
  auto started = cluster.barrier_arrive();
  const int lane = threadIdx.x % kLanes, warp = threadIdx.x / kLanes;
  const int warps = static_cast<int>(blockDim.x) / kLanes;
  const int rank = static_cast<int>(cluster.block_rank()), blocks = static_cast<int>(cluster.num_blocks());
  const std::int64_t row = blockIdx.x / blocks;
  const int g = rank * warps + warp;  // the warp's segment
  const T* r = w + row * k;
  const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
  const bool marked = past_a_batch<T>(k);
  double* const marks = reinterpret_cast<double*>(cluster_smem);
  unsigned char* const positive = cluster_smem + static_cast<std::size_t>(warps) * (kBatches - 1) * kLanes * sizeof(double);
  double mine = 0, u_first = 0;
  unsigned bits = 0;
  if (g < segments) {
    const std::int64_t base = static_cast<std::int64_t>(g) * Shape<T>::G;
    mine = marked ? lane_sum_marked(r, k, aligned, base, lane, marks + warp * (kBatches - 1) * kLanes + lane, bits)
                  : lane_sum(r, k, aligned, base, lane);
  }
  positive[warp * kLanes + lane] = static_cast<unsigned char>(bits);
  const double v = butterfly_kept(mine, heaps[warp], lane);
  const int p = static_cast<int>(cuda::std::bit_ceil(static_cast<unsigned>(segments)));
  for (int i = segments + threadIdx.x; i < p; i += blockDim.x) tree[i] = 0.0;  // (the padding, each block its own)
  // Each segment's sum goes to every block's tree (remote stores, in
  // flight together), then the thread's first draw's uniform is made while
  // the cluster's other blocks finish theirs.
  cluster.barrier_wait(std::move(started));
  if (lane == 0 && g < segments) {
    for (int b = 0; b < blocks; ++b) cluster.map_shared_rank(tree, b)[g] = v;
  }
  auto sums_written = cluster.barrier_arrive();
  const int first = threadIdx.x;
  u_first = first < draws ? uniform(row, first) : 0.0;
  cluster.barrier_wait(std::move(sums_written));  // (every segment's sum in this block's tree)
  // The row's tree by one warp (a __syncwarp a level), then the block.
  if (warp == 0) build_warp_tree(tree, p, lane);
  __syncthreads();
  const int levels = cuda::std::countr_zero(static_cast<unsigned>(p));  // (log2 p)
  const double root = tree[2 * p - 2];
  const auto vector_of = [&](int seg, int l, int j, T(&x)[Shape<T>::E]) {
    load_vector(r, k, aligned, vector_first<T>(static_cast<std::int64_t>(seg) * Shape<T>::G, l, j), x);
  };
  for (int s = first; s < draws; s += blockDim.x) {
    const double u = s == first ? u_first : uniform(row, s);
    double t = __dmul_rn(u, root);  // target(): u * the root, rounded once
    const std::int64_t chosen = descend_row_tree(tree, p, levels, t);
    if (chosen / warps != rank) continue;  // (another block's segment: that block finishes it)
    const int at = static_cast<int>(chosen % warps);
    const int l = descend_heap(heaps[at], t);
    out[row * draws + s] = static_cast<int>(finish_lane<T, true, false>(vector_of, k, static_cast<int>(chosen), at, l, t, marks, positive));
  }
}

}  // namespace

}  // namespace warpsim::gpu
