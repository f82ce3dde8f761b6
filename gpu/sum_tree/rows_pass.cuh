// rows_pass: a warp 32 rows of one segment each, summed one after another,
// then the 32 rows' draws at once.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

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

}  // namespace

}  // namespace warpsim::gpu
