// thread_pass: a thread a row (rows of at most two vectors a lane), each
// thread's tree over its row's lanes in registers.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

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

}  // namespace

}  // namespace warpsim::gpu
