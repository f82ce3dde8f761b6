// The seed 000 draws as device functions, shared by every workload's kernels.
// A workload supplies a Source, which says where a lane's weights come from:
//   T own(int j)                      -- element j of the lane's own weights
//   void block(int j, T (&a)[32])     -- the W x W block at columns j..j+31 in
//                                        the transposed layout: a[kk] in lane r
//                                        is element j + r of lane kk's weights
// Every floating operation is one the oracle performs in the same order,
// rounded once and never contracted (bit-for-bit agreement).
#pragma once

#include <cstddef>

namespace warpsim::gpu::detail {

constexpr int kW = 32;
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

// Alg. 3 over running sums p[0 .. k-1] at p[i * stride].
template <class T>
__device__ int binary_search(const T* p, std::size_t stride, int k, T target) {
  int j = 0, hi = k - 1;
  while (j < hi) {
    const int mid = (j + hi) / 2;
    if (target < p[static_cast<std::size_t>(mid) * stride]) hi = mid; else j = mid + 1;
  }
  return j;
}

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
  return binary_search(p, stride, k, mul_rn(sum, u));
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

// Alg. 4-6 with the in-register transpose of Fig. 2 (W/2 log2 W shfl_xor a block).
template <class T, class Source>
__device__ int draw_transposed(const Source& s, T* p, int k, int lane, T u) {
  const int r = k % kW;
  T sum = sum_remnant(s, p, r);
  for (int j = r; j < k; j += kW) {
    T a[kW];
    s.block(j, a);
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
#pragma unroll
    for (int kk = 0; kk < kW; ++kk) {
      sum = add_rn(sum, a[kk]);
      p[static_cast<std::size_t>(j + kk) * kW] = sum;
    }
  }
  return binary_search(p, kW, k, mul_rn(sum, u));
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

// One step of Alg. 10 once y (the tree node) is in hand: the midpoint, the
// comparison, and the update of the running values and of `flip`.
template <class T, bool AddSub>
__device__ __forceinline__ void butterfly_step(int bit, int lane, T y, T target, T& low, T& high, int& flip) {
  const bool upper = (lane & bit) != 0;
  const T compare = (AddSub && upper) ? sub_rn(high, y) : add_rn(low, y);
  if (target < compare) {
    high = compare;
    flip ^= bit & lane;
  } else {
    low = compare;
    flip ^= bit & ~lane;
  }
}

// Alg. 10's five steps, given how a lane obtains the table entry of row d
// that lane `lane ^ flip` holds (`fetch(d, flip)`, a warp-wide shuffle).
// Returns the final flip; the index in the block is flip ^ lane.
template <class T, bool AddSub, class Fetch>
__device__ __forceinline__ int butterfly_search(int lane, T target, T low, T high, Fetch&& fetch) {
  int flip = 0;
#pragma unroll
  for (int b = 0; b < 5; ++b) {
    const int bit = (kW / 2) >> b;
    const int mask = ((kW - 1) * (2 * bit)) & (kW - 1);  // the bits above `bit`
    T y = 0;
#pragma unroll
    for (int i = 0; i < kW / (2 * bit); ++i) {
      const int d = (bit - 1) + 2 * bit * i;
      const T t = fetch(d, mask, flip);
      y = ((lane ^ d) & mask) == 0 ? t : y;
    }
    butterfly_step<T, AddSub>(bit, lane, y, target, low, high, flip);
  }
  return flip;
}

// Alg. 9, lines 17-27: when u' lies below the running sum before the first
// block, the index is in the remnant after all (running sums at p[i * W]).
template <class T>
__device__ __forceinline__ int remnant_fallback(const T* p, int r, bool has_prior, T prior, T target, int z) {
  if (r > 0 && has_prior && target < prior) {
    int i = 0;
    while (i < r && !(target < p[static_cast<std::size_t>(i) * kW])) ++i;
    return i;
  }
  return z;
}

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
  // Alg. 9: the block
  const T target = mul_rn(sum, u);
  int lo = 0, hi = blocks - 1;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (target < p[static_cast<std::size_t>(mid * kW + r + kW - 1) * kW]) hi = mid; else lo = mid + 1;
  }
  const int block_base = r + lo * kW;
  int z = 0;
  if (k >= kW) {
    // Alg. 10: the butterfly search inside the block; lane c serves the lane
    // it is paired with (him), reading that lane's block from its own p'.
    const T low = block_base > 0 ? p[static_cast<std::size_t>(block_base - 1) * kW] : T(0);
    const T high = p[static_cast<std::size_t>(block_base + kW - 1) * kW];
    const int flip = butterfly_search<T, AddSub>(lane, target, low, high, [&](int d, int mask, int f) {
      const int him = (d & mask) + (lane & ~mask);
      const int his_base = __shfl_sync(kFull, block_base, him);
      return __shfl_xor_sync(kFull, p[static_cast<std::size_t>(his_base + d) * kW], f);
    });
    z = block_base + (flip ^ lane);
  }
  return remnant_fallback(p, r, block_base > 0, block_base > 0 ? p[static_cast<std::size_t>(block_base - 1) * kW] : T(0), target, z);
}

