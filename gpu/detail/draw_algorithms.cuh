// The seed 000 draws as device functions, shared by every workload's kernels.
// A workload supplies a Source, which says where a lane's weights come from:
//   T own(int j)                      -- element j of the lane's own weights
//   void block(int j, T (&a)[32])     -- the W x W block at columns j..j+31 in
//                                        the transposed layout: a[kk] in lane r
//                                        is element j + r of lane kk's weights
//   void own_block(int j, T (&x)[32]) -- the lane's own elements j..j+31
//                                        (the draw_*_recompute only)
// Every floating operation is one the oracle performs in the same order,
// rounded once and never contracted (bit-for-bit agreement).
#pragma once

#include <cstddef>

#include "gpu/detail/butterfly_search.hpp"
#include "gpu/matrix_sampler.hpp"

namespace warpsim::gpu::detail {

constexpr unsigned kFull = 0xffffffffu;

// Where a warp keeps its K values per lane (running sums, butterfly tables
// p', cached weights): in dynamic shared memory when the launch gave the block
// enough (global_scratch == nullptr), else in its slice of the global
// scratch. Either way the lane's element i sits at p[i * W]: a warp-wide store
// is one contiguous row, and per-lane reads hit 32 different banks.
// `slot` picks one of several K-value arrays per warp.
template <class T>
__device__ __forceinline__ T* warp_scratch(T* global_scratch, std::size_t warp, int k, int lane, int slots = 1, int slot = 0) {
  extern __shared__ unsigned char shared_bytes[];
  const std::size_t per_warp = static_cast<std::size_t>(k) * kW * slots;
  const std::size_t offset = static_cast<std::size_t>(slot) * k * kW + lane;
  if (global_scratch == nullptr) {
    return reinterpret_cast<T*>(shared_bytes) + static_cast<std::size_t>(threadIdx.x / kW) * per_warp + offset;
  }
  return global_scratch + warp * per_warp + offset;
}

// Alg. 1-3, a thread on its own: running sums at p[i * stride], binary search.
template <class T, class Source>
__device__ int draw_baseline(const Source& s, T* p, std::size_t stride, int k, T u) {
  T sum = 0;
  for (int i = 0; i < k; ++i) {
    sum = add_rn(sum, s.own(i));
    p[static_cast<std::size_t>(i) * stride] = sum;
  }
  return binary_search(p, stride, k, scaled_target(sum, u));
}

// The remnant (the first K mod W weights, the lane's own): running sums into
// p[0 .. K mod W - 1], the sum so far returned (Alg. 6 lines 8-12, Alg. 8
// lines 8-12).
template <class T, class Source>
__device__ __forceinline__ T sum_remnant(const Source& s, T* p, int r) {
  T sum = 0;
  for (int j = 0; j < r; ++j) {
    sum = add_rn(sum, s.own(j));
    p[static_cast<std::size_t>(j) * kW] = sum;
  }
  return sum;
}

// The in-register transpose of Fig. 2 (W/2 log2 W shfl_xor): a[kk] in lane r
// was element r of lane kk's block, becomes element kk of lane r's.
template <class T>
__device__ __forceinline__ void transpose_block(T (&a)[kW], int lane) {
#pragma unroll
  for (int pass = 0; pass < 5; ++pass) {
    const int bit = 1 << pass;
    const bool upper = (lane & bit) != 0;
#pragma unroll
    for (int i = 0; i < kW; ++i) {
      if (i & bit) continue;
      const T send = upper ? a[i] : a[i | bit];
      const T recv = __shfl_xor_sync(kFull, send, bit);
      a[i] = upper ? recv : a[i];
      a[i | bit] = upper ? a[i | bit] : recv;
    }
  }
}

// Alg. 4-6 with the in-register transpose of Fig. 2.
template <class T, class Source>
__device__ int draw_transposed(const Source& s, T* p, int k, int lane, T u) {
  const int r = k % kW;
  T sum = sum_remnant(s, p, r);
  for (int j = r; j < k; j += kW) {
    T a[kW];
    s.block(j, a);
    transpose_block(a, lane);
#pragma unroll
    for (int kk = 0; kk < kW; ++kk) {
      sum = add_rn(sum, a[kk]);
      p[static_cast<std::size_t>(j + kk) * kW] = sum;
    }
  }
  return binary_search(p, kW, k, scaled_target(sum, u));
}

// One block of Alg. 6's first pass: the running sum after the block's
// values, added in order after the transpose.
template <class T>
__device__ __forceinline__ T transposed_block_step(T sum, T (&a)[kW], int lane) {
  transpose_block(a, lane);
#pragma unroll
  for (int kk = 0; kk < kW; ++kk) sum = add_rn(sum, a[kk]);
  return sum;
}

// The second half of draw_transposed_recompute: the search for `target` in
// the sums q the first pass kept, and in the chosen block's recomputed sums.
template <class T, class Source>
__device__ int transposed_recompute_search(const Source& s, const T* q, int k, T target) {
  const int r = k % kW;
  const int blocks = k / kW;
  if (r > 0 && (blocks == 0 || target < q[static_cast<std::size_t>(r - 1) * kW])) return binary_search(q, kW, r, target);
  const int lo = binary_search(q + static_cast<std::size_t>(r) * kW, kW, blocks, target);  // the block
  T x[kW];
  s.own_block(r + lo * kW, x);
  T run = lo > 0 ? q[static_cast<std::size_t>(r + lo - 1) * kW] : (r > 0 ? q[static_cast<std::size_t>(r - 1) * kW] : T(0));
  int z = kW - 1;
#pragma unroll
  for (int i = 0; i < kW; ++i) {
    run = add_rn(run, x[i]);
    z = (z == kW - 1 && i < kW - 1 && target < run) ? i : z;
  }
  return r + lo * kW + z;
}

// Alg. 4-6 for K too large for the running sums to stay on chip, with the
// same additions and so the same bits: the first pass keeps only the
// remnant's running sums and the running sum at each block's end, in q[0 ..
// r-1] and q[r + block] (stride W). Alg. 3's binary search over all K sums
// finds the first sum above u' (the sums never decrease); so does this
// search: the remnant if u' lies below its last sum, else the first block
// whose end lies above u' (the last if none), and in it the first sum above
// u' of the lane's own weights re-added from the sum before the block
// (`s.own_block`). Bytes: the matrix once, plus one block of each row.
template <class T, class Source>
__device__ int draw_transposed_recompute(const Source& s, T* q, int k, int lane, T u) {
  const int r = k % kW;
  const int blocks = k / kW;
  T sum = sum_remnant(s, q, r);
  for (int b = 0; b < blocks; ++b) {
    T a[kW];
    s.block(r + b * kW, a);
    sum = transposed_block_step(sum, a, lane);
    q[static_cast<std::size_t>(r + b) * kW] = sum;
  }
  return transposed_recompute_search(s, q, k, scaled_target(sum, u));
}

// The butterfly table of one block in registers (W - 1 shfl_xor).
template <class T, bool AddSub>
__device__ __forceinline__ void butterfly_build(T (&a)[kW], int lane) {
#pragma unroll
  for (int b = 0; b < 5; ++b) {
    const int bit = 1 << b;
    const bool upper = (lane & bit) != 0;
#pragma unroll
    for (int i = 0; i < kW / (2 * bit); ++i) {
      const int d = 2 * bit * i + bit - 1;
      const T h = upper ? a[d] : a[d + bit];
      const T v = __shfl_xor_sync(kFull, h, bit);
      if (AddSub) {
        a[d] = upper ? a[d + bit] : a[d];
        a[d + bit] = add_rn(a[d], v);
      } else {
        a[d] = upper ? v : a[d];
        a[d + bit] = upper ? a[d + bit] : v;
        a[d + bit] = add_rn(a[d + bit], a[d]);
      }
    }
  }
}

// y when the tables are in memory with lane L's row i at lane0[i * W + L]
// and the lane's block starts at row `base`: a direct read of the partner's
// entry. (Alg. 10 shuffles instead, every lane serving its partner from its
// own p' -- 2 (W - 1) shuffles a search; where p' is addressable by every
// lane one read a step gives the same value: the partner lane ^ flip serves
// lane (d & mask) + (partner & ~mask) = lane, since flip has only bits in mask.)
template <class T>
struct TableInMemory {
  const T* lane0;
  int base;
  int lane;
  __device__ __forceinline__ T operator()(int bit, int mask, int flip) const {
    return lane0[static_cast<std::size_t>(base + (lane & mask) + bit - 1) * kW + (lane ^ flip)];
  }
};

// Alg. 7-10: the lane's p'[i] at p[i * W].
template <class T, bool AddSub, class Source>
__device__ int draw_butterfly(const Source& s, T* p, int k, int lane, T u) {
  const int r = k % kW;
  const int blocks = k / kW;
  T sum = sum_remnant(s, p, r);
  // Alg. 8, lines 13-34: the blocks
  for (int j = r; j < k; j += kW) {
    T a[kW];
    s.block(j, a);
    butterfly_build<T, AddSub>(a, lane);
#pragma unroll
    for (int d = 0; d < kW - 1; ++d) p[static_cast<std::size_t>(j + d) * kW] = a[d];
    sum = add_rn(sum, a[kW - 1]);
    p[static_cast<std::size_t>(j + kW - 1) * kW] = sum;
  }
  __syncwarp();  // Alg. 10 below reads other lanes' p'
  // Alg. 9: the block
  const T target = scaled_target(sum, u);
  // block b's running sum is p'[b * W + r + W - 1]
  const int lo = binary_search(p + static_cast<std::size_t>(r + kW - 1) * kW, static_cast<std::size_t>(kW) * kW, blocks, target);
  const int block_base = r + lo * kW;
  int z = 0;
  if (k >= kW) {
    // Alg. 10: the butterfly search inside the block, p' read where it lies.
    const T low = block_base > 0 ? p[static_cast<std::size_t>(block_base - 1) * kW] : T(0);
    const T high = p[static_cast<std::size_t>(block_base + kW - 1) * kW];
    const int flip = butterfly_search<T, AddSub>(lane, target, low, high, TableInMemory<T>{p - lane, block_base, lane});
    z = block_base + (flip ^ lane);
  }
  __syncwarp();  // every lane done reading p' before the caller writes it again
  return remnant_fallback(p, r, block_base > 0, block_base > 0 ? p[static_cast<std::size_t>(block_base - 1) * kW] : T(0), target, z);
}

// One block of Alg. 8's first pass past shared memory: the block's table,
// and the running sum after it.
template <class T, bool AddSub>
__device__ __forceinline__ T butterfly_block_step(T sum, T (&a)[kW], int lane) {
  butterfly_build<T, AddSub>(a, lane);
  return add_rn(sum, a[kW - 1]);
}

// Alg. 7-10 for K too large for the lane's p' to stay on chip, with the same
// operations on the same values and so the same bits. The first pass is
// Alg. 8 keeping only what Alg. 9 reads: the remnant's running sums and each
// block's running sum, in q[0 .. r-1] and q[r + block] (stride W; K mod W +
// K / W values a lane). Alg. 10 then needs, of the chosen block's table, only
// the five nodes on the lane's search path, each a pairwise sum of the
// lane's own weights in that block (gpu/detail/butterfly_search.hpp): the lane reads
// those W weights again (`s.own_block`) and adds them up the same way.
// Bytes: the matrix once, plus one block of each row (1/32 more at K = 1024).
template <class T, bool AddSub, class Source>
__device__ int draw_butterfly_recompute(const Source& s, T* q, int k, int lane, T u) {
  const int r = k % kW;
  const int blocks = k / kW;
  T sum = sum_remnant(s, q, r);
  for (int b = 0; b < blocks; ++b) {
    T a[kW];
    s.block(r + b * kW, a);
    sum = butterfly_block_step<T, AddSub>(sum, a, lane);
    q[static_cast<std::size_t>(r + b) * kW] = sum;
  }
  return butterfly_recompute_search<T, AddSub>(s, q, k, lane, scaled_target(sum, u));
}

// The draws above by the warp-cooperative algorithm a kernel was compiled
// for (gpu::MatrixAlgorithm: TransposedRegisters, ButterflyStandard or
// ButterflyAddSub; Baseline has kernels of its own).

template <class T, MatrixAlgorithm C, class Source>
__device__ __forceinline__ int draw_full(const Source& s, T* p, int k, int lane, T u) {
  if constexpr (C == MatrixAlgorithm::TransposedRegisters) {
    return draw_transposed(s, p, k, lane, u);
  } else {
    return draw_butterfly<T, C == MatrixAlgorithm::ButterflyAddSub>(s, p, k, lane, u);
  }
}

template <class T, MatrixAlgorithm C, class Source>
__device__ __forceinline__ int draw_recompute(const Source& s, T* q, int k, int lane, T u) {
  if constexpr (C == MatrixAlgorithm::TransposedRegisters) {
    return draw_transposed_recompute(s, q, k, lane, u);
  } else {
    return draw_butterfly_recompute<T, C == MatrixAlgorithm::ButterflyAddSub>(s, q, k, lane, u);
  }
}

// The two halves of draw_recompute, for kernels that interleave several draws.
template <class T, MatrixAlgorithm C>
__device__ __forceinline__ T block_step(T sum, T (&a)[kW], int lane) {
  if constexpr (C == MatrixAlgorithm::TransposedRegisters) {
    return transposed_block_step(sum, a, lane);
  } else {
    return butterfly_block_step<T, C == MatrixAlgorithm::ButterflyAddSub>(sum, a, lane);
  }
}

template <class T, MatrixAlgorithm C, class Source>
__device__ __forceinline__ int recompute_search(const Source& s, const T* q, int k, int lane, T target) {
  if constexpr (C == MatrixAlgorithm::TransposedRegisters) {
    return transposed_recompute_search(s, q, k, target);
  } else {
    return butterfly_recompute_search<T, C == MatrixAlgorithm::ButterflyAddSub>(s, q, k, lane, target);
  }
}

}  // namespace warpsim::gpu::detail
