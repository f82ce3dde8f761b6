// block_pass: a block a row of up to 32 segments, a warp a segment, the row's
// sums in shared memory, then its draws.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// A segment kept in shared memory (block_pass): lane l's
// vector j at 16-byte unit j * 32 + l of the segment's 16 KB.
template <class T>
__device__ __forceinline__ void kept_vector(const unsigned char* segment, int l, int j, T (&x)[Shape<T>::E]) {
  const unsigned char* p = segment + (static_cast<std::size_t>(j) * kLanes + l) * 16;
  if constexpr (Shape<T>::E == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    x[0] = q.x, x[1] = q.y, x[2] = q.z, x[3] = q.w;
  } else {
    const double2 q = *reinterpret_cast<const double2*>(p);
    x[0] = q.x, x[1] = q.y;
  }
}

// Lane `lane`'s 32 vectors of the segment at `base` into `segment` (shared),
// every copy in flight at once (cp.async; zeros past K); the caller commits
// and waits. (kCount of them from first_vector: a warp's share.)
template <class T, int kCount = kVectorsPerLane>
__device__ __forceinline__ void copy_segment(unsigned char* segment, const T* r, std::int64_t k, bool aligned, std::int64_t base, int lane,
                                             int first_vector = 0) {
  constexpr int E = Shape<T>::E;
#pragma unroll 4
  for (int j = first_vector; j < first_vector + kCount; ++j) {
    const std::int64_t first = vector_first<T>(base, lane, j);
    unsigned char* d = segment + (static_cast<std::size_t>(j) * kLanes + lane) * 16;
    if (aligned && first + E <= k) {
      __pipeline_memcpy_async(d, r + first, 16);
    } else {
#pragma unroll
      for (int c = 0; c < E; ++c) {
        if (first + c < k) {
          __pipeline_memcpy_async(d + c * sizeof(T), r + first + c, sizeof(T));
        } else {
          *reinterpret_cast<T*>(d + c * sizeof(T)) = T(0);
        }
      }
    }
  }
}

// The lane's sum over a kept segment, in lane_sum's order: 0, then its
// vectors (zeros past K add nothing).
template <class T>
__device__ __forceinline__ double kept_lane_sum(const unsigned char* segment, std::int64_t k, std::int64_t base, int lane) {
  double r = 0;
#pragma unroll 8
  for (int j = 0; j < kVectorsPerLane; ++j) {
    if (vector_first<T>(base, 0, j) >= k) break;
    T x[Shape<T>::E];
    kept_vector<T>(segment, lane, j, x);
    r = add(r, vector_sum<T>(x));
  }
  return r;
}

constexpr std::size_t kSegmentBytes = static_cast<std::size_t>(kLanes) * kVectorsPerLane * 16;

// A lane a draw's last step once its segment and lane are known (t: the
// lane's target), the segment's lane vectors read by vector_of(seg, l, j,
// x): a row of a vector a lane at most takes lane l's vector 0 (the one
// descend_vectors chooses, the rest zeros); else the walk along the lane's
// vectors, a batch as wide as the segment's lanes hold (up to 8: the width
// is how many are read at once, the same draw), or with kMarks, where the
// segment holds more than a batch a lane, one batch from the lane's marks
// in shared memory (segment `at`'s there: marks[(at * (kBatches - 1) + b)
// * kLanes + l], positive[at * kLanes + l]), and where the whole row is one
// batch a lane or less, the chosen vector alone from the lane's marks a
// vector (marks[(j - 1) * kLanes + l], positive[l]; kVectorMarks: a block
// a row's, its row one segment). Written once for a block a row and a
// row's cluster (which keeps no marks a vector: its rows are past a batch
// but where a layout is asked).
template <class T, bool kMarks, bool kVectorMarks, class VectorOf>
__device__ std::int64_t finish_lane(const VectorOf& vector_of, std::int64_t k, int seg, int at, int l, double t, const double* marks,
                                    const unsigned char* positive) {
  constexpr int E = Shape<T>::E;
  if (k <= kLanes * E) {
    T x[E];
    vector_of(0, l, 0, x);
    return vector_first<T>(0, l, 0) + in_vector<T>(x, __dsub_rn(t, 0.0));
  }
  const auto fetch = [&](int j, T(&x)[E]) { vector_of(seg, l, j, x); };
  const std::int64_t base = static_cast<std::int64_t>(seg) * Shape<T>::G;
  const std::int64_t rest = k - base;  // (the segment's weights)
  if constexpr (kMarks) {
    if (past_a_batch<T>(rest)) {  // (then the row's marks were kept)
      return descend_marked<T>(fetch, base, l, t, [&](int b) { return marks[(at * (kBatches - 1) + b) * kLanes + l]; },
                               positive[at * kLanes + l]);
    }
  }
  if constexpr (kVectorMarks) {
    if (!past_a_batch<T>(k)) {  // (one segment, its marks a vector kept)
      return descend_vector_marked<T>(fetch, l, t, [&](int j) { return marks[j * kLanes + l]; }, positive[l]);
    }
  }
  return rest <= 2 * kLanes * E   ? descend_vectors<T, 2>(fetch, k, base, l, t)
         : rest <= 4 * kLanes * E ? descend_vectors<T, 4>(fetch, k, base, l, t)
                                  : descend_vectors<T>(fetch, k, base, l, t);
}

