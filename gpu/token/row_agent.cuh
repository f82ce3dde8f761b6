// The token sampler's kernel: one row a thread-block cluster of C blocks
// (C = 1 is a plain block), block `rank` holding the row's slice [rank *
// slice, (rank + 1) * slice). The steps are oracle/token/token_law.hpp's,
// numbered as there:
//
//   A (1, 2)  load the slice (16-byte vectors where aligned), converting to
//             float, into shared memory; the largest logit and its first
//             index; a NaN or +inf anywhere refuses the row.
//   B (2, 3)  greedy rows (T = 0, or the largest logit / T overflowing)
//             draw the first largest index. Else each weight w =
//             exp_f32(x / T - m) replaces its logit in shared memory.
//   C (5)     top-k: the k-th largest weight by a radix selection over the
//             weights' bits (3 digits of 10 bits, counts), v_k its quantum.
//   D (6)     top-p: W_k = the quanta >= v_k summed, target = ceil(p W_k);
//             the largest weight whose suffix of quanta reaches the target,
//             by the same selection over masses; v_p its quantum.
//   E (7, 8)  v = max(v_k, v_p, v_m); every 32 consecutive elements' kept
//             quanta summed (a chunk), their prefix sums within the block,
//             and the blocks' totals across the cluster.
//   F (9)     each draw's t = floor(U W / 2^53); the block whose range holds
//             t finds the chunk by binary search and the token in it.
//
// The quanta are integers, so no step's result depends on the order its
// sums are made in: the selection's histograms are filled by shared-memory
// atomics and the cluster's partial results combined in any order.
//
// A part of gpu/token_sampler.cu's translation unit, included there only.
#pragma once

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "rng/exp.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

namespace cg = cooperative_groups;

constexpr int kTokenThreads = 1024;
constexpr int kTokenWarps = kTokenThreads / 32;
constexpr int kDigitBits = 10;
constexpr int kBins = 1 << kDigitBits;
constexpr int kChunk = 32;
constexpr int kMaxTokenCluster = 8;

__device__ __forceinline__ float logit_to_float(float x) { return x; }
struct Bf16Bits {
  std::uint16_t bits;
};
struct F16Bits {
  std::uint16_t bits;
};
__device__ __forceinline__ float logit_to_float(Bf16Bits x) { return __uint_as_float(static_cast<std::uint32_t>(x.bits) << 16); }
__device__ __forceinline__ float logit_to_float(F16Bits x) { return __half2float(__ushort_as_half(x.bits)); }

// Step 4: w 2^43 (exact: w is a float in [0, 1]) rounded half to even.
__device__ __forceinline__ std::uint64_t quantum(float w) { return __float2ull_rn(__fmul_rn(w, 0x1p43f)); }

// ceil(p w) exactly, p a float in (0, 1]: p = mant 2^(e - 24).
__device__ __forceinline__ std::uint64_t ceil_mul(float p, std::uint64_t w) {
  int e;
  const float m = frexpf(p, &e);
  const auto mant = static_cast<std::uint64_t>(ldexpf(m, 24));
  const std::uint64_t lo = mant * w, hi = __umul64hi(mant, w);
  const int shift = 24 - e;  // >= 23
  if (shift >= 128) return (lo | hi) != 0;
  // (hi:lo) >> shift: its high word is 0, since p <= 1 keeps p w < 2^64
  std::uint64_t floor;
  bool exact;
  if (shift >= 64) {
    floor = shift == 64 ? hi : hi >> (shift - 64);
    exact = lo == 0 && (shift == 64 || (hi << (128 - shift)) == 0);
  } else {
    floor = (lo >> shift) | (hi << (64 - shift));
    exact = (lo << (64 - shift)) == 0;
  }
  return floor + (exact ? 0 : 1);
}

