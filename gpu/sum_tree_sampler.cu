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
// The kernels (the layouts of SumTreePlan):
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

namespace warpsim::gpu {

namespace {

constexpr int kLanes = 32;
constexpr int kVectorsPerLane = 32;
constexpr int kBatch = 8;  // vectors a lane has in flight
constexpr int kRowThreads = 256;

template <class T>
struct Shape {
  static constexpr int E = 16 / static_cast<int>(sizeof(T));
  static constexpr std::int64_t G = static_cast<std::int64_t>(kLanes) * kVectorsPerLane * E;
};

__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }

// Vector `first / E` of a row (first: its first element's offset in the
// row), zeros past K: one 16-byte load where the row is aligned. kOnce:
// through ld.global.cs, whose lines L2 evicts first (SumTreePlan::
// read_once), not the read-only path's __ldg.
template <class T, bool kOnce = false>
__device__ __forceinline__ void load_vector(const T* row, std::int64_t k, bool aligned, std::int64_t first, T (&x)[Shape<T>::E]) {
  constexpr int E = Shape<T>::E;
  const auto read = [](const auto* at) {
    if constexpr (kOnce) {
      return __ldcs(at);
    } else {
      return __ldg(at);
    }
  };
  if (aligned && first + E <= k) {
    if constexpr (E == 4) {
      const float4 v = read(reinterpret_cast<const float4*>(row + first));
      x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
    } else {
      const double2 v = read(reinterpret_cast<const double2*>(row + first));
      x[0] = v.x, x[1] = v.y;
    }
  } else {
#pragma unroll
    for (int c = 0; c < E; ++c) x[c] = first + c < k ? read(row + first + c) : T(0);
  }
}

template <class T>
__device__ __forceinline__ double vector_sum(const T (&x)[Shape<T>::E]) {
  if constexpr (Shape<T>::E == 4) {
    return add(add(static_cast<double>(x[0]), static_cast<double>(x[1])), add(static_cast<double>(x[2]), static_cast<double>(x[3])));
  } else {
    return add(static_cast<double>(x[0]), static_cast<double>(x[1]));
  }
}

template <class T>
__device__ __forceinline__ std::int64_t vector_first(std::int64_t segment_base, int lane, int j) {
  return segment_base + (static_cast<std::int64_t>(j) * kLanes + lane) * Shape<T>::E;
}

// Lane `lane`'s sum over its vectors of the segment at segment_base, kB of
// them in flight at a time (the sum is the same for any kB; kOnce:
// load_vector's).
template <class T, int kB = kBatch, bool kOnce = false>
__device__ double lane_sum(const T* row, std::int64_t k, bool aligned, std::int64_t segment_base, int lane) {
  static_assert(kB > 0 && kVectorsPerLane % kB == 0, "a lane's vectors come in whole batches");
  double r = 0;
#pragma unroll 1
  for (int j0 = 0; j0 < kVectorsPerLane; j0 += kB) {
    if (vector_first<T>(segment_base, 0, j0) >= k) break;  // the rest are zeros: r + 0 is r
    T x[kB][Shape<T>::E];
#pragma unroll
    for (int b = 0; b < kB; ++b) load_vector<T, kOnce>(row, k, aligned, vector_first<T>(segment_base, lane, j0 + b), x[b]);
#pragma unroll
    for (int b = 0; b < kB; ++b) r = add(r, vector_sum<T>(x[b]));
  }
  return r;
}

// A lane's vectors come in kBatches batches of kBatch.
constexpr int kBatches = kVectorsPerLane / kBatch;

// Whether rows of K weights give a lane more than one batch of vectors in
// their first segment: only there do a lane's marks (below) save a draw
// any loads.
template <class T>
__host__ __device__ constexpr bool past_a_batch(std::int64_t k) {
  return k > static_cast<std::int64_t>(kBatch) * kLanes * Shape<T>::E;
}

// The marks a lane keeps a segment for a block a row's draws a lane a
// draw: one a batch but the last past a batch (lane_sum_marked), one a
// vector but the first for a row of 2 to 8 vectors a lane
// (lane_sum_vector_marked), none for a vector a lane.
template <class T>
__host__ __device__ constexpr int marks_a_lane(std::int64_t k) {
  return past_a_batch<T>(k) ? kBatches - 1 : k > static_cast<std::int64_t>(kLanes) * Shape<T>::E ? kBatch - 1 : 0;
}

// lane_sum, and its marks: the running sum r after each batch but the last
// (marks[b * kLanes], b < kBatches - 1: the same value the sum's own
// additions reach there) and which batches hold a vector whose sum is > 0
// (bit b of the returned mask). A draw then starts its walk at the batch
// where it ends (descend_marked), not at vector 0.
template <class T>
__device__ double lane_sum_marked(const T* row, std::int64_t k, bool aligned, std::int64_t segment_base, int lane, double* marks,
                                  unsigned& positive) {
  double r = 0;
  unsigned bits = 0;
  int b = 0;
#pragma unroll 1
  for (; b < kBatches; ++b) {
    const int j0 = b * kBatch;
    if (vector_first<T>(segment_base, 0, j0) >= k) break;  // the rest are zeros: r + 0 is r
    T x[kBatch][Shape<T>::E];
#pragma unroll
    for (int c = 0; c < kBatch; ++c) load_vector(row, k, aligned, vector_first<T>(segment_base, lane, j0 + c), x[c]);
#pragma unroll
    for (int c = 0; c < kBatch; ++c) {
      const double q = vector_sum<T>(x[c]);
      if (q > 0) bits |= 1u << b;
      r = add(r, q);
    }
    if (b < kBatches - 1) marks[b * kLanes] = r;
  }
  for (; b < kBatches - 1; ++b) marks[b * kLanes] = r;  // (batches past K)
  positive = bits;
  return r;
}

// lane_sum over a row of one batch a lane or less (K <= kBatch x 32 E, one
// segment), and its marks a vector: r before each vector j > 0
// (marks[(j - 1) * kLanes]: the same value the sum's own additions reach
// there) and which vectors' sums are > 0 (bit j of the returned mask). A
// draw then reads its chosen vector alone (descend_vector_marked), not the
// lane's batch.
template <class T>
__device__ double lane_sum_vector_marked(const T* row, std::int64_t k, bool aligned, int lane, double* marks, unsigned& positive) {
  double r = 0;
  unsigned bits = 0;
  T x[kBatch][Shape<T>::E];
#pragma unroll
  for (int j = 0; j < kBatch; ++j) load_vector(row, k, aligned, vector_first<T>(0, lane, j), x[j]);
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    const double q = vector_sum<T>(x[j]);
    if (q > 0) bits |= 1u << j;
    if (j > 0) marks[(j - 1) * kLanes] = r;
    r = add(r, q);
  }
  positive = bits;
  return r;
}

