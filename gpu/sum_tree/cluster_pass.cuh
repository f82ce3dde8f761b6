// cluster_pass (SumTreePlan::second_pass 4): a row's blocks a thread-block
// cluster, its segments' sums read across the cluster's shared memory.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// A row's cluster (SumTreePlan::second_pass 4): the row's segments over
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
constexpr int kClusterBlocks = 8;  // the portable cluster size
constexpr int kClusterWarps = 8;   // a block's most warps (warps_per_block)
constexpr int kClusterSegments = kClusterBlocks * kClusterWarps;

// plan() takes a row's cluster (unless the resident pass) for rows longer
// than lanes a row hold of 9-64 segments (2-8 blocks of 8 warps; up to 8
// segments a block a row is one block without the cluster's barriers) and
// at most 64 draws (every block descends them all), where the grid has at
// least 32 warps a multiprocessor (M x segments) or a row 16 draws or
// more. H100, every layout forced side by side (rows-trials/h100-cluster/):
// fp64 (256, 131,072, S = 64) 0.110 ms against 0.122 for the second kernel
// a block a row; (1,024, 131,072) 0.361 against 0.379 a warp a row;
// (4,096, 32,768) 0.357 against 0.382 a block a row; fp32 (1,024, 131,072,
// S = 16) 0.203 against 0.212 a block a row; (64, 131,072, 64) 0.0193
// against 0.0255; but fp64 (64, 131,072), 4,096 warps, 0.0375 against
// 0.0348, and fp32 (4,096, 32,768), 8 segments, 0.189 against 0.184 a
// block a row. Then its barriers split (arrive, other work, wait;
// h100-cluster/split-barrier/): fp64 (256, 131,072, 64) 0.1092 -> 0.1079,
// S = 1 0.1040 -> 0.1006, fp32 (256, 131,072) 0.0588 -> 0.0566; and each
// segment's sum pushed into every block's tree before the barrier, not
// read from the others after it (h100-cluster/push/, medians of 3): fp64
// (256, 131,072, 64) 0.1095 -> 0.1076, (1,024, 32,768, 16) 0.1068 ->
// 0.1030, (1,024, 65,536, 4) 0.1896 -> 0.1861, fp32 0.1075 -> 0.1036; fp32
// (256, 131,072) 0.0579 -> 0.0586 and (64, 131,072, 64) 0.0171 -> 0.0176
// the other way.
//
// On fast memory (PlanDevice::fast_memory()) not for one draw of rows of
// 17-64 segments below 8 rows a multiprocessor: there the second kernel
// was faster (H200, every layout forced, two passes, rows-h200-cluster-
// sweep/: fp32 (192, 131,072) 37.1-37.4 us a block a row against 40.1-40.5
// the cluster, (256, 262,144) 76.8 against 83.2, fp64 (256, 131,072) 76.5-
// 77.0 against 80.7-80.9; a warp a row (768, 262,144) 0.208 ms against
// 0.214, fp64 (512, 131,072) 0.143 against 0.145); on the H100 the
// cluster was (fp64 (256, 131,072) 0.0998 ms against 0.1026 a block a
// row; (1,024, 131,072) 0.353 against 0.377 a warp a row). Rows of 9-16
// segments keep it on both (H200 fp32 (320, 65,536) 32.1-32.4 us against
// 37.0-37.2 a warp a row).
//
// Nor, on fast memory, for 2-16 draws of rows of 33-64 segments (past a
// block a row) at most 4 rows a multiprocessor where the pass that only
// sums reads the matrix once (read_once: past L2): its sums stay in L2
// for the second kernel, which then beat the cluster at every such point
// timed (H200, every layout forced, two rounds, rows-trials/h200-read-
// once-draws/: fp64 K = 131,072 and fp32 K = 262,144 at M = 128, 256, 512
// with S = 2, 8, 16 and M = 64 with S = 16, 20 points, 0.90-1.00x; fp64
// (256, 131,072, 16) 0.0781 ms against 0.0842, fp32 (256, 262,144, 8)
// 0.0771 against 0.0849). Not with 64 draws (0.95-1.19x: fp32 (256,
// 262,144, 64) 1.08x), nor at 1,024 rows (0.99-1.04x with S = 2-16),
// nor rows a block a row holds (32 segments: S = 2 the second kernel
// 0.94-1.00x, S = 8-16 a block a row 0.95-1.05x).
constexpr int kClusterReadOnceDraws = 16;
constexpr bool cluster_chosen(int sms, bool fast_memory, bool read_once, int m, std::int64_t segments, int draws) {
  if (fast_memory && draws == 1 && segments > kBlockRowSegments && static_cast<std::int64_t>(m) < 8LL * sms) return false;
  if (fast_memory && read_once && draws <= kClusterReadOnceDraws && segments > kLanes && static_cast<std::int64_t>(m) <= 4LL * sms) return false;
  return segments > 8 && segments <= kClusterSegments && draws <= 64 &&
         (static_cast<std::int64_t>(m) * segments >= 32LL * sms || draws >= 16);
}

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
