// lanes_pass: a row on G lanes (G = 1 .. 32), the row's tree by its lanes'
// butterfly, S draws G at a time.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// A row on G lanes (a power of two up to 32) with NV vectors a lane (NV > 1
// only where a row takes the warp): rows of at most 32 NV vectors, read as
// the consecutive bytes they are -- R = 32 / G rows a step, each lane one
// vector of one row (the row's vector 32 j + i on its lane i), S = 8 / NV
// steps in flight at once. Lanes past a row's vectors hold zeros: x + 0 is
// x and a right half of zeros is never entered, so the tree over G lanes
// has the segment's root and the descent's path (the rest of the 32 lanes
// would only add zeros above it).
//
// The row's lanes build its tree by their xor butterfly, each lane keeping,
// level by level, the left and right sums of the node above it. A draw then
// needs no search: every lane applies the descent's rule at each node above
// it (left if t < left or the right sum is 0, else right with t - left), and
// the one lane whose every turn is the turn toward itself is the lane the
// descent reaches, holding the descent's t (the same subtractions in the
// same order). That lane finds the weight among the vectors it still holds.
//
// Uniforms: for one draw a row, each lane makes those of rows kRows apart
// (no Philox made twice) and the row's lanes take it by a shuffle; for S
// draws, the row's G lanes make G draws at a time, a lane a draw, taking the
// sums and vectors on its draw's path by shuffles (draw_across_lanes).
constexpr int kLanesWarps = 4;  // warps a block
// Blocks a multiprocessor the registers must allow (64, 80 or 96 registers
// a thread): the draw is bound by both its FP64 instructions and its loads'
// latency, and more warps a multiprocessor measured faster on the H200 than
// fewer with no spills (docs/PERF.md: uncapped, fp32 K = 32 ran at 2.7x the
// floor, at 80 registers 1.7x).
constexpr int lanes_blocks(int nv) { return nv == 1 ? 8 : nv == 8 ? 5 : 6; }

// One draw a row: the kernel of its own (LanesDraws::One), or the one that
// also makes S draws (Both), whichever measured faster for the row's lanes and vectors: the
// same code, scheduled differently (docs/PERF.md; one H200 call, M x K =
// 2^28: fp32 K = 256 0.350 ms apart against 0.320, K = 512 0.268 against
// 0.342; fp64 K = 4 0.612 against 0.601, K = 128 0.625 against 0.580).
template <class T>
constexpr bool lanes_one_apart(int g, int nv) {
  return sizeof(T) == 4 ? !(g == kLanes && nv == 2) : !(g == 2 || (g == kLanes && nv == 2));
}

// One row's tree on its G lanes, as lane i (the row's lane i) holds it: the
// lane's vectors' sums, the left and right sums of the node above it at each
// level (level h: nodes of 2^(h+1) lanes), and the root.
template <class T, int G, int NV>
struct LaneTree {
  static constexpr int kLevels = cuda::std::bit_width(static_cast<unsigned>(G)) - 1;  // log2 G
  double q[NV];
  double pair[NV];  // E = 4: x0 + x1 (unused for E = 2)
  double left[kLevels > 0 ? kLevels : 1], right[kLevels > 0 ? kLevels : 1];
  double root;
};

// The lane's sum (0, then its vectors in order), then the row's butterfly.
template <class T, int G, int NV>
__device__ __forceinline__ void build_lane_tree(const T (&x)[NV][Shape<T>::E], int i, LaneTree<T, G, NV>& tr) {
  double v = 0;
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    if constexpr (Shape<T>::E == 4) {  // vector_sum's (x0 + x1) + (x2 + x3), its left pair kept
      tr.pair[j] = add(static_cast<double>(x[j][0]), static_cast<double>(x[j][1]));
      tr.q[j] = add(tr.pair[j], add(static_cast<double>(x[j][2]), static_cast<double>(x[j][3])));
    } else {
      tr.q[j] = vector_sum<T>(x[j]);
    }
    v = add(v, tr.q[j]);
  }