// The pair tree's node over lanes [lo, lo + n) (n a power of two), as the
// butterfly forms it; at(i) is lane i's sum.
template <int n, class At>
__device__ __forceinline__ double pair_sum(const At& at, int lo) {
  if constexpr (n == 1) {
    return at(lo);
  } else {
    return add(pair_sum<n / 2>(at, lo), pair_sum<n / 2>(at, lo + n / 2));
  }
}

template <int n, class At>
__device__ __forceinline__ bool any_positive(const At& at, int lo) {
  bool any = false;
#pragma unroll
  for (int i = 0; i < n; ++i) any |= at(lo + i) > 0;  // (a sum of weights >= 0 is > 0 iff one of them is)
  return any;
}

// From a segment's 32 lane sums (at(i): lane i's) down to a lane, each
// node's left sum formed again as the butterfly formed it; t becomes the
// lane's own target. (The same descent goes down a row's tree of at most 32
// segments.)
template <class At>
__device__ __forceinline__ int descend_lanes(const At& at, double& t) {
  int lo = 0;
  const auto step = [&](auto half_tag) {
    constexpr int half = decltype(half_tag)::value;
    const double left = pair_sum<half>(at, lo);
    if (!(t < left) && any_positive<half>(at, lo + half)) {
      t = __dsub_rn(t, left);
      lo += half;
    }
  };
  step(std::integral_constant<int, 16>{});
  step(std::integral_constant<int, 8>{});
  step(std::integral_constant<int, 4>{});
  step(std::integral_constant<int, 2>{});
  step(std::integral_constant<int, 1>{});
  return lo;
}

// The segment's sum from its lanes' (mine: this lane's) by the warp's xor
// butterfly, returned to every lane; its steps' sums are the pair tree's
// nodes (a + b is b + a), kept as the heap descend_heap reads (lanes at
// heap[32..63]), so that a draw's descent reads them, not forms them again.
__device__ __forceinline__ double butterfly_kept(double mine, double* heap, int lane) {
  double v = mine;
  heap[kLanes + lane] = mine;
#pragma unroll
  for (int h = 1; h <= 5; ++h) {
    v = add(v, __shfl_xor_sync(~0u, v, 1 << (h - 1)));
    if (lane % (1 << h) == 0) heap[(kLanes + lane) >> h] = v;
  }
  return v;
}

// The same descent over a pair tree kept as a heap (node i's children at
// 2 i and 2 i + 1, the 32 lane sums at 32..63, each node the sum pair_sum
// forms): the left sum read, not formed again; a right node > 0 iff one of
// its lanes is.
__device__ __forceinline__ int descend_heap(const double* tree, double& t) {
  int node = 1;
#pragma unroll
  for (int h = 0; h < 5; ++h) {
    const double left = tree[2 * node];
    node *= 2;
    if (!(t < left) && tree[node + 1] > 0) {
      t = __dsub_rn(t, left);
      node += 1;
    }
  }
  return node - kLanes;
}

// Lane sums in memory (shared, or written by an earlier kernel), lane i at
// p[i * stride].
struct Plain {
  const double* p;
  int stride = 1;
  __device__ double operator()(int i) const { return p[i * stride]; }
};

// Inside the chosen vector (t: the target less the vectors before it): its
// pair tree, (x0 + x1) + (x2 + x3) or x0 + x1, descended. Returns the
// weight's place in the vector.
template <class T>
__device__ __forceinline__ int in_vector(const T (&kept)[Shape<T>::E], double t) {
  int c = 0;
  if constexpr (Shape<T>::E == 4) {
    const double left = add(static_cast<double>(kept[0]), static_cast<double>(kept[1]));
    const double right = add(static_cast<double>(kept[2]), static_cast<double>(kept[3]));
    if (!(t < left) && right > 0) {
      t = __dsub_rn(t, left);
      c = 2;
    }
  }
  const double here = static_cast<double>(c == 0 ? kept[0] : kept[Shape<T>::E == 4 ? 2 : 0]);
  const double next = static_cast<double>(c == 0 ? kept[1] : kept[Shape<T>::E == 4 ? 3 : 1]);
  if (!(t < here) && next > 0) c += 1;
  return c;
}

// The walk's state inside a lane: r, the running sum of the vectors
// walked; the choice so far (the last vector whose sum is > 0 and t >= r
// before it), r before it (below) and its weights (kept; zeros and vector
// 0 while none).
template <class T>
struct LaneWalk {
  double r = 0, below = 0;
  int chosen = 0;
  T kept[Shape<T>::E] = {};

  // Vectors j0, ..., j0 + n - 1 (x), in order. Returns false where t < r:
  // the walk stops there.
  template <int n>
  __device__ __forceinline__ bool batch(const T (&x)[n][Shape<T>::E], int j0, double t) {
#pragma unroll
    for (int b = 0; b < n; ++b) {
      if (!(t >= r)) return false;
      const double q = vector_sum<T>(x[b]);
      if (q > 0) {
        chosen = j0 + b;
        below = r;
#pragma unroll
        for (int c = 0; c < Shape<T>::E; ++c) kept[c] = x[b][c];
      }
      r = add(r, q);
    }
    return true;
  }

  // The chosen weight's column: inside its vector, t less r before it.
  __device__ __forceinline__ std::int64_t column(std::int64_t segment_base, int l, double t) const {
    return vector_first<T>(segment_base, l, chosen) + in_vector<T>(kept, __dsub_rn(t, below));
  }
};

// Inside lane l of the segment at segment_base: the last vector j whose sum
// is > 0 and t >= r_(j-1), then the weight inside it. Returns its column.
// fetch(j, x): the lane's vector j (zeros past K), from wherever the row is.
// kWide: vectors read at a time (the walk stops where t falls, so a wider
// batch is fewer dependent rounds for more registers; the result is the
// same).
template <class T, int kWide = kBatch, class Fetch>
__device__ std::int64_t descend_vectors(const Fetch& fetch, std::int64_t k, std::int64_t segment_base, int l, double t) {
  LaneWalk<T> walk;
  bool going = true;
#pragma unroll 1
  for (int j0 = 0; j0 < kVectorsPerLane && going; j0 += kWide) {
    if (vector_first<T>(segment_base, l, j0) >= k) break;  // zeros from here: never chosen, r unchanged
    T x[kWide][Shape<T>::E];
#pragma unroll
    for (int b = 0; b < kWide; ++b) fetch(j0 + b, x[b]);
    going = walk.template batch<kWide>(x, j0, t);
  }
  return walk.column(segment_base, l, t);
}

