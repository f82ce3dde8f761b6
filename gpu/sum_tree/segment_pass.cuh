// segment_pass: a warp a segment of the M x ceil(K / G) segments, its lanes'
// and its segment's sums; or, asked, the last warp of a row builds the row's
// tree and draws.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

constexpr std::size_t kStagedPerWarp = kLanes * (kLanes + 1) * sizeof(double);

// What segment_pass does once a segment is summed: nothing more (a second
// kernel draws: row_pass, a block a row, or warp_row_pass, a warp a row),
// or nothing more but its lanes' marks kept too (Marks: lane_sum_marked,
// for row_pass's draws a lane a draw, each then reading one batch of its
// lane's vectors again, not up to four), or,
// where its row has at most 32 segments, the row's last warp to finish (a
// ticket a row) draws, a lane a draw (Lanes) or walking a round of up to 4
// draws with the whole warp (Walk: walk_together, the chosen lanes' vectors
// in one round trip, not four batches of 8, as the second kernel does). A
// template parameter, so that the kernel that only sums -- the one that
// reads most matrices -- keeps its registers.
enum class Tail : int { None, Marks, Lanes, Walk };

// The fp32 segment pass that only sums (Tail::None) keeps 2 vectors a lane
// in flight, not 8, held to 32 registers: all 8 blocks of 8 warps a
// multiprocessor, where 8 float4 a lane took 96 registers and 2 blocks. On
// an H200 (device-logs/2026-11-28/rows-trials/h200-segment-occupancy/; ncu
// at fp32 (256, 131,072), caches flushed): 90% of the warps active against
// 23%, the pass 33.9-37.0 us against 35.1-37.4; event-timed at the fp32
// points where plan() takes it, 0.96-1.03x (median 0.98). The sums are the
// same: a lane adds its vectors in the same order whatever the batch. fp64
// (54-56 registers, 4 blocks) stays at 8: 0.96-1.03x there, within the
// rounds' spread. 4 vectors a lane in 32 registers spilled in fp32 and ran
// 1.09-1.33x slower.
template <class T>
inline constexpr int kSumOnlyBatch = sizeof(T) == 4 ? 2 : kBatch;
template <class T, Tail kTail>
inline constexpr int kSegmentPassMinBlocks = kTail == Tail::None && sizeof(T) == 4 ? 8 : 1;

// kOnce (Tail::None only): the matrix read with loads L2 evicts first
// (SumTreePlan::read_once).
template <class T, Tail kTail, bool kOnce = false>
__global__ void __launch_bounds__(256, (kSegmentPassMinBlocks<T, kTail>)) segment_pass(const T* __restrict__ w, int m, std::int64_t k, std::int64_t segments,
                                                    double* __restrict__ lane_sums, double* __restrict__ seg_sums, double* __restrict__ marks,
                                                    unsigned char* __restrict__ positive, int* __restrict__ tickets, std::uint64_t seed,
                                                    int draws, int* __restrict__ out) {
  static_assert(!kOnce || kTail == Tail::None, "only the pass that only sums reads once");
  const RowUniforms uniform(seed);  // rng::uniform<double>(seed, row, s)
  constexpr bool kWalk = kTail == Tail::Walk;
  __shared__ double shared_sums[256 / kLanes][kLanes];
  extern __shared__ double dynamic_smem[];  // Lanes, Walk: each warp's staged lane sums, 32 x 33 doubles
  detail::join_dependent_chain();
  const int lane = threadIdx.x % kLanes, warp = threadIdx.x / kLanes;
  const std::int64_t id = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / kLanes) + warp;
  if (id >= static_cast<std::int64_t>(m) * segments) return;  // (whole warps)
  const std::int64_t row = id / segments, g = id % segments, base = g * Shape<T>::G;
  const T* r = w + row * k;
  const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
  // Walk: every warp makes its lane's first uniform while its loads are in
  // flight (the last warp's draws then do not wait on Philox; kept out of
  // the kernel that only sums, whose registers it would take).
  const double u_first = kWalk && lane < draws ? uniform(row, lane) : 0.0;
  double mine = 0;
  if constexpr (kTail == Tail::Marks) {  // (segment id's lane l's marks at marks[(id * (kBatches - 1) + b) * kLanes + l])
    unsigned bits = 0;
    mine = lane_sum_marked(r, k, aligned, base, lane, marks + id * (kBatches - 1) * kLanes + lane, bits);
    positive[id * kLanes + lane] = static_cast<unsigned char>(bits);
  } else if constexpr (kTail == Tail::None) {
    mine = lane_sum<T, kSumOnlyBatch<T>, kOnce>(r, k, aligned, base, lane);
  } else {
    mine = lane_sum(r, k, aligned, base, lane);
  }
  double v = mine;