// The 53 bits of rng::uniform<double>(seed, offset, j), times W, over 2^53.
__device__ __forceinline__ std::uint64_t draw_target(std::uint64_t seed, std::uint64_t offset, std::uint32_t j, std::uint64_t total) {
  const auto x = rng::philox_bits(seed, offset, j);
  const std::uint64_t u = ((static_cast<std::uint64_t>(x.v[0]) << 32) | x.v[1]) >> 11;
  const std::uint64_t lo = u * total, hi = __umul64hi(u, total);
  return (hi << 11) | (lo >> 53);
}

__device__ __forceinline__ std::uint64_t warp_sum(std::uint64_t v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

struct RowParams {
  float temperature, top_p, min_p;
  int top_k;
  std::uint64_t seed, offset;
};

__device__ __forceinline__ RowParams row_params(const TokenParams& p, int row) {
  RowParams r;
  r.temperature = p.temperature ? p.temperature[row] : p.temperature_all;
  r.top_k = p.top_k ? p.top_k[row] : p.top_k_all;
  r.top_p = p.top_p ? p.top_p[row] : p.top_p_all;
  r.min_p = p.min_p ? p.min_p[row] : p.min_p_all;
  r.seed = p.seed ? p.seed[row] : p.seed_all;
  r.offset = p.offset ? p.offset[row] : p.offset_all;
  return r;
}

__device__ __forceinline__ bool params_refused(const RowParams& r) {
  return !(r.temperature >= 0) || isinf(r.temperature) || r.top_k < 0 || !(r.top_p > 0 && r.top_p <= 1) || !(r.min_p >= 0 && r.min_p <= 1);
}

// A block's shared state besides the slice (static shared memory).
struct TokenShared {
  unsigned long long hist[kBins];  // a selection pass's bins, then the cluster's totals
  typename cub::BlockScan<unsigned long long, kTokenThreads>::TempStorage scan;
  float warp_max[kTokenWarps];
  long long warp_index[kTokenWarps];
  int warp_bad[kTokenWarps];
  unsigned long long warp_total[kTokenWarps];
  // what a block posts for the cluster to read
  float post_max;
  long long post_index;
  int post_bad;
  unsigned long long post_sum;
  // a selection's result, broadcast to the block
  unsigned digit;
  unsigned long long above;
  unsigned long long chunk_total;
};

// The slice's weights: in shared memory (in_shared) or recomputed from the
// logits each time they are read.
template <class In>
struct Slice {
  const In* logits;  // the slice's first logit
  float* cached;     // its shared-memory copy, element i at cached[i] (in_shared), else nullptr
  std::int64_t n;    // its length
  float temperature, m;
  __device__ __forceinline__ float weight(std::int64_t i) const {
    if (cached) return cached[i];
    const float x = logit_to_float(logits[i]);
    return rng::exp_f32(__fsub_rn(__fdiv_rn(x, temperature), m));
  }
};

// The cluster's combination of one value each block posted: every block
// reads all of them (distributed shared memory) between two cluster
// barriers, so that none overwrites or leaves while another still reads.
template <class F>
__device__ __forceinline__ void cluster_read_posts(cg::cluster_group& cluster, F&& read) {
  cluster.sync();
  read();
  cluster.sync();
}

// The cluster's sum of one value a thread (every thread gets it), and the
// sum over the blocks of lower rank (*below).
__device__ std::uint64_t cluster_sum(cg::cluster_group& cluster, TokenShared& sh, std::uint64_t v, std::uint64_t* below = nullptr) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) sh.warp_total[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint64_t t = 0;
    for (int w = 0; w < kTokenWarps; ++w) t += sh.warp_total[w];
    sh.post_sum = t;
  }
  std::uint64_t all = 0, lower = 0;
  cluster_read_posts(cluster, [&] {
    for (unsigned r = 0; r < cluster.num_blocks(); ++r) {
      const std::uint64_t x = cluster.map_shared_rank(&sh, r)->post_sum;
      all += x;
      if (r < cluster.block_rank()) lower += x;
    }
  });
  if (below) *below = lower;
  return all;
}