// descend_vectors's walk from a lane's marks (lane_sum_marked): it chooses
// the last vector j whose sum is > 0 and t >= r_(j-1), and r only grows, so
// that vector is in the last batch that holds a vector > 0 and starts at
// r <= t (its first such vector qualifies; no later batch's does), and the
// walk needs only that batch's 8 vectors, from the r it starts at (the
// value the whole walk's additions reach there): one round of loads where
// the whole walk makes up to four. The same comparisons, subtractions and
// result; none qualifies only where the lane holds no vector > 0, and then
// the walk of batch 0 from 0 is the whole walk's (vector 0, nothing kept).
// mark(b): r after batch b (b = 0, 1, 2), wherever the marks are;
// positive: the batches holding a vector > 0.
template <class T, class Fetch, class Mark>
__device__ std::int64_t descend_marked(const Fetch& fetch, std::int64_t segment_base, int l, double t, const Mark& mark, unsigned positive) {
  LaneWalk<T> walk;
  int first = 0;
#pragma unroll
  for (int b = 1; b < kBatches; ++b) {
    const double start = mark(b - 1);
    if (((positive >> b) & 1u) && t >= start) {
      first = b * kBatch;
      walk.r = start;
    }
  }
  T x[kBatch][Shape<T>::E];
#pragma unroll
  for (int c = 0; c < kBatch; ++c) fetch(first + c, x[c]);
  walk.template batch<kBatch>(x, first, t);
  return walk.column(segment_base, l, t);
}

// descend_vectors's walk from a lane's marks a vector
// (lane_sum_vector_marked): r only grows, so the vector it chooses, the
// last whose sum is > 0 and t >= r before it, is found from the marks
// alone, and only that vector is read (none where the lane holds no vector
// > 0: then, as in the walk, nothing is kept and vector 0 is the choice).
// The same comparisons and result as the walk over up to 8 vectors.
// mark(j): r before vector j + 1; positive: the vectors > 0.
template <class T, class Fetch, class Mark>
__device__ std::int64_t descend_vector_marked(const Fetch& fetch, int l, double t, const Mark& mark, unsigned positive) {
  int chosen = 0;
  double below = 0;
  bool any = false;
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    const double start = j == 0 ? 0.0 : mark(j - 1);
    if (((positive >> j) & 1u) && t >= start) {
      chosen = j;
      below = start;
      any = true;
    }
  }
  T x[Shape<T>::E] = {};
  if (any) fetch(chosen, x);
  return vector_first<T>(0, l, chosen) + in_vector<T>(x, __dsub_rn(t, below));
}

// The same walk made by the whole warp for one draw whose lane's vectors
// it holds (x: lane j holds vector j of lane l, zeros past K): each lane
// forms its vector's sum, then runs the walk's additions, in order, over
// the 32 sums it gets by shuffles -- the same operations as
// descend_vectors, where one lane reads and adds all 32 vectors itself. The
// lane holding the chosen vector finds the weight; every lane returns it.
template <class T>
__device__ std::int64_t walk_held(const T (&x)[Shape<T>::E], std::int64_t segment_base, int l, double t) {
  const double q = vector_sum<T>(x);
  double r = 0, below = 0;
  int chosen = 0;
  bool going = true;
#pragma unroll 4
  for (int j = 0; j < kVectorsPerLane; ++j) {
    const double qj = __shfl_sync(~0u, q, j);
    going = going && t >= r;
    if (going) {
      if (qj > 0) {
        chosen = j;
        below = r;
      }
      r = add(r, qj);
    }
  }
  // (a lane whose vector sums to 0 holds only zeros, as descend_vectors'
  // kept does when no vector is chosen)
  const int c = __shfl_sync(~0u, in_vector<T>(x, __dsub_rn(t, below)), chosen);
  return vector_first<T>(segment_base, l, chosen) + c;
}

// Draws a warp walks together (SumTreePlan::warp_walk): a round of at most
// this many draws; more go a lane a draw.
constexpr int kWarpWalkDraws = 4;

// A warp's round of n <= kWarpWalkDraws draws (n the same across the warp),
// walked by the whole warp: draw d's segment, lane and target are lane d's
// (seg, l, t). Lane j first reads vector j of every draw's lane -- the
// round's loads all in flight at once, where a lane a draw reads its
// vectors in dependent batches -- then the warp walks each draw
// (walk_held). fetch(seg, l, j, x): lane l's vector j of segment seg (zeros
// past K). Returns the column of the lane's own draw (lanes < n).
template <class T, class Fetch>
__device__ std::int64_t walk_together(const Fetch& fetch, int n, std::int64_t seg, int l, double t, int lane) {
  T x[kWarpWalkDraws][Shape<T>::E];
#pragma unroll
  for (int d = 0; d < kWarpWalkDraws; ++d) {
    const std::int64_t seg_d = __shfl_sync(~0u, seg, d);
    const int l_d = __shfl_sync(~0u, l, d);
    if (d < n) fetch(seg_d, l_d, lane, x[d]);
  }
  std::int64_t mine = 0;
#pragma unroll
  for (int d = 0; d < kWarpWalkDraws; ++d) {
    if (d < n) {  // (the draw's segment, lane and target shuffled again: fewer registers held across the loads)
      const std::int64_t seg_d = __shfl_sync(~0u, seg, d);
      const int l_d = __shfl_sync(~0u, l, d);
      const std::int64_t col = walk_held<T>(x[d], seg_d * Shape<T>::G, l_d, __shfl_sync(~0u, t, d));
      if (lane == d) mine = col;
    }
  }
  return mine;
}

// The lane's vectors read from the row in global memory.
template <class T, int kWide = kBatch>
__device__ std::int64_t descend_vectors(const T* row, std::int64_t k, bool aligned, std::int64_t segment_base, int l, double t) {
  const auto fetch = [&](int j, T(&x)[Shape<T>::E]) { load_vector(row, k, aligned, vector_first<T>(segment_base, l, j), x); };
  return descend_vectors<T, kWide>(fetch, k, segment_base, l, t);
}

// A row's uniforms: draw s's is rng::uniform<double>(seed, row, s) bit for
// bit, from a Philox whose round keys a kernel makes once
// (detail::PhiloxKeyed), not in every block as Random123 does (18 of a
// block's ~60 instructions). Where a lane makes many rows' blocks that
// counts: a lane a row at fp32 K = 4 ran ~150 instructions a row, its
// issue slots 73% busy on the H200 (rows-trials/h200-lanes-ncu/); there
// fp32 (2^26, 4) went from 0.412 to 0.387 ms with the keys made once
// (rows-trials/h200-keyed-philox/).
class RowUniforms {
 public:
  __device__ explicit RowUniforms(std::uint64_t seed) : philox_(seed) {}
  __device__ __forceinline__ double operator()(std::int64_t row, int s) const {
    return rng::uniform_of<double>(philox_(static_cast<std::uint64_t>(row), static_cast<std::uint32_t>(s)));
  }

 private:
  detail::PhiloxKeyed philox_;
};

// Its target: u * the root, rounded once.
__device__ __forceinline__ double target(const RowUniforms& uniform, std::int64_t row, int s, double root) {
  return __dmul_rn(uniform(row, s), root);
}