// A block a row (rows of at most 32 segments): warp g sums segment g as
// segment_pass does, and the row's lanes' and segments' sums stay in shared
// memory -- no scratch in global memory, no fence, no ticket: one
// __syncthreads where segment_pass's last warp pays several dependent rounds
// through L2. Then the block's warps make the row's draws, a lane a draw,
// down the row's tree (its segments' sums padded to 32 with zeros, as the
// last warp builds it; one segment: its root, the descent's only way), the
// chosen segment's lanes, and the chosen lane's vectors (walk: where the
// block has at most 4 draws a warp, they are spread over its warps and
// each warp's round is walked by the whole warp, walk_together). kMaxWarps:
// 8 (up to 8 segments) or 32. kWalk: a template parameter, not an
// argument, so that the walk's registers do not cost a lane a draw's
// kernel its occupancy where many rows are bandwidth-bound.
//
// kKeep (few rows of up to 8 segments: latency, not bandwidth): the row is
// first copied to shared memory, every 16 bytes of it in flight at once
// (cp.async), the draw's uniform made while it lands; the lanes' sums and
// the draws then read it there, not through L2 twice. Vector j of segment
// g's lane l is 16-byte unit (g * 32 + j) * 32 + l.
template <class T, int kMaxWarps, bool kKeep, bool kWalk, bool kSpread>
__global__ void __launch_bounds__(kMaxWarps * kLanes, kMaxWarps == 8 ? 3 : 1) block_pass(const T* __restrict__ w, std::int64_t k, int segments, std::uint64_t seed,
                                                                 int draws, int chunk, int* __restrict__ out) {
  static_assert(kMaxWarps >= 1 && kMaxWarps <= kLanes, "a block holds at most 32 segments (one a warp)");
  static_assert(!kKeep || kMaxWarps <= 8, "a kept row is at most 8 segments (128 KB)");
  const RowUniforms uniform(seed);  // rng::uniform<double>(seed, row, s)
  constexpr int E = Shape<T>::E;
  __shared__ double lanes[kMaxWarps][2 * kLanes];  // segment g's pair tree over its lanes' sums (a heap: lanes at 32..63)
  __shared__ double tops[kLanes];              // the segments' sums, zeros past the row's
  // kKeep: the row. Else, rows of more than a batch a lane (`marked`)
  // with draws a lane a draw: each lane's marks (lane_sum_marked), so that
  // a draw reads one batch of its lane's vectors again, not up to four in
  // turn: segment g's lane l's at marks[(g * (kBatches - 1) + b) * kLanes +
  // l], its batches holding a vector > 0 at positive[g * kLanes + l]. (Not
  // in the walk's kernel: its registers; sized by block_shared_bytes.)
  // A row of one batch a lane or less (one segment) and more than a vector
  // a lane: each lane's marks a vector (lane_sum_vector_marked), so that a
  // draw reads its chosen vector alone, lane l's at marks[(j - 1) * kLanes
  // + l], its vectors > 0 at positive[l].
  extern __shared__ __align__(16) unsigned char kept_row[];
  constexpr bool kMarks = !kKeep && !kWalk;
  const bool marked = kMarks && past_a_batch<T>(k);
  const bool vector_marked = kMarks && !past_a_batch<T>(k) && k > kLanes * E;
  double* const marks = reinterpret_cast<double*>(kept_row);
  unsigned char* const positive = reinterpret_cast<unsigned char*>(marks + static_cast<std::size_t>(segments) * marks_a_lane<T>(k) * kLanes);
  detail::join_dependent_chain();
  const int lane = threadIdx.x % kLanes, g = threadIdx.x / kLanes;
  const int warps = static_cast<int>(blockDim.x) / kLanes;
  // kSpread: a row's draws may go over several blocks, `chunk` draws each
  // (the row's draws [d0, d0 + mine_draws)), as row_pass shares them: each
  // block sums the row and makes its own draws, which are the same
  // whichever block makes them. (A template parameter: a block a row's
  // kernels keep the registers they had without it -- fp32 (65,536, 4,096)
  // measured 15% slower with the split's arithmetic compiled in.)
  const int parts = kSpread ? (draws + chunk - 1) / chunk : 1;
  const std::int64_t row = kSpread ? blockIdx.x / parts : blockIdx.x;
  const int d0 = kSpread ? static_cast<int>(blockIdx.x % parts) * chunk : 0, mine_draws = kSpread ? min(chunk, draws - d0) : draws;
  const T* r = w + row * k;
  const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
  const std::int64_t base = g * Shape<T>::G;
  double mine = 0, u = 0;
  // A warp's round of draws: 32, a lane a draw; or, where warps walk and
  // the block has at most 4 draws for every warp, the draws spread over
  // all its warps, up to 4 a warp, each round walked by its warp (S = 16
  // on 16 warps: one draw each, at once), as row_pass spreads them.
  const int round = kWalk && mine_draws <= warps * kWarpWalkDraws ? (mine_draws + warps - 1) / warps : kLanes;
  int s = g * round + lane;  // the lane's first draw of the block's (lanes < round)
  const auto uniform_s = [&](int s) { return uniform(row, d0 + s); };
  if constexpr (kKeep) {
    copy_segment(kept_row + g * kSegmentBytes, r, k, aligned, base, lane);
    __pipeline_commit();
    if (lane < round && s < mine_draws) u = uniform_s(s);
    __pipeline_wait_prior(0);
    mine = kept_lane_sum<T>(kept_row + g * kSegmentBytes, k, base, lane);
  } else {
    if (marked) {
      unsigned bits = 0;
      mine = lane_sum_marked(r, k, aligned, base, lane, marks + g * (kBatches - 1) * kLanes + lane, bits);
      positive[g * kLanes + lane] = static_cast<unsigned char>(bits);
    } else if (vector_marked) {
      unsigned bits = 0;
      mine = lane_sum_vector_marked(r, k, aligned, lane, marks + lane, bits);
      positive[lane] = static_cast<unsigned char>(bits);
    } else {
      mine = lane_sum(r, k, aligned, base, lane);
    }
    if (lane < round && s < mine_draws) u = uniform_s(s);
  }
  const double v = butterfly_kept(mine, lanes[g], lane);
  if (segments > 1) {
    if (lane == 0) tops[g] = v;
    if (g == 0 && lane >= segments) tops[lane] = 0.0;
  }
  __syncthreads();
  // The root: one segment's own; else every warp forms it by the butterfly
  // the last warp uses.
  double root = v;
  if (segments > 1) {
    root = tops[lane];
#pragma unroll
    for (int bit = 1; bit < kLanes; bit <<= 1) root = add(root, __shfl_xor_sync(~0u, root, bit));
  }
  // Lane l's vectors of segment `chosen`, wherever the row is.
  const auto vector_of = [&](int chosen, int l, int j, T(&x)[E]) {
    if constexpr (kKeep) {
      kept_vector<T>(kept_row + chosen * kSegmentBytes, l, j, x);
    } else {
      load_vector(r, k, aligned, vector_first<T>(static_cast<std::int64_t>(chosen) * Shape<T>::G, l, j), x);
    }
  };
  int* const row_out = out + row * draws + d0;  // (the block's draws)
  for (int s0 = g * round; s0 < mine_draws; s0 += warps * round, s += warps * round) {  // (s0 the same across the warp)
    const bool has = kWalk ? lane < min(round, mine_draws - s0) : s < mine_draws;  // (the lane holds the block's draw s)
    double t = 0;
    int chosen = 0, l = 0;
    if (has) {
      if (s0 != g * round) u = uniform_s(s);  // (the first made above)
      t = __dmul_rn(u, root);  // target(): u * the root, rounded once
      chosen = segments > 1 ? descend_lanes(Plain{tops}, t) : 0;
      l = descend_heap(lanes[chosen], t);
    }
    const int n = min(round, mine_draws - s0);
    if (kWalk && n <= kWarpWalkDraws) {
      const auto fetch = [&](std::int64_t seg, int l_d, int j, T(&x)[E]) { vector_of(static_cast<int>(seg), l_d, j, x); };
      const std::int64_t col = walk_together<T>(fetch, n, chosen, l, t, lane);
      if (has) row_out[s] = static_cast<int>(col);
    } else if (has) {
      row_out[s] = static_cast<int>(finish_lane<T, kMarks, kMarks>(vector_of, k, chosen, chosen, l, t, marks, positive));
    }
  }
}

}  // namespace

}  // namespace warpsim::gpu
