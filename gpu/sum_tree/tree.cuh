// The tree's device parts every pass shares: its shape (vectors, lanes,
// segments), the loads, a lane's sums and walks, the rows' uniforms
// (RowUniforms), and the constants the plan and the launches share.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

using namespace sum_tree;  // the shape and the passes' limits (gpu/sum_tree/shape.hpp)

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

}  // namespace

}  // namespace warpsim::gpu