// A block a row spreads a few rows' many draws over blocks a row until
// the grid holds this many warps a multiprocessor (SumTreeSampler::plan):
// two thirds of the 24 that its 8-warp kernels' 80 registers let a
// multiprocessor hold. Each block sums its row again, and a grid that
// fills the GPU, or more, left blocks waiting for a second wave: H100, a
// sweep of blocks a row at 22 points of 8-512 rows (docs/PERF.md), 16
// within 0-9% of the fastest at the 18 where it was among those timed
// (the fastest at 12), 32 (the rule before) 9-30% slower than the fastest
// at 18 (fp32 (32, 4,096, S = 8,192) 131 blocks a row 25.2 us against
// 21.4 at 66; (64, 4,096, 4,096) 26.2 against 20.8 at 33; fp64 (64,
// 4,096, 4,096) 25.3 against 19.5 at 16).
constexpr std::int64_t kBlockRowFillWarps = 16;

// The longest row a block a row keeps in shared memory, in segments (16 KB each).
constexpr int kKeptSegments = 8;
// The longest row plan() gives a block a row when M leaves multiprocessors
// idle, in segments (docs/PERF.md: fp64 (1, 32,768), 16 segments, 11.5 us a
// block a row against 12.5 segmented; fp32 (1, 131,072), 32 segments, 18.3
// against 15.2).
constexpr int kBlockRowSegments = 16;

constexpr std::size_t kStagedPerWarp = kLanes * (kLanes + 1) * sizeof(double);

// plan() gives a warp a row (the second kernel) one draw a row where M x
// segments is at most this many warps a multiprocessor.
constexpr int kFewWarps = 4;

// The second kernel's warps, and the most draws a block of it spreads over
// them (one walked round of 4 a warp).
constexpr int kRowWarps = kRowThreads / kLanes;
constexpr int kRowWarpDraws = kRowWarps * kWarpWalkDraws;
// Each of a row's blocks in the second kernel makes this many of its draws
// (the last block the rest).
constexpr int row_chunk(int draws, int blocks) { return (draws + blocks - 1) / blocks; }

// The draws a segment from which the segment pass keeps its lanes' marks
// for the second kernel (SumTreeSampler::draw).
constexpr std::int64_t kMarkedDraws = 4;

// Whether the segment pass keeps its lanes' marks (Tail::Marks) under plan
// `p`: for the second kernel a block a row (second_pass 1) with its draws
// a lane a draw (not walked, or more than 4 a warp), rows of more than a
// batch a lane, and at least kMarkedDraws draws a segment. The launch and
// plan_for (a pass that keeps marks does not read once) both ask this.
template <class T>
bool segment_keeps_marks(const SumTreePlan& p, std::int64_t k, std::int64_t segments, int draws) {
  if (p.layout != SumTreePlan::Layout::Segmented || p.second_pass != 1) return false;
  const int chunk = row_chunk(draws, p.row_blocks);  // (the second kernel's draws a block)
  return (p.warp_walk != 1 || chunk > kRowWarps * kWarpWalkDraws) && past_a_batch<T>(k) &&
         static_cast<std::int64_t>(draws) >= kMarkedDraws * segments;
}

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

// The second kernel a warp a row (SumTreePlan::second_pass 2): rows of at
// most kWarpRowSegments segments with at most kWarpWalkDraws draws each,
// many rows. A warp builds its row's tree in its own shared memory, level by
// level as row_pass does (the same tree: a __syncwarp a level, not a
// __syncthreads), then walks the row's draws together. row_pass gives each
// row a block of 8 warps for these few draws (and, before 7d0115a, 68 KB
// of shared memory: three blocks a multiprocessor, so 1,024 rows took
// three rounds of blocks, each a chain of dependent trips through L2); a
// warp a row here takes at most 5 KB of shared memory (P = 256), and tens
// of rows a multiprocessor go in one round.
constexpr int kWarpRowSegments = 256;
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

// The resident pass (SumTreePlan::second_pass 3): one kernel, no second
// launch, no last warp. A block a segment of W = 1 or 4 warps (4 where
// each block has a multiprocessor of its own): each warp copies its share
// of every lane's vectors to shared memory at once (cp.async) while it
// makes its first uniforms, and sums those vectors; the first warp keeps its
// lanes' running sums there (r before each vector: the walk's r, which the
// lane's sum reaches in the same additions), posts the segment's sum,
// reads every segment's sum of its row until all are posted -- the grid is
// resident (a cooperative launch), so no block waits on one that has not
// started -- and builds the row's tree (the same levels as row_pass's; up
// to 64 segments by the warp's butterfly). Then each warp descends its
// rounds of the row's draws (warp w draws 32 w to 32 w + 31, then 32 W
// on) to their segment; a draw that lands in the block's own segment is
// finished there from shared memory: its lane by the butterfly's sums
// (kept as a heap), its vector by bisection over the kept running sums
// (the walk's last vector > 0 with t >= r before it: r only grows, so
// those vectors are a prefix's), its weight in the kept vector. Where the
// draw is made changes nothing in it.
//
// A posted sum is 16 bytes, the sum and the call's epoch (the sampler's
// count of resident calls), written and read each as one 16-byte access
// (st/ld.relaxed.gpu.b128, single-copy atomic: a .b128 access is one
// scalar access in PTX's memory model, as libcu++'s 16-byte atomics use
// it): a reader takes a sum once its epoch is this call's, so no slot is
// ever set back (an earlier version counted each row's readers with a
// ticket and had the last reset the row's slots: the ticket's round trip
// held every warp about 0.7 us, rows-trials/h100-resident-phases/) and a
// NaN sum is posted as any other.
constexpr int kResidentSegments = 512;  // rows of up to this many segments (the tree: 8 KB)
constexpr int kResidentDraws = 64;      // up to this many draws a row (each block descends them all)
constexpr int kResidentWarps = 4;       // a block's warps where it has a multiprocessor alone: one a scheduler (else 1)
// plan() takes it for rows longer than lanes a row hold where its grid is
// at most 4 warps a multiprocessor (kFewWarps: latency, not bandwidth),
// and at most 4 draws a segment: H100, every layout forced side by side
// (rows-trials/h100-resident/), fp32 (1, 131,072) 11.7 and 12.2 us
// against 13.1 and 13.8 a warp a row after the segment pass; (1, 4,096)
// 10.5 and 9.1 against 11.1 and 10.3 a block a row; fp64 (1, 131,072, S =
// 64) 12.5 and 11.7 against 15.2 and 15.9 over 8 blocks. Rows of 65-512
// segments went a warp a row after the segment pass until the resident
// pass's later changes (the epoch-tagged posts, the butterfly's tree): at
// (1, 1,048,576), 256 segments, 15.1 and 13.8 us against 13.4 and 12.6
// then, but in each of the four table runs since, forced beside the plan's
// (rows-h100-cluster/, rows-h100-keyed-philox/, -2/, rows-h100-resident-
// warps/), 11.4, 30.3, 12.8, 14.3 against 13.2, 45.1, 15.4, 17.0 (fp64, 512
// segments: 13.1, 12.9, 22.2, 15.2 against 13.5, 13.5, 32.2, 15.3 a block
// a row); ncu (their ncu_small_m.csv): 7.8-8.0 us against 5.2 + 5.9-6.2
// for the two kernels. With S > 1 draws of several rows only where the
// grid is at most a block a multiprocessor (each block then descends all
// its row's draws): a block a row was faster at fp32 (64, 32,768, S = 4),
// 512 warps, 11.9 us against 13.0, and (100, 16,384, 8) 11.1 against
// 12.4, where fp32 (1, 32,768, 4) went 11.6 -> 11.4 and (64, 4,096, 4)
// 11.4 -> 10.2 (rows-h100-resident/extra_block.jsonl). One row's S draws
// go resident as its one draw does: forced beside the plan's
// (rows-trials/h100-resident-one-row/, two rounds), fp32 (1, 1,048,576,
// S = 2) 12.2-12.7 us against 14.8-15.3 after the segment pass, S = 8
// 12.0-12.9 against 14.9-15.4, S = 64 12.9-15.2 against 14.3-15.7; (1,
// 2,097,152) 14.0-15.6 against 14.8-16.4; fp64 (1, 524,288, S = 2-64)
// 11.2-13.2 against 14.4-15.5.
// Its warps a block, unless asked: 4 (one a scheduler) where every block
// has a multiprocessor of its own, else 1. The block's warps share its
// segment's copy and its vectors' sums (each a quarter of every lane's
// vectors) and its draws, a round of 32 each. H100, kernel durations by
// ncu (rows-trials/h100-resident-warps/): fp32 (1, 131,072) 6.1 -> 5.0 us,
// S = 64 7.4 -> 5.3, (4, 131,072) 6.5 -> 5.8; fp64 (1, 131,072) 5.8 ->
// 5.3, S = 64 7.0 -> 5.5; but two warps a block over 256 blocks 6.6 ->
// 6.8 (fp32 (8, 131,072)) and 6.2 -> 6.6 (fp64 (4, 131,072)). (The one-
// warp kernel ran 1 us slower at 512 blocks with the warp's index read
// from threadIdx and its first vector a variable; with them constants it
// is the kernel before, to the ncu median: W == 1 folds them below.)
constexpr int resident_warps(int sms, std::int64_t blocks) { return blocks <= sms ? kResidentWarps : 1; }
constexpr bool resident_chosen(int sms, int m, std::int64_t segments, int draws) {
  const std::int64_t warps = static_cast<std::int64_t>(m) * segments;
  return segments <= kResidentSegments && draws <= kResidentDraws && draws <= 4 * segments &&
         warps <= static_cast<std::int64_t>(draws == 1 || m == 1 ? kFewWarps : 1) * sms;
}