// Alg. 7-10 for K too large for the lane's p' to stay on chip, with the same
// operations on the same values and so the same bits: the first pass keeps
// only the remnant's running sums and each block's running sum, in
// q[0 .. r-1] and q[r + block] (stride W), which is what Alg. 9 reads; the
// search then rebuilds the table of each block some lane chose, one block at
// a time, and runs Alg. 10 against it, taking its shuffles from the registers
// of the rebuilt table instead of from p' (so no hisBlockBase is needed: every
// lane serves from the table in hand, and a lane keeps the result only for
// its own block). Bytes: the matrix once, plus the chosen blocks again.
template <class T, bool AddSub, class Source>
__device__ int draw_butterfly_rebuild(const Source& s, T* q, int k, int lane, T u) {
  const int r = k % kW;
  const int blocks = k / kW;
  T sum = sum_remnant(s, q, r);
  for (int b = 0; b < blocks; ++b) {
    T a[kW];
    s.block(r + b * kW, a);
    butterfly_build<T, AddSub>(a, lane);
    sum = add_rn(sum, a[kW - 1]);
    q[static_cast<std::size_t>(r + b) * kW] = sum;
  }
  // Alg. 9: the block (q[r + mid] is p'[mid * W + r + W - 1])
  const T target = mul_rn(sum, u);
  int lo = 0, hi = blocks - 1;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (target < q[static_cast<std::size_t>(r + mid) * kW]) hi = mid; else lo = mid + 1;
  }
  const int block_base = r + lo * kW;
  int z = 0;
  if (k >= kW) {
    // p'[blockBase - 1] is q[r + lo - 1] (a block's sum, or the remnant's last)
    const T low0 = block_base > 0 ? q[static_cast<std::size_t>(r + lo - 1) * kW] : T(0);
    const T high0 = q[static_cast<std::size_t>(r + lo) * kW];
    bool pending = true;
    for (unsigned want = __ballot_sync(kFull, pending); want != 0; want = __ballot_sync(kFull, pending)) {
      const int chosen = __shfl_sync(kFull, lo, __ffs(want) - 1);
      T a[kW];
      s.block(r + chosen * kW, a);
      butterfly_build<T, AddSub>(a, lane);
      const int flip = butterfly_search<T, AddSub>(lane, target, low0, high0,
                                                   [&](int d, int, int f) { return __shfl_xor_sync(kFull, a[d], f); });
      if (pending && lo == chosen) {
        z = block_base + (flip ^ lane);
        pending = false;
      }
    }
  }
  return remnant_fallback(q, r, block_base > 0, block_base > 0 ? q[static_cast<std::size_t>(r + lo - 1) * kW] : T(0), target, z);
}

}  // namespace warpsim::gpu::detail