// Radix selection (steps 5 and 6): the largest weight's bits kappa among the
// cluster's weights whose quanta are >= floor_q such that the weights with
// bits >= kappa hold at least `need` (a count when by_count, else the sum of
// their quanta). Weights lie in [0, 1]: their bits in [0, 2^30), three
// digits of 10 bits.
template <class In>
__device__ std::uint32_t select_weight(cg::cluster_group& cluster, TokenShared& sh, const Slice<In>& s, bool by_count, std::uint64_t floor_q,
                                       std::uint64_t need) {
  using Scan = cub::BlockScan<unsigned long long, kTokenThreads>;
  std::uint32_t prefix = 0;
  for (int shift = 2 * kDigitBits; shift >= 0; shift -= kDigitBits) {
    for (int b = threadIdx.x; b < kBins; b += kTokenThreads) sh.hist[b] = 0;
    __syncthreads();
    for (std::int64_t i = threadIdx.x; i < s.n; i += kTokenThreads) {
      const float w = s.weight(i);
      const std::uint32_t key = __float_as_uint(w);
      if ((key >> (shift + kDigitBits)) != (prefix >> (shift + kDigitBits))) continue;
      const std::uint64_t q = quantum(w);
      if (q < floor_q) continue;
      atomicAdd(&sh.hist[(key >> shift) & (kBins - 1)], by_count ? 1ull : static_cast<unsigned long long>(q));
    }
    // the cluster's bins: thread b sums bin b over every block
    unsigned long long total = 0;
    cluster_read_posts(cluster, [&] {
      for (unsigned r = 0; r < cluster.num_blocks(); ++r) total += cluster.map_shared_rank(sh.hist, r)[threadIdx.x];
    });
    // suffix sums from the top bin down: thread t holds bin kBins - 1 - t
    const int bin = kBins - 1 - static_cast<int>(threadIdx.x);
    unsigned long long total_of_bin = 0;
    sh.hist[threadIdx.x] = total;  // (this block's own bins are no longer read by the others)
    __syncthreads();
    total_of_bin = sh.hist[bin];
    unsigned long long inclusive, exclusive;
    Scan(sh.scan).InclusiveSum(total_of_bin, inclusive);
    exclusive = inclusive - total_of_bin;
    if (inclusive >= need && exclusive < need) {
      sh.digit = static_cast<unsigned>(bin);
      sh.above = exclusive;
    }
    __syncthreads();
    prefix |= sh.digit << shift;
    need -= sh.above;
    __syncthreads();
  }
  return prefix;
}