// Its dynamic shared memory: the segment, each lane's running sums (r before
// vector j at [j][l], rows of 33), the lanes' heap, the row's heap, the
// row's tree (2 P).
__host__ __device__ constexpr std::size_t resident_shared_bytes(int p) {
  return kSegmentBytes + (static_cast<std::size_t>(kVectorsPerLane) * (kLanes + 1) + 4 * kLanes + 2 * static_cast<std::size_t>(p)) * sizeof(double);
}

// A slot: 16 bytes, 16-byte aligned (two doubles of the scratch).
__device__ __forceinline__ void post_sum(double* slot, double v, std::uint64_t epoch) {
  asm volatile("{\n\t.reg .b128 t;\n\tmov.b128 t, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], t;\n\t}"
               :: "l"(slot), "l"(__double_as_longlong(v)), "l"(epoch) : "memory");
}

// The slot's sum where its epoch is `epoch`; else false.
__device__ __forceinline__ bool read_posted(const double* slot, std::uint64_t epoch, double& v) {
  long long bits;
  std::uint64_t e;
  asm volatile("{\n\t.reg .b128 t;\n\tld.relaxed.gpu.global.b128 t, [%2];\n\tmov.b128 {%0, %1}, t;\n\t}"
               : "=l"(bits), "=l"(e) : "l"(slot) : "memory");
  v = __longlong_as_double(bits);
  return e == epoch;
}