#pragma unroll
  for (int h = 0; h < LaneTree<T, G, NV>::kLevels; ++h) {
    const double other = __shfl_xor_sync(~0u, v, 1 << h);
    const bool upper = (i >> h) & 1;
    tr.left[h] = upper ? other : v;
    tr.right[h] = upper ? v : other;
    v = add(tr.left[h], tr.right[h]);
  }
  tr.root = v;
}

// The weight's place in the kept vector (kept_pair its left pair's sum
// as summed, E = 4), its target t - below: the in-vector steps of the
// descent, shared by the draws on and across lanes.
template <class T>
__device__ __forceinline__ int in_kept_vector(double t, double below, const T (&kept)[Shape<T>::E], double kept_pair) {
  constexpr int E = Shape<T>::E;
  t = __dsub_rn(t, below);
  int c = 0;
  if constexpr (E == 4) {
    // Left pair x0 + x1 (as summed), right pair x2 + x3: > 0 iff one is.
    if (!(t < kept_pair) && (kept[2] > 0 || kept[3] > 0)) {
      t = __dsub_rn(t, kept_pair);
      c = 2;
    }
  }
  const T here = c == 0 ? kept[0] : kept[2 % E];
  const T next = c == 0 ? kept[1] : kept[3 % E];
  if (!(t < static_cast<double>(here)) && next > 0) c += 1;
  return c;
}

// The draw at u: every lane follows the descent's turns above it; the lane
// they all lead to (reached) returns the weight's column in its row, found
// among its vectors. Other lanes return -1.
template <class T, int G, int NV>
__device__ __forceinline__ int draw_on_lanes(const T (&x)[NV][Shape<T>::E], int i, const LaneTree<T, G, NV>& tr, double u) {
  constexpr int E = Shape<T>::E;
  double t = __dmul_rn(u, tr.root);
  bool reached = true;
#pragma unroll
  for (int h = LaneTree<T, G, NV>::kLevels - 1; h >= 0; --h) {
    const bool right_turn = !(t < tr.left[h]) && tr.right[h] > 0;
    reached = reached && right_turn == (((i >> h) & 1) != 0);
    if (right_turn) t = __dsub_rn(t, tr.left[h]);
  }
  // Inside the lane: the last vector j whose sum is > 0 and t >= r_(j-1).
  double r = 0, below = 0, kept_pair = 0;
  int chosen = 0;
  T kept[E];
#pragma unroll
  for (int c = 0; c < E; ++c) kept[c] = T(0);
  bool going = true;
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    going = going && t >= r;
    if (going) {
      if (tr.q[j] > 0) {
        chosen = j;
        below = r;
        if constexpr (E == 4) kept_pair = tr.pair[j];
#pragma unroll
        for (int c = 0; c < E; ++c) kept[c] = x[j][c];
      }
      r = add(r, tr.q[j]);
    }
  }
  return reached ? static_cast<int>(vector_first<T>(0, i, chosen) + in_kept_vector<T>(t, below, kept, kept_pair)) : -1;
}

// S draws of a row on its G lanes, G at a time, lane i making draw d0 + i:
// at each level it takes the left and right sums of the node on its path
// from the node's first lane (every lane of a node holds them), then the
// chosen lane's vector sums and vectors, one vector at a time, by shuffles
// (a lane's shuffles are the same whatever its path: all lanes take part),
// and runs draw_on_lanes's steps on them: the same comparisons and
// subtractions in the same order, so the same column. Returns the column
// in the row, or -1 where the lane has no draw (`has`).
template <class T, int G, int NV>
__device__ __forceinline__ int draw_across_lanes(const T (&x)[NV][Shape<T>::E], const LaneTree<T, G, NV>& tr, double u, bool has) {
  constexpr int E = Shape<T>::E;
  double t = __dmul_rn(u, tr.root);
  int at = 0;  // the first lane of the node the draw is in
#pragma unroll
  for (int h = LaneTree<T, G, NV>::kLevels - 1; h >= 0; --h) {
    const double left = __shfl_sync(~0u, tr.left[h], at, G), right = __shfl_sync(~0u, tr.right[h], at, G);
    if (!(t < left) && right > 0) {
      t = __dsub_rn(t, left);
      at += 1 << h;
    }
  }
  double r = 0, below = 0, kept_pair = 0;
  int chosen = 0;
  T kept[E];
#pragma unroll
  for (int c = 0; c < E; ++c) kept[c] = T(0);
  bool going = true;
#pragma unroll
  for (int j = 0; j < NV; ++j) {
    const double q = __shfl_sync(~0u, tr.q[j], at, G);
    double pair = 0;
    if constexpr (E == 4) pair = __shfl_sync(~0u, tr.pair[j], at, G);
    T v[E];
#pragma unroll
    for (int c = 0; c < E; ++c) v[c] = __shfl_sync(~0u, x[j][c], at, G);
    going = going && t >= r;
    if (going) {
      if (q > 0) {
        chosen = j;
        below = r;
        kept_pair = pair;
#pragma unroll
        for (int c = 0; c < E; ++c) kept[c] = v[c];
      }
      r = add(r, q);
    }
  }
  return has ? static_cast<int>(vector_first<T>(0, at, chosen) + in_kept_vector<T>(t, below, kept, kept_pair)) : -1;
}