#pragma unroll
  for (int bit = 1; bit < kLanes; bit <<= 1) v = add(v, __shfl_xor_sync(~0u, v, bit));
  lane_sums[id * kLanes + lane] = mine;
  if (lane == 0) seg_sums[id] = v;
  if constexpr (kTail == Tail::None || kTail == Tail::Marks) return;
  // The row's last warp to get here (its ticket the row's segments less one)
  // draws: every segment's sums are in L2 by then (each warp's stores are
  // fenced before its ticket). It sets the ticket back to 0 for the next call.
  __threadfence();
  int ticket = 0;
  if (lane == 0) ticket = atomicAdd(tickets + row, 1);
  ticket = __shfl_sync(~0u, ticket, 0);
  if (ticket != segments - 1) return;
  __threadfence();
  if (lane == 0) tickets[row] = 0;
  // One round trip through L2 for all the row's sums: lane j reads segment
  // j's sum and lane j's sum of every segment (at most 32 x 32, staged in
  // shared memory, segment g's at staged[g]).
  double(*staged)[kLanes + 1] = reinterpret_cast<double(*)[kLanes + 1]>(dynamic_smem) + warp * kLanes;
  const double s_here = lane < segments ? __ldcg(seg_sums + row * segments + lane) : 0.0;
#pragma unroll 8
  for (int gi = 0; gi < segments; ++gi) staged[gi][lane] = __ldcg(lane_sums + (row * segments + gi) * kLanes + lane);
  // The row's tree: its segments' sums by pairs, padded to 32 with zeros --
  // the butterfly over the lanes, whose root and left sums are those of the
  // padded tree (x + 0 is x).
  shared_sums[warp][lane] = s_here;
  double root = s_here;
#pragma unroll
  for (int bit = 1; bit < kLanes; bit <<= 1) root = add(root, __shfl_xor_sync(~0u, root, bit));
  __syncwarp();
  // 32 draws a round, a lane a draw: down the row's tree to a segment, down
  // its staged lane sums to a lane, and along its vectors.
  for (int s0 = 0; s0 < draws; s0 += kLanes) {
    const int s = s0 + lane;
    const double u = kWalk && s0 == 0 ? u_first : s < draws ? uniform(row, s) : 0.0;
    double t = __dmul_rn(u, root);  // target(): u * the root, rounded once
    const int chosen = descend_lanes(Plain{shared_sums[warp]}, t);
    const int n = min(kLanes, draws - s0);
    if (kWalk && n <= kWarpWalkDraws) {
      const int l = s < draws ? descend_lanes(Plain{staged[chosen]}, t) : 0;
      const auto fetch = [&](std::int64_t seg, int l_d, int j, T(&x)[Shape<T>::E]) {
        load_vector(r, k, aligned, vector_first<T>(seg * Shape<T>::G, l_d, j), x);
      };
      const std::int64_t col = walk_together<T>(fetch, n, chosen, l, t, lane);
      if (s < draws) out[row * draws + s] = static_cast<int>(col);
    } else if (s < draws) {
      const int l = descend_lanes(Plain{staged[chosen]}, t);
      out[row * draws + s] = static_cast<int>(descend_vectors(r, k, aligned, chosen * Shape<T>::G, l, t));
    }
  }
}

}  // namespace

}  // namespace warpsim::gpu