template <class T, int W>
__global__ void __launch_bounds__(W * kLanes) resident_pass(const T* __restrict__ w, std::int64_t k, int segments, int p, double* __restrict__ posted,
                                                            std::uint64_t epoch, std::uint64_t seed, int draws, int* __restrict__ out) {
  static_assert(W == 1 || W == kResidentWarps, "the resident pass: a warp a block, or one a scheduler");
  static_assert(kVectorsPerLane % W == 0, "each warp copies and sums an equal share of every lane's vectors");
  const RowUniforms uniform(seed);  // rng::uniform<double>(seed, row, s)
  constexpr int E = Shape<T>::E;
  constexpr int J = kVectorsPerLane / W;  // each lane's vectors a warp copies and sums
  extern __shared__ __align__(16) unsigned char resident_smem[];
  unsigned char* const kept = resident_smem;
  double(*const before)[kLanes + 1] = reinterpret_cast<double(*)[kLanes + 1]>(resident_smem + kSegmentBytes);
  double* const heap = &before[kVectorsPerLane][0];  // the lanes' pair tree, lanes at 32..63 (descend_heap)
  double* const row_heap = heap + 2 * kLanes;         // up to 64 segments: the row's tree above its leaves (or level 1), a heap
  double* const tree = row_heap + 2 * kLanes;         // the row's: level 0 at [0, p), ..., the root at 2p - 2 (past 64: all of it)
  __shared__ unsigned positive[kLanes];               // lane l's vectors whose sum is > 0 (bit j)
  __shared__ double row_root;                          // (where W > 1)
  __shared__ int row_levels;
  detail::join_dependent_chain();
  const int lane = static_cast<int>(threadIdx.x % kLanes), warp = W == 1 ? 0 : static_cast<int>(threadIdx.x / kLanes);
  const std::int64_t row = blockIdx.x / segments;
  const int g = static_cast<int>(blockIdx.x % segments);
  const T* r = w + row * k;
  const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
  const std::int64_t base = static_cast<std::int64_t>(g) * Shape<T>::G;
  copy_segment<T, J>(kept, r, k, aligned, base, lane, warp * J);
  __pipeline_commit();
  const auto uniform_s = [&](int s) { return uniform(row, s); };
  double u = warp * kLanes + lane < draws ? uniform_s(warp * kLanes + lane) : 0.0;  // (the warp's first draws, made while the segment lands)
  __pipeline_wait_prior(0);
  // The vectors' sums, independent of one another: each warp those of its
  // J vectors of every lane (a thread reads the vectors it copied), left
  // in `before` for the first warp's chain where the block has several.
  double q[kVectorsPerLane];
#pragma unroll
  for (int jj = 0; jj < J; ++jj) {
    T x[E];
    kept_vector<T>(kept, lane, warp * J + jj, x);
    q[jj] = vector_sum<T>(x);
    if constexpr (W > 1) before[warp * J + jj][lane] = q[jj];
  }
  if constexpr (W > 1) __syncthreads();
  double root = 0;  // (the row's, where W > 1 the first warp's)
  int levels = 0;
  if (W == 1 || warp == 0) {
    // The lane's sum in lane_sum's order (zeros past K add nothing), r
    // before each vector kept (in place of the vector's sum): the chain of
    // 32 additions alone (stamps inside the kernel, rows-trials/h100-
    // resident-phases/: 1.3 us for fp32 (1, 131,072) with each vector's
    // read, conversions and sum in the chain; the sums spread over four
    // warps, one a scheduler, took fp32's kernel from 6.1 to 5.0 us).
    if constexpr (W > 1) {
#pragma unroll
      for (int j = 0; j < kVectorsPerLane; ++j) q[j] = before[j][lane];
    }
    double acc = 0;
    unsigned bits = 0;
#pragma unroll
    for (int j = 0; j < kVectorsPerLane; ++j) {
      before[j][lane] = acc;
      if (q[j] > 0) bits |= 1u << j;
      acc = add(acc, q[j]);
    }
    positive[lane] = bits;
    const double v = butterfly_kept(acc, heap, lane);
    root = v;
    if (segments > 1) {
      double* const row_posted = posted + 2 * (row * segments);  // (a slot: 2 doubles)
      if (lane == 0) post_sum(row_posted + 2 * g, v, epoch);
      bool all = false;
      while (!all) {
        bool here = true;
        for (int i = lane; i < segments; i += kLanes) {
          double sum;
          if (read_posted(row_posted + 2 * i, epoch, sum)) {
            tree[i] = sum;
          } else {
            here = false;
          }
        }
        all = __all_sync(~0u, here);
      }
      for (int i = segments + lane; i < p; i += kLanes) tree[i] = 0.0;
      __syncwarp();
      if (p <= 2 * kLanes) {
        // Up to 64 segments: the row's tree by the warp's butterfly, not
        // level by level in shared memory (0.7 us for 32 segments: rows-
        // trials/h100-resident-phases/): lane i holds leaf i, or node i of
        // level 1 (leaves 2i and 2i + 1) for 33-64, and the butterfly's
        // steps are the levels above (the padded tree of 32 has the same
        // root and left sums: x + 0 is x), kept as a heap.
        const double leaf = p > kLanes ? add(tree[2 * lane], tree[2 * lane + 1]) : lane < p ? tree[lane] : 0.0;
        root = butterfly_kept(leaf, row_heap, lane);
      } else {
        levels = build_warp_tree(tree, p, lane);
        root = tree[2 * p - 2];
      }
    }
    if constexpr (W > 1) {
      if (lane == 0) {
        row_root = root;
        row_levels = levels;
      }
    }
  }
  if constexpr (W > 1) {
    __syncthreads();  // (before, positive, the heaps, the tree, the root)
    root = row_root;
    levels = row_levels;
  } else {
    __syncwarp();  // (before, positive, the heaps)
  }
  int* const row_out = out + row * draws;
  for (int s0 = warp * kLanes; s0 < draws; s0 += W * kLanes) {
    const int s = s0 + lane;
    if (s0 != warp * kLanes) u = s < draws ? uniform_s(s) : 0.0;
    double t = __dmul_rn(u, root);  // target(): u * the root, rounded once
    std::int64_t c = 0;
    if (segments > 1 && p <= 2 * kLanes) {
      c = descend_heap(row_heap, t);
      if (p > kLanes) {  // (the last level: leaves 2c and 2c + 1)
        const double left = tree[2 * c], right = tree[2 * c + 1];
        if (!(t < left) && right > 0) {
          t = __dsub_rn(t, left);
          c = 2 * c + 1;
        } else {
          c = 2 * c;
        }
      }
    } else if (segments > 1) {
      c = descend_row_tree(tree, p, levels, t);
    }
    if (s < draws && c == g) {
      // A draw that landed here, each lane its own: the lane by the heap,
      // then the walk's vector from the kept running sums -- the walk
      // goes on while t >= r before a vector, and r only grows, so those
      // vectors are a prefix, found by bisection (J, its last); the walk's
      // vector is the prefix's last one whose sum is > 0. None: the lane
      // holds no vector > 0 (only where the row is all zeros), and the
      // walk's vector 0, all zeros, below 0. (Every lane at once: one draw
      // at a time over the warp, a ballot a draw, ended fp32 (1, 131,072,
      // S = 64) 0.6 us later, rows-trials/h100-resident-phases/call-6/.)
      const int l = descend_heap(heap, t);
      int last = 0;
#pragma unroll
      for (int step = kVectorsPerLane / 2; step > 0; step /= 2) {
        if (t >= before[last + step][l]) last += step;
      }
      const unsigned ends = positive[l] & ((2u << last) - 1u);  // (vectors 0..last whose sum is > 0)
      const int j = ends ? 31 - __clz(ends) : 0;
      T x[E];
      kept_vector<T>(kept, l, j, x);
      row_out[s] = static_cast<int>(vector_first<T>(base, l, j) + in_vector<T>(x, __dsub_rn(t, before[j][l])));
    }
  }
}

// A warp 32 rows (rows of one segment): the warp sums each row as
// segment_pass sums a segment, one row after another, keeping the rows'
// lanes' sums in shared memory and lane i the root of row i; then lane i
// makes row i's draws (all 32 rows' draws at once: the uniforms and the
// descents are the costly part of a short row).
constexpr int kRowsWarps = 4;
template <class T>
__global__ void __launch_bounds__(kRowsWarps * kLanes) rows_pass(const T* __restrict__ w, int m, std::int64_t k, std::uint64_t seed, int draws,
                                                                 int* __restrict__ out) {
  const RowUniforms uniform(seed);  // rng::uniform<double>(seed, row, s)
  __shared__ double sums[kRowsWarps][kLanes][kLanes + 1];  // warp, its row, lane (+1: rows apart in banks)
  const int lane = threadIdx.x % kLanes, warp = threadIdx.x / kLanes;
  const std::int64_t row0 = (static_cast<std::int64_t>(blockIdx.x) * kRowsWarps + warp) * kLanes;
  if (row0 >= m) return;
  const int rows = static_cast<int>(min(static_cast<std::int64_t>(kLanes), m - row0));
  double root = 0;
  const auto finish_row = [&](int i, double mine) {
    sums[warp][i][lane] = mine;
    double v = mine;
#pragma unroll
    for (int bit = 1; bit < kLanes; bit <<= 1) v = add(v, __shfl_xor_sync(~0u, v, bit));
    if (lane == i) root = v;
  };
  constexpr int E = Shape<T>::E;
  if (k <= static_cast<std::int64_t>(kBatch) * kLanes * E) {
    // A lane's vectors of a row are one batch: the next row's batch is
    // loaded while this row is summed (lane_sum's order: r = 0, r += q_j).
    const auto load = [&](int i, T (&x)[kBatch][E]) {
      const T* r = w + (row0 + i) * k;
      const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
#pragma unroll
      for (int b = 0; b < kBatch; ++b) load_vector(r, k, aligned, vector_first<T>(0, lane, b), x[b]);
    };
    T cur[kBatch][E], next[kBatch][E];
    load(0, cur);
    for (int i = 0; i < rows; ++i) {
      if (i + 1 < rows) load(i + 1, next);
      double mine = 0;
#pragma unroll
      for (int b = 0; b < kBatch; ++b) mine = add(mine, vector_sum<T>(cur[b]));
      finish_row(i, mine);
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
#pragma unroll
        for (int c = 0; c < E; ++c) cur[b][c] = next[b][c];
    }
  } else {
    for (int i = 0; i < rows; ++i) {
      const T* r = w + (row0 + i) * k;
      finish_row(i, lane_sum(r, k, reinterpret_cast<std::uintptr_t>(r) % 16 == 0, 0, lane));
    }
  }
  __syncwarp();
  if (lane >= rows) return;
  const std::int64_t row = row0 + lane;
  const T* r = w + row * k;
  const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
  for (int s = 0; s < draws; ++s) {
    double t = target(uniform, row, s, root);
    const int l = descend_lanes(Plain{sums[warp][lane]}, t);
    out[row * draws + s] = static_cast<int>(descend_vectors(r, k, aligned, 0, l, t));
  }
}