// Which draws a lanes_pass kernel makes: One, one a row (`draws` 1); Round,
// 2 to G a row (one round of the row's lanes, its uniforms packed); Many,
// S a row in rounds of G; Both, one or Many, chosen at run time (for the
// row lengths where the one-draw code measured faster scheduled beside the
// S-draw code, lanes_one_apart). Round is a kernel of its own so that the
// rounds' loop does not take its registers.
enum class LanesDraws { One, Both, Round, Many };

// kSteps: the steps (R rows each) a warp takes; a batch of vectors a lane
// (kBatch / NV) but where S > 1 draws' rows are too few to fill the GPU
// that way (lanes_one_step; they take the Many kernel).
template <class T, int G, int NV, LanesDraws kDraws, bool kAligned, int kSteps = kBatch / NV>
__global__ void __launch_bounds__(kLanesWarps * kLanes, lanes_blocks(NV)) lanes_pass(const T* __restrict__ w, int m, std::int64_t k, std::uint64_t seed,
                                                                   int draws, int* __restrict__ out) {
  static_assert(G >= 1 && G <= kLanes && (G & (G - 1)) == 0, "a row on a power of two of lanes, up to 32");
  static_assert(NV == 1 || (G == kLanes && kBatch % NV == 0), "vectors a lane > 1 only where a row takes the warp");
  static_assert(kSteps >= 1 && kSteps <= kBatch / NV, "at most a batch of vectors a lane in flight");
  constexpr int E = Shape<T>::E;
  constexpr int R = kLanes / G;                        // rows a step
  constexpr int S = kSteps;                            // steps a warp
  constexpr int kRows = R * S;                         // rows a warp
  constexpr int kOwn = (kRows + kLanes - 1) / kLanes;  // one draw a row: the uniforms a lane makes
  const int lane = threadIdx.x % kLanes, warp = threadIdx.x / kLanes;
  const int i = lane % G;  // the lane's place in its row
  const std::int64_t row0 = (static_cast<std::int64_t>(blockIdx.x) * kLanesWarps + warp) * kRows;
  if (row0 >= m) return;  // (whole warps)
  T x[S][NV][E];
  // The warp's rows read, each row's start on 16 bytes where the matrix
  // and K put every row there (kAligned), and with no test a row where
  // the warp's rows are all in the matrix (kWhole: every warp but the
  // last). Where rows are not all aligned the kernel is the tested code
  // alone (fp64 K = 255 measured 10% slower with both copies in it).
  const auto load_rows = [&](auto whole) {
    constexpr bool kWhole = decltype(whole)::value;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const std::int64_t row = row0 + s * R + lane / G;
      const T* r = w + row * k;
      const bool aligned = kAligned || reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
#pragma unroll
      for (int j = 0; j < NV; ++j) {
        if (kWhole || row < m) {
          load_vector(r, k, aligned, vector_first<T>(0, i, j), x[s][j]);
        } else {
#pragma unroll
          for (int c = 0; c < E; ++c) x[s][j][c] = T(0);
        }
      }
    }
  };
  if (kAligned && row0 + kRows <= m) {
    load_rows(cuda::std::true_type{});
  } else {
    load_rows(cuda::std::false_type{});
  }
  if (kDraws == LanesDraws::One || (kDraws == LanesDraws::Both && draws == 1)) {
    // Straight-line code over the S rows a lane is in (no branch between
    // them), so their dependent chains interleave.
    const RowUniforms uniform(seed);
    double own[kOwn];
#pragma unroll
    for (int c = 0; c < kOwn; ++c) {
      const std::int64_t row = row0 + c * kLanes + lane;
      const double made = uniform(row, 0);  // (past m too: no branch around the Philox)
      own[c] = row < m && c * kLanes + lane < kRows ? made : 0.0;
    }
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const std::int64_t row = row0 + s * R + lane / G;
      LaneTree<T, G, NV> tr;
      build_lane_tree<T, G, NV>(x[s], i, tr);
      // (s unrolled: own stays in registers; a lane a row made its own)
      const double u = G == 1 ? own[s] : __shfl_sync(~0u, own[s * R / kLanes], (s * R) % kLanes + lane / G);
      const int col = draw_on_lanes<T, G, NV>(x[s], i, tr, u);
      if (col >= 0 && row < m) out[row] = col;
    }
  } else if (kDraws == LanesDraws::Round) {
    // One round of draws a row, lane i draw i: straight-line code over the
    // S steps, their uniforms made first, so their chains interleave. The
    // warp's uniforms are made packed: a row's draws take D = draws rounded
    // up to a power of two (<= G) places, a step's R rows R D <= 32, and
    // lane L makes place c * 32 + L of the warp's kRows D, ceil(kRows D /
    // 32) Philox rounds a warp where a round a step made S, most of its
    // lanes' uniforms unused (fp32 K = 256, S = 8: one round, not 4); each
    // step then takes its own by a shuffle.
    const int log_d = draws == 1 ? 0 : 32 - __clz(draws - 1);
    constexpr int kLogR = cuda::std::bit_width(static_cast<unsigned>(R)) - 1;
    const int log_step = kLogR + log_d;  // a step's places, log2 (R D <= 32)
    const int rounds = ((S << log_step) + kLanes - 1) / kLanes;
    // Round c's uniform goes at once to the steps whose places it holds (a
    // scalar a round: an array of rounds indexed by step the compiler
    // would put in local memory).
    const RowUniforms uniform(seed);
    double u[S];
#pragma unroll
    for (int c = 0; c < S; ++c) {
      if (c < rounds) {
        const int f = c * kLanes + lane;
        const int s = f >> log_step, d = f & ((1 << log_d) - 1);
        const std::int64_t row = row0 + static_cast<std::int64_t>(s) * R + ((f >> log_d) & (R - 1));
        const double made = s < S && d < draws && row < m ? uniform(row, d) : 0.0;
#pragma unroll
        for (int t = 0; t < S; ++t) {
          const int first = t << log_step;  // step t's first place
          if (first / kLanes == c) u[t] = __shfl_sync(~0u, made, (first + ((lane / G) << log_d) + i) % kLanes);
        }
      }
    }
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const std::int64_t row = row0 + s * R + lane / G;
      const bool has = row < m && i < draws;
      LaneTree<T, G, NV> tr;
      build_lane_tree<T, G, NV>(x[s], i, tr);
      const int col = draw_across_lanes<T, G, NV>(x[s], tr, u[s], has);
      if (has) out[row * draws + i] = col;
    }
  } else {
    const RowUniforms uniform(seed);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const std::int64_t row = row0 + s * R + lane / G;
      LaneTree<T, G, NV> tr;
      build_lane_tree<T, G, NV>(x[s], i, tr);
      for (int d0 = 0; d0 < draws; d0 += G) {  // the row's G lanes make G draws at a time, lane i draw d0 + i
        const bool has = row < m && d0 + i < draws;
        const double any = uniform(row, d0 + i);  // (no branch around the Philox)
        const double u = has ? any : 0.0;
        const int col = draw_across_lanes<T, G, NV>(x[s], tr, u, has);
        if (has) out[row * draws + d0 + i] = col;
      }
    }
  }
}

}  // namespace

}  // namespace warpsim::gpu
