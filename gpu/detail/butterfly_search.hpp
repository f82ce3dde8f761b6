// Alg. 10, the butterfly search inside one block, for host and device: the
// comparison logic, and where the table entries it compares come from.
//
// Every entry of a butterfly table (Alg. 8, either variant) is a sum of an
// aligned range of one lane's weights in the block, added pairwise: each
// level of the build adds two sums of equal halves. So the entry Alg. 10
// fetches at its step for `bit` -- row (lane & mask) + bit - 1 of lane
// lane ^ flip, mask being the bits above `bit` -- is the pairwise sum of the
// searching lane's own weights over [off, off + bit) (standard variant, and
// add-subtract lanes with that bit clear) or [off + bit, off + 2 bit)
// (add-subtract lanes with it set), off = (flip ^ lane) & mask being the part
// of the index found so far. RowTree computes those sums from the lane's own
// 32 weights with the same additions, so it yields the same bits as the
// table (tests/unit/row_search_test.cpp checks this against the oracle).
#pragma once

#include <cstddef>

#include "gpu/detail/rounding.hpp"

#if defined(__CUDA_ARCH__)
#define WARPSIM_UNROLL _Pragma("unroll")
#else
#define WARPSIM_UNROLL
#endif

namespace warpsim::gpu::detail {

constexpr int kW = 32;

// One step of Alg. 10 once y (the tree node) is in hand: the midpoint, the
// comparison, and the update of the running values and of `flip`.
template <class T, bool AddSub>
WARPSIM_HD inline void butterfly_step(int bit, int lane, T y, T target, T& low, T& high, int& flip) {
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

// Alg. 10's five steps; `node(bit, mask, flip)` supplies y at each. Returns
// the final flip; the index in the block is flip ^ lane.
template <class T, bool AddSub, class Node>
WARPSIM_HD inline int butterfly_search(int lane, T target, T low, T high, Node&& node) {
  int flip = 0;
WARPSIM_UNROLL
  for (int b = 0; b < 5; ++b) {
    const int bit = (kW / 2) >> b;
    const int mask = ((kW - 1) * (2 * bit)) & (kW - 1);  // the bits above `bit`
    butterfly_step<T, AddSub>(bit, lane, node(bit, mask, flip), target, low, high, flip);
  }
  return flip;
}

// The nodes of one lane's pairwise-sum tree over its W weights of the block
// (x[0 .. W-1], its own row): y for Alg. 10 without the table.
template <class T, bool AddSub>
struct RowTree {
  T x[kW];
  T s2[16], s4[8], s8[4], s16[2];  // pairwise sums of aligned ranges of 2, 4, 8, 16 weights
  int lane;

  // Select among n values by a run-time index without indexing a register array.
  template <int N>
  WARPSIM_HD static T pick(const T (&v)[N], int i) {
    T y = v[0];
WARPSIM_UNROLL
    for (int j = 1; j < N; ++j) y = i == j ? v[j] : y;
    return y;
  }

  WARPSIM_HD void build() {
    WARPSIM_UNROLL
    for (int i = 0; i < 16; ++i) s2[i] = add_rn(x[2 * i], x[2 * i + 1]);
    WARPSIM_UNROLL
    for (int i = 0; i < 8; ++i) s4[i] = add_rn(s2[2 * i], s2[2 * i + 1]);
    for (int i = 0; i < 4; ++i) s8[i] = add_rn(s4[2 * i], s4[2 * i + 1]);
    for (int i = 0; i < 2; ++i) s16[i] = add_rn(s8[2 * i], s8[2 * i + 1]);
  }
  // The block's total, as the butterfly's last row holds it.
  WARPSIM_HD T total() const { return add_rn(s16[0], s16[1]); }

  WARPSIM_HD T operator()(int bit, int mask, int flip) const {
    const int off = (flip ^ lane) & mask;
    const int start = (AddSub && (lane & bit) != 0) ? off + bit : off;
    switch (bit) {
      case 16: return pick(s16, start / 16);
      case 8: return pick(s8, start / 8);
      case 4: return pick(s4, start / 4);
      case 2: return pick(s2, start / 2);
      default: return pick(x, start);
    }
  }
};

// Alg. 3 over running sums p[0 .. k-1] at p[i * stride].
template <class T>
WARPSIM_HD inline int binary_search(const T* p, std::size_t stride, int k, T target) {
  int j = 0, hi = k - 1;
  while (j < hi) {
    const int mid = (j + hi) / 2;
    if (target < p[static_cast<std::size_t>(mid) * stride]) hi = mid; else j = mid + 1;
  }
  return j;
}

// Alg. 9, lines 17-27: when u' lies below the running sum before the first
// block, the index is in the remnant after all (running sums at p[i * W]).
template <class T>
WARPSIM_HD inline int remnant_fallback(const T* p, int r, bool has_prior, T prior, T target, int z) {
  if (r > 0 && has_prior && target < prior) {
    int i = 0;
    while (i < r && !(target < p[static_cast<std::size_t>(i) * kW])) ++i;
    return i;
  }
  return z;
}

// The second half of draw_butterfly_recompute (draw_algorithms.cuh): Alg. 9
// over the sums q the first pass kept, Alg. 10 on the chosen block's
// recomputed search path. Host and device: the host test of the recompute
// path (tests/property/recompute_properties.cpp) calls this very function.
template <class T, bool AddSub, class Source>
WARPSIM_HD inline int butterfly_recompute_search(const Source& s, const T* q, int k, int lane, T target) {
  const int r = k % kW;
  const int blocks = k / kW;
  // Alg. 9: the block (q[r + mid] is p'[mid * W + r + W - 1])
  const int lo = binary_search(q + static_cast<std::size_t>(r) * kW, kW, blocks, target);  // the block
  const int block_base = r + lo * kW;
  // p'[blockBase - 1] is q[r + lo - 1] (a block's sum, or the remnant's last)
  const T before = block_base > 0 ? q[static_cast<std::size_t>(r + lo - 1) * kW] : T(0);
  int z = 0;
  if (k >= kW) {
    RowTree<T, AddSub> tree;
    tree.lane = lane;
    s.own_block(block_base, tree.x);
    tree.build();
    z = block_base + (butterfly_search<T, AddSub>(lane, target, before, q[static_cast<std::size_t>(r + lo) * kW], tree) ^ lane);
  }
  return remnant_fallback(q, r, block_base > 0, before, target, z);
}

}  // namespace warpsim::gpu::detail