// A thread a row (rows of at most two vectors a lane, K <= 64 E): each warp
// first copies its 32 rows into shared memory with coalesced loads (a row
// a step, its lanes along it), rows `stride` bytes apart (16-byte aligned,
// and 16 more: rows land 4 banks apart, so a quarter-warp's 16-byte reads of
// 8 rows hit different banks; rows shorter than a cache line are read from
// L1 instead); then each thread sums its row's vectors (lane v's are
// vectors v and, past 32, 32 + v: the lane sums) into the pair tree over
// the kUsed lanes its rows use (2 to 32), keeping the levels above the
// lanes in registers (kUsed - 2 doubles), and draws as the warp would:
// down the levels (each node read by selects, not an indexed array), and
// at the last step the two lanes' sums formed again from their vectors,
// the weight then found in those of the one reached -- no 32 lane sums a
// thread kept in shared memory, whose 16 KB a block held the
// multiprocessor to 4 blocks of 64 threads at K = 128 (docs/PERF.md).
constexpr int kThreadRows = 64;
template <class T>
__host__ __device__ constexpr std::size_t thread_row_stride(std::int64_t k) {
  return (static_cast<std::size_t>(k) * sizeof(T) + 15) / 16 * 16 + 16;
}
// Rows shorter than a cache line are read by their threads from L1, not
// copied first.
template <class T>
__host__ __device__ constexpr bool thread_rows_direct(std::int64_t k) {
  return k * static_cast<std::int64_t>(sizeof(T)) < 128;
}
template <class T>
std::size_t thread_pass_smem(std::int64_t k) {
  return thread_rows_direct<T>(k) ? 0 : kThreadRows * thread_row_stride<T>(k);
}

// a[i] for i in [0, N), by selects (registers, not local memory).
template <int N>
__device__ __forceinline__ double pick(const double (&a)[N], int i) {
  double r = a[0];
#pragma unroll
  for (int j = 1; j < N; ++j) r = i == j ? a[j] : r;
  return r;
}