template <class In>
__global__ void __launch_bounds__(kTokenThreads, 1)
    token_rows(const In* __restrict__ logits, std::int64_t k, std::int64_t slice, bool in_shared, TokenParams params, int draws, int* out) {
  extern __shared__ __align__(16) unsigned char dynamic[];
  __shared__ TokenShared sh;
  using Scan = cub::BlockScan<unsigned long long, kTokenThreads>;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks();
  const int row = static_cast<int>(blockIdx.x / blocks);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::int64_t start = static_cast<std::int64_t>(rank) * slice;
  const std::int64_t n = start >= k ? 0 : min(slice, k - start);
  const In* p0 = logits + static_cast<std::int64_t>(row) * k + start;

  // The slice in shared memory: element i at cached[mis + i], where mis
  // puts the 16-byte blocks of the logits on 16-byte blocks of floats.
  constexpr int kVec = 16 / static_cast<int>(sizeof(In));
  const int mis = static_cast<int>((reinterpret_cast<std::uintptr_t>(p0) % 16) / sizeof(In));
  float* cached_base = reinterpret_cast<float*>(dynamic);
  auto* chunk_prefix = reinterpret_cast<unsigned long long*>(dynamic + (in_shared ? ((slice + kVec + 3) / 4 * 16) : 0));
  float* cached = in_shared ? cached_base + mis : nullptr;

  // A: the largest logit, its first index, and whether any is NaN or +inf.
  float best = -INFINITY;
  std::int64_t best_i = INT64_MAX;
  int bad = 0;
  auto see = [&](float x, std::int64_t i) {
    bad |= (x != x) | (x == INFINITY);
    if (x > best || (x == best && i < best_i)) best = x, best_i = i;
  };
  if (in_shared) {
    const int head = static_cast<int>(min(n, static_cast<std::int64_t>((kVec - mis) % kVec)));
    const std::int64_t vectors = (n - head) / kVec;
    for (std::int64_t i = threadIdx.x; i < head; i += kTokenThreads) {
      const float x = logit_to_float(p0[i]);
      cached[i] = x;
      see(x, start + i);
    }
    const auto* vp = reinterpret_cast<const uint4*>(p0 + head);
    for (std::int64_t v = threadIdx.x; v < vectors; v += kTokenThreads) {
      const uint4 raw = __ldg(vp + v);
      const In* e = reinterpret_cast<const In*>(&raw);
      float x[kVec];
#pragma unroll
      for (int c = 0; c < kVec; ++c) x[c] = logit_to_float(e[c]);
      auto* dst = reinterpret_cast<float4*>(cached + head + v * kVec);
#pragma unroll
      for (int c = 0; c < kVec; c += 4) dst[c / 4] = make_float4(x[c], x[c + 1], x[c + 2], x[c + 3]);
#pragma unroll
      for (int c = 0; c < kVec; ++c) see(x[c], start + head + v * kVec + c);
    }
    for (std::int64_t i = head + vectors * kVec + threadIdx.x; i < n; i += kTokenThreads) {
      const float x = logit_to_float(p0[i]);
      cached[i] = x;
      see(x, start + i);
    }
  } else {
    for (std::int64_t i = threadIdx.x; i < n; i += kTokenThreads) see(logit_to_float(p0[i]), start + i);
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float b = __shfl_xor_sync(0xffffffffu, best, o);
    const long long bi = __shfl_xor_sync(0xffffffffu, static_cast<long long>(best_i), o);
    if (b > best || (b == best && bi < best_i)) best = b, best_i = bi;
    bad |= __shfl_xor_sync(0xffffffffu, bad, o);
  }
  if (lane == 0) sh.warp_max[warp] = best, sh.warp_index[warp] = best_i, sh.warp_bad[warp] = bad;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kTokenWarps; ++w) {
      if (sh.warp_max[w] > best || (sh.warp_max[w] == best && sh.warp_index[w] < best_i)) best = sh.warp_max[w], best_i = sh.warp_index[w];
      bad |= sh.warp_bad[w];
    }
    sh.post_max = best, sh.post_index = best_i, sh.post_bad = bad;
  }
  cluster_read_posts(cluster, [&] {
    best = -INFINITY, best_i = INT64_MAX, bad = 0;
    for (unsigned r = 0; r < blocks; ++r) {
      const TokenShared& o = *cluster.map_shared_rank(&sh, r);
      if (o.post_max > best || (o.post_max == best && o.post_index < best_i)) best = o.post_max, best_i = o.post_index;
      bad |= o.post_bad;
    }
  });

  const RowParams rp = row_params(params, row);
  int* row_out = out + static_cast<std::int64_t>(row) * draws;
  if (bad || best == -INFINITY || params_refused(rp)) {
    if (rank == 0)
      for (int j = threadIdx.x; j < draws; j += kTokenThreads) row_out[j] = -1;
    return;
  }
  const float m = rp.temperature == 0 ? INFINITY : __fdiv_rn(best, rp.temperature);
  if (isinf(m)) {  // greedy (T = 0, or the largest logit / T overflowing)
    if (rank == 0)
      for (int j = threadIdx.x; j < draws; j += kTokenThreads) row_out[j] = static_cast<int>(best_i);
    return;
  }

  // B: the weights.
  const Slice<In> s{p0, cached, n, rp.temperature, m};
  if (in_shared) {
    for (std::int64_t i = threadIdx.x; i < n; i += kTokenThreads) cached[i] = rng::exp_f32(__fsub_rn(__fdiv_rn(cached[i], rp.temperature), m));
    __syncthreads();
  }

  // C: top-k.
  std::uint64_t vk = 0;
  if (rp.top_k > 0 && rp.top_k < k) vk = quantum(__uint_as_float(select_weight(cluster, sh, s, true, 0, static_cast<std::uint64_t>(rp.top_k))));

  // D: top-p.
  std::uint64_t vp = 0;
  if (rp.top_p < 1) {
    std::uint64_t mass = 0;
    for (std::int64_t i = threadIdx.x; i < n; i += kTokenThreads) {
      const std::uint64_t q = quantum(s.weight(i));
      if (q >= vk) mass += q;
    }
    const std::uint64_t target = ceil_mul(rp.top_p, cluster_sum(cluster, sh, mass));
    vp = quantum(__uint_as_float(select_weight(cluster, sh, s, false, vk, target)));
  }

  // E: the least quantum kept; the chunks' kept sums, their prefix sums.
  const std::uint64_t vm = rp.min_p > 0 ? static_cast<std::uint64_t>(ceil(static_cast<double>(rp.min_p) * 0x1p43)) : 0;
  const std::uint64_t v = max(vk, max(vp, vm));
  auto kept = [&](std::int64_t i) -> std::uint64_t {
    const std::uint64_t q = quantum(s.weight(i));
    return q >= v ? q : 0;
  };
  const std::int64_t used = (n + kChunk - 1) / kChunk;
  for (std::int64_t c = warp; c < used; c += kTokenWarps) {
    const std::int64_t i = c * kChunk + lane;
    const std::uint64_t total = warp_sum(i < n ? kept(i) : 0);
    if (lane == 0) chunk_prefix[c] = total;
  }
  __syncthreads();
  const std::int64_t per = (used + kTokenThreads - 1) / kTokenThreads;
  const std::int64_t first = threadIdx.x * per, last = min(used, first + per);
  unsigned long long own = 0, before = 0, block_total = 0;
  for (std::int64_t c = first; c < last; ++c) own += chunk_prefix[c];
  Scan(sh.scan).ExclusiveSum(own, before, block_total);
  for (std::int64_t c = first; c < last; ++c) {
    const unsigned long long x = chunk_prefix[c];
    chunk_prefix[c] = before;
    before += x;
  }
  __syncthreads();
  std::uint64_t below = 0;
  const std::uint64_t total = cluster_sum(cluster, sh, threadIdx.x == 0 ? block_total : 0, &below);

  // F: the draws this block's range of the row holds.
  for (int j = threadIdx.x; j < draws; j += kTokenThreads) {
    const std::uint64_t t = draw_target(rp.seed, rp.offset, static_cast<std::uint32_t>(j), total);
    if (t < below || t - below >= block_total) continue;
    const std::uint64_t local = t - below;
    std::int64_t lo = 0, hi = used - 1;  // the last chunk whose prefix is <= local
    while (lo < hi) {
      const std::int64_t mid = (lo + hi + 1) / 2;
      if (chunk_prefix[mid] <= local) lo = mid;
      else hi = mid - 1;
    }
    std::uint64_t acc = chunk_prefix[lo];
    std::int64_t token = -1;
    for (std::int64_t i = lo * kChunk; i < min(n, (lo + 1) * kChunk); ++i) {
      const std::uint64_t q = kept(i);
      if (q > 0 && local < acc + q) {
        token = start + i;
        break;
      }
      acc += q;
    }
    row_out[j] = static_cast<int>(token);
  }
}

}  // namespace

}  // namespace warpsim::gpu