// NV: the vectors a lane holds, 1, or 2 (rows of 33-64 vectors: lane l's
// vectors l and 32 + l, its sum (0 + the first) + the second).
template <class T, int kUsed, int NV = 1>
__global__ void __launch_bounds__(kThreadRows) thread_pass(const T* __restrict__ w, int m, std::int64_t k, std::uint64_t seed, int draws,
                                                           int* __restrict__ out) {
  static_assert(kUsed >= 2 && kUsed <= kLanes && (kUsed & (kUsed - 1)) == 0, "rows on a power of two of lanes, 2 to 32");
  static_assert(NV == 1 || (NV == 2 && kUsed == kLanes), "two vectors a lane only where a row takes all 32 lanes");
  const RowUniforms uniform(seed);  // rng::uniform<double>(seed, row, s)
  extern __shared__ __align__(16) unsigned char staged[];
  constexpr int E = Shape<T>::E;
  const std::size_t stride = thread_row_stride<T>(k);
  const int lane = threadIdx.x % kLanes, warp = threadIdx.x / kLanes;
  const std::int64_t first_row = static_cast<std::int64_t>(blockIdx.x) * kThreadRows + warp * kLanes;
  if (first_row >= m) return;  // (whole warps)
  const int rows = static_cast<int>(min(static_cast<std::int64_t>(kLanes), m - first_row));
  // Rows shorter than a cache line are read by their threads straight from
  // global memory (a warp's 16-byte loads fall on 32 lines, each line's
  // next loads then hit L1); longer rows are first copied, the warp's 32
  // rows together, asynchronously (every copy in flight at once): 16 bytes a
  // copy where rows are whole 16-byte vectors, else a weight a copy.
  const bool direct = thread_rows_direct<T>(k);
  const T* src = w + first_row * k;
  if (!direct) {
    // The warp's copy q is (row i, piece c) = (q / n, q % n), n pieces a
    // row: carried from q to q + 32 by adding 32's quotient and remainder
    // (two divisions a thread, not one a copy: a division by a run-time n
    // is some twenty instructions, and a copy is a few).
    const auto copy_all = [&](int n, auto&& copy) {
      const int step_i = kLanes / n, step_c = kLanes % n;
      int i = lane / n, c = lane % n;
      for (int q = lane; q < rows * n; q += kLanes) {
        copy(i, c);
        i += step_i;
        c += step_c;
        if (c >= n) c -= n, i += 1;
      }
    };
    if ((k * static_cast<std::int64_t>(sizeof(T))) % 16 == 0 && reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {
      copy_all(static_cast<int>(k * static_cast<std::int64_t>(sizeof(T)) / 16), [&](int i, int c) {
        __pipeline_memcpy_async(staged + (warp * kLanes + i) * stride + 16 * c, src + static_cast<std::int64_t>(i) * k + c * E, 16);
      });
    } else {
      copy_all(static_cast<int>(k), [&](int i, int c) {
        __pipeline_memcpy_async(staged + (warp * kLanes + i) * stride + sizeof(T) * c, src + static_cast<std::int64_t>(i) * k + c, sizeof(T));
      });
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
  }
  __syncwarp();
  const std::int64_t row = first_row + lane;
  if (lane >= rows) return;
  const T* r = w + row * k;
  const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
  const T* mine = reinterpret_cast<const T*>(staged + threadIdx.x * stride);
  const int vectors = static_cast<int>((k + E - 1) / E);
  // Lane v's vector (its one: vector v of the row), zeros past K.
  const auto vector_of = [&](int v, T(&x)[E]) {
    const std::int64_t first = static_cast<std::int64_t>(v) * E;
    if (direct) {
      load_vector(r, k, aligned, first, x);
    } else if (first + E <= k) {  // one 16-byte read of shared memory (rows are 16-byte aligned there)
      if constexpr (E == 4) {
        const float4 q = reinterpret_cast<const float4*>(mine)[v];
        x[0] = q.x, x[1] = q.y, x[2] = q.z, x[3] = q.w;
      } else {
        const double2 q = reinterpret_cast<const double2*>(mine)[v];
        x[0] = q.x, x[1] = q.y;
      }
    } else {
#pragma unroll
      for (int c = 0; c < E; ++c) x[c] = first + c < k ? mine[first + c] : T(0);
    }
  };
  // The pair tree over the row's first kUsed lanes, level by level
  // (pair_sum's nodes): n2[i] over lanes 2i, 2i + 1, n4[i] over 4i .. 4i +
  // 3, and so on. Lanes past them hold zeros, and x + 0 is x: the tree over
  // all 32 lanes has the same root, and its descent never turns right above
  // these lanes (a right node of zeros), so it starts here. (One array a
  // level, each read by selects: a single heap's levels were turned into
  // indexed local memory by the compiler.)
  constexpr int P = kUsed / 2;
  double n2[P], n4[P / 2 > 0 ? P / 2 : 1], n8[P / 4 > 0 ? P / 4 : 1], n16[P / 8 > 0 ? P / 8 : 1];
#pragma unroll
  for (int v0 = 0; v0 < kUsed; v0 += kBatch) {  // a batch of vectors read, then summed (the loads in flight together)
    constexpr int kWide = kUsed < kBatch ? kUsed : kBatch;
    T x[kWide][E];
#pragma unroll
    for (int b = 0; b < kWide; ++b) {
      if (v0 + b < vectors) {
        vector_of(v0 + b, x[b]);
      } else {
#pragma unroll
        for (int c = 0; c < E; ++c) x[b][c] = T(0);
      }
    }
    T y[NV == 2 ? kWide : 1][E];  // (NV = 2: each lane's second vector, 32 on)
    if constexpr (NV == 2) {
#pragma unroll
      for (int b = 0; b < kWide; ++b) {
        if (kLanes + v0 + b < vectors) {
          vector_of(kLanes + v0 + b, y[b]);
        } else {
#pragma unroll
          for (int c = 0; c < E; ++c) y[b][c] = T(0);
        }
      }
    }
    // Lane v0 + b's sum, in lane_sum's order: 0, then its vectors.
    const auto lane_sum_of = [&](int b) {
      if (!(v0 + b < vectors)) return 0.0;
      double r = add(0.0, vector_sum<T>(x[b]));
      if constexpr (NV == 2) r = add(r, vector_sum<T>(y[b]));
      return r;
    };
#pragma unroll
    for (int b = 0; b < kWide; b += 2) n2[(v0 + b) / 2] = add(lane_sum_of(b), lane_sum_of(b + 1));
  }
#pragma unroll
  for (int i = 0; i < P / 2; ++i) n4[i] = add(n2[2 * i], n2[2 * i + 1]);
#pragma unroll
  for (int i = 0; i < P / 4; ++i) n8[i] = add(n4[2 * i], n4[2 * i + 1]);
#pragma unroll
  for (int i = 0; i < P / 8; ++i) n16[i] = add(n8[2 * i], n8[2 * i + 1]);
  double root;
  if constexpr (kUsed == 2) {
    root = n2[0];
  } else if constexpr (kUsed == 4) {
    root = add(n2[0], n2[1]);
  } else if constexpr (kUsed == 8) {
    root = add(n4[0], n4[1]);
  } else if constexpr (kUsed == 16) {
    root = add(n8[0], n8[1]);
  } else {
    root = add(n16[0], n16[1]);
  }
  for (int s = 0; s < draws; ++s) {
    double t = target(uniform, row, s, root);
    // descend_lanes's steps below the lanes' top kUsed, each node's sums
    // read from its level (a right node > 0 iff one of its lanes is), down
    // to a pair of lanes.
    int lo = 0;
    const auto step = [&](double left, double right, int half) {
      if (!(t < left) && right > 0) {
        t = __dsub_rn(t, left);
        lo += half;
      }
    };
    if constexpr (kUsed >= 32) step(pick(n16, lo / 16), pick(n16, lo / 16 + 1), 16);
    if constexpr (kUsed >= 16) step(pick(n8, lo / 8), pick(n8, lo / 8 + 1), 8);
    if constexpr (kUsed >= 8) step(pick(n4, lo / 4), pick(n4, lo / 4 + 1), 4);
    if constexpr (kUsed >= 4) step(pick(n2, lo / 2), pick(n2, lo / 2 + 1), 2);
    // The last step: lanes lo and lo + 1, each its sum 0 + its vectors
    // (zeros past the row's). With one vector a lane, descend_vectors' walk
    // ends on the reached lane's (its sum is > 0, or it is all zeros, as
    // descend_vectors' kept would be) with nothing below it (t - 0 is t):
    // the weight is found in that vector straight away; with two, the walk
    // over them follows (NV = 2).
    T xl[E], xr[E];
    vector_of(lo, xl);
    vector_of(lo + 1, xr);
    const double ql = vector_sum<T>(xl), qr = vector_sum<T>(xr);
    double left = add(0.0, ql), right = add(0.0, qr);
    T yl[E], yr[E];  // (NV = 2: the lanes' second vectors)
    if constexpr (NV == 2) {
      vector_of(kLanes + lo, yl);
      vector_of(kLanes + lo + 1, yr);
      left = add(left, vector_sum<T>(yl));
      right = add(right, vector_sum<T>(yr));
    }
    const bool go_right = !(t < left) && right > 0;
    if (go_right) t = __dsub_rn(t, left);
    T chosen[E];
#pragma unroll
    for (int c = 0; c < E; ++c) chosen[c] = go_right ? xr[c] : xl[c];
    const int lane_reached = lo + (go_right ? 1 : 0);
    int j = 0;  // the reached lane's vector the weight is in
    if constexpr (NV == 2) {
      // descend_vectors' walk over the lane's two vectors: the second where
      // t reaches past the first's sum (as added: 0 + q) and it is > 0,
      // with that sum below it; else the first (or zeros, as its kept).
      const double q0 = go_right ? qr : ql;
      T second[E];
#pragma unroll
      for (int c = 0; c < E; ++c) second[c] = go_right ? yr[c] : yl[c];
      const double q1 = vector_sum<T>(second);
      if (t >= add(0.0, q0) && q1 > 0) {
        t = __dsub_rn(t, add(0.0, q0));
        j = 1;
#pragma unroll
        for (int c = 0; c < E; ++c) chosen[c] = second[c];
      }
    }
    out[row * draws + s] = static_cast<int>(vector_first<T>(0, lane_reached, j) + in_vector<T>(chosen, t));
  }
}

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
