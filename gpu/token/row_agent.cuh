// The token sampler's kernel: one row a thread-block cluster of C blocks
// (C = 1 is a plain block), block `rank` holding the row's slice [rank *
// slice, (rank + 1) * slice). The steps are oracle/token/token_law.hpp's,
// numbered as there:
//
//   A (1, 2)  load the slice (16-byte vectors where aligned, four in flight
//             a thread), converting to float, into shared memory; the
//             largest logit by fmax (its first index is found only where
//             the row is greedy); a NaN or +inf anywhere refuses the row.
//   B (2, 3)  greedy rows (T = 0, or 1 / T or the largest logit times it
//             overflowing) draw the first largest index. Where top-k or
//             top-p select, each weight w = exp_f32(x r - m) replaces its
//             logit in shared memory (the selections read it many times);
//             else the weights are made from the logits where they are
//             summed, in one pass.
//   C (5)     top-k: the k-th largest weight by a radix selection over the
//             weights' bits (3 digits of 10 bits, counts), v_k its quantum.
//   D (6)     top-p: the same selection over masses (the quanta >= v_k),
//             its first pass's bins giving W_k and so target = ceil(p W_k):
//             the largest weight whose suffix of quanta reaches the target;
//             v_p its quantum.
//   E (7, 8)  v = max(v_k, v_p, v_m); every 512 consecutive elements' kept
//             quanta summed (a chunk), their prefix sums within the block,
//             and the blocks' totals across the cluster.
//   F (9)     each draw's t = floor(U W / 2^53); the block whose range holds
//             t finds the chunk by binary search and, a warp a draw, the
//             token in it (16 elements a lane, a warp's scan).
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
#include <type_traits>

#include "rng/exp.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

namespace cg = cooperative_groups;

constexpr int kTokenThreads = 512;
constexpr int kTokenWarps = kTokenThreads / 32;
constexpr int kDigitBits = 10;
constexpr int kBins = 1 << kDigitBits;
constexpr int kBinsPerThread = kBins / kTokenThreads;
constexpr int kChunk = 512;
constexpr int kMaxTokenCluster = 16;
constexpr unsigned kKeyBuffer = 2048;  // keys a block keeps for a selection's third pass

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
  r.seed = p.seed ? p.seed[row] : rng::request_seed(p.seed_all, static_cast<std::uint64_t>(row));  // one seed for the batch
  r.offset = p.offset ? p.offset[row] : p.offset_all;
  return r;
}

__device__ __forceinline__ bool params_refused(const RowParams& r) {
  return !(r.temperature >= 0) || isinf(r.temperature) || r.top_k < 0 || !(r.top_p > 0 && r.top_p <= 1) || !(r.min_p >= 0 && r.min_p <= 1);
}

// A block's shared state besides the slice (static shared memory).
struct TokenShared {
  // a selection pass's bins, this block's: each 64-bit sum as two 32-bit
  // words, so that it is filled by native 32-bit shared atomics (a 64-bit
  // shared atomic add is a compare-and-swap loop on sm_90)
  unsigned hist_lo[kBins], hist_hi[kBins];
  unsigned long long hist_total[kBins];  // the cluster's totals of the bins this block owns
  typename cub::BlockScan<unsigned long long, kTokenThreads>::TempStorage scan;
  float warp_max[kTokenWarps];
  long long warp_index[kTokenWarps];
  int warp_bad[kTokenWarps];
  unsigned long long warp_total[kTokenWarps];
  // what a block posts for the cluster to read
  float post_max;
  long long post_index;
  int post_bad;
  unsigned long long totals[kMaxTokenCluster];  // block r's total at [r], written by block r (cluster_sum)
  // a selection's result, broadcast to the block
  unsigned digit;
  unsigned long long above;
  unsigned long long chunk_total;
  unsigned key_count, key_count_last;  // keys the second selection pass matched (may pass kKeyBuffer)
};

// The slice's weights: in shared memory (weights_cached, after B), or made
// from its logits (in shared memory, or in global memory for rows past the
// cluster's shared memory) each time they are read.
enum class Source { Weights, SharedLogits, GlobalLogits };

template <class In, Source kSource>
struct Slice {
  static constexpr bool kWeightsCached = kSource == Source::Weights;
  const In* logits;  // the slice's first logit
  float* cached;     // its shared-memory copy (weights or logits), element i at cached[i]; nullptr for GlobalLogits
  int n;             // its length (a slice is at most 2^20 elements)
  float r, m;        // 1 / T and the largest logit times it
  __device__ __forceinline__ float weight_of(float x) const { return rng::exp_f32_nonpositive(__fsub_rn(__fmul_rn(x, r), m)); }
  __device__ __forceinline__ float weight(int i) const {
    if constexpr (kSource == Source::Weights) return cached[i];
    else if constexpr (kSource == Source::SharedLogits) return weight_of(cached[i]);
    else return weight_of(logit_to_float(logits[i]));
  }
};

// A cluster barrier that publishes nothing (relaxed arrive: no memory fence),
// for a block's lifetime alone: no block leaves while another may still read
// its shared memory. (A block launched without a cluster has none to wait for.)
__device__ __forceinline__ void cluster_barrier_relaxed(const cg::cluster_group& cluster) {
  if (cluster.num_blocks() > 1) asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}

// The cluster's combination of one value each block posted: every block
// reads all of them (distributed shared memory) between two cluster
// barriers, so that none overwrites or leaves while another still reads.
template <class F>
__device__ __forceinline__ void cluster_read_posts(cg::cluster_group& cluster, F&& read) {
  cluster.sync();
  read();
  cluster_barrier_relaxed(cluster);
}

// The cluster's sum of one value a thread (every thread gets it), and the
// sum over the blocks of lower rank (*below). Each block writes its total
// into every block's `totals` (thread r into block r's), so that after one
// barrier every block reads its own shared memory alone and may leave.
// Called once a kernel (totals are not reused).
__device__ std::uint64_t cluster_sum(cg::cluster_group& cluster, TokenShared& sh, std::uint64_t v, std::uint64_t* below = nullptr) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) sh.warp_total[threadIdx.x >> 5] = v;
  __syncthreads();
  const unsigned blocks = cluster.num_blocks(), me = cluster.block_rank();
  if (threadIdx.x < blocks) {
    std::uint64_t t = 0;
    for (int w = 0; w < kTokenWarps; ++w) t += sh.warp_total[w];
    cluster.map_shared_rank(&sh, threadIdx.x)->totals[me] = t;
  }
  cluster.sync();
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t x = lane < blocks ? sh.totals[lane] : 0;
  const std::uint64_t all = warp_sum(x), lower = warp_sum(lane < me ? x : 0);
  if (below) *below = lower;
  return all;
}

// Radix selection (steps 5 and 6): the largest weight's bits kappa among the
// cluster's weights whose quanta are >= floor_q such that the weights with
// bits >= kappa hold at least `need` (by_count: a count, need = k) or at
// least ceil(top_p W) of their quanta (else; W their total, read off the
// first pass's bins). Weights lie in [0, 1]: their bits in [0, 2^30), three
// digits of 10 bits. The second pass copies the keys it matches into
// `keys` (up to kKeyBuffer a block), so that the third reads those alone.
template <class S>
__device__ std::uint32_t select_weight(cg::cluster_group& cluster, TokenShared& sh, const S& s, bool by_count, std::uint64_t floor_q,
                                       std::uint64_t need, float top_p, std::uint32_t* keys) {
  using Scan = cub::BlockScan<unsigned long long, kTokenThreads>;
  std::uint32_t prefix = 0;
#pragma unroll  // (each pass's shift a constant: the first pass's prefix test folds away)
  for (int shift = 2 * kDigitBits; shift >= 0; shift -= kDigitBits) {
    for (int b = threadIdx.x; b < kBins; b += kTokenThreads) sh.hist_lo[b] = 0, sh.hist_hi[b] = 0;
    if (threadIdx.x == 0) sh.key_count = 0;
    __syncthreads();
    const bool from_keys = shift == 0 && sh.key_count_last <= kKeyBuffer;
    auto count_key = [&](std::uint32_t key) {
      if ((key >> (shift + kDigitBits)) != (prefix >> (shift + kDigitBits))) return;
      const std::uint64_t q = by_count && floor_q == 0 ? 0 : quantum(__uint_as_float(key));
      if (q < floor_q) return;
      const unsigned bin = (key >> shift) & (kBins - 1);
      if (by_count) {
        atomicAdd(&sh.hist_lo[bin], 1u);
      } else {  // q = hi 2^32 + lo: lo's carry goes into hi with it
        const auto lo = static_cast<unsigned>(q);
        const unsigned old = atomicAdd(&sh.hist_lo[bin], lo);
        const unsigned hi = static_cast<unsigned>(q >> 32) + (old + lo < old ? 1u : 0u);
        if (hi) atomicAdd(&sh.hist_hi[bin], hi);
      }
      if (shift == kDigitBits) {  // the second pass: keep the key for the third
        const unsigned slot = atomicAdd(&sh.key_count, 1u);
        if (slot < kKeyBuffer) keys[slot] = key;
      }
    };
    if (from_keys) {
      for (int i = threadIdx.x; i < static_cast<int>(sh.key_count_last); i += kTokenThreads) count_key(keys[i]);
    } else if constexpr (S::kWeightsCached) {
      // four weights a 16-byte shared load: element i at cached[i] lies at
      // float i + mis of the aligned buffer
      const int mis = static_cast<int>((reinterpret_cast<std::uintptr_t>(s.cached) & 15) >> 2);
      const auto* v4 = reinterpret_cast<const float4*>(s.cached - mis);
      const int vectors = (mis + s.n + 3) / 4;
      for (int j = threadIdx.x; j < vectors; j += kTokenThreads) {
        const float4 v = v4[j];
        const float e[4] = {v.x, v.y, v.z, v.w};
        const int i0 = 4 * j - mis;
        if (i0 >= 0 && i0 + 3 < s.n) {
#pragma unroll
          for (int c = 0; c < 4; ++c) count_key(__float_as_uint(e[c]));
        } else {
#pragma unroll
          for (int c = 0; c < 4; ++c)
            if (i0 + c >= 0 && i0 + c < s.n) count_key(__float_as_uint(e[c]));
        }
      }
    } else {
      for (int i = threadIdx.x; i < s.n; i += kTokenThreads) count_key(__float_as_uint(s.weight(i)));
    }
    // the cluster's bins, reduced and scattered: block r owns bins [r, r + 1)
    // kBins / C and sums them over every block; then each block gathers all.
    const unsigned blocks = cluster.num_blocks(), owned = kBins / blocks, own_first = cluster.block_rank() * owned;
    cluster.sync();
    for (unsigned b = threadIdx.x; b < owned; b += kTokenThreads) {
      unsigned long long total = 0;
      for (unsigned r = 0; r < blocks; ++r) {
        const TokenShared& o = *cluster.map_shared_rank(&sh, r);
        total += (static_cast<unsigned long long>(o.hist_hi[own_first + b]) << 32) | o.hist_lo[own_first + b];
      }
      sh.hist_total[own_first + b] = total;
    }
    cluster.sync();
    unsigned long long of_bin[kBinsPerThread], inclusive[kBinsPerThread], all = 0;
#pragma unroll
    for (int b = 0; b < kBinsPerThread; ++b) {
      const unsigned bin = kBins - 1 - (threadIdx.x * kBinsPerThread + b);
      of_bin[b] = cluster.map_shared_rank(sh.hist_total, (bin * blocks) >> kDigitBits)[bin];  // its owner (blocks divides kBins)
    }
    // No third barrier: a block next writes its bins after this pass's
    // second barrier (every owner has read them by then), and its totals
    // after the next pass's first (every block has gathered them by then).
    // suffix sums from the top bin down: thread t holds bins kBins - 1 - (t B + b)
    Scan(sh.scan).InclusiveSum(of_bin, inclusive, all);
    if (!by_count && shift == 2 * kDigitBits) need = ceil_mul(top_p, all);  // W: every bin of the first pass
#pragma unroll
    for (int b = 0; b < kBinsPerThread; ++b) {
      if (inclusive[b] >= need && inclusive[b] - of_bin[b] < need) {
        sh.digit = static_cast<unsigned>(kBins - 1 - (static_cast<int>(threadIdx.x) * kBinsPerThread + b));
        sh.above = inclusive[b] - of_bin[b];
      }
    }
    if (threadIdx.x == 0) sh.key_count_last = sh.key_count;
    __syncthreads();
    prefix |= sh.digit << shift;
    need -= sh.above;
    __syncthreads();
  }
  return prefix;
}

// Steps C-F of a row whose weights `s` gives (see the file's head).
template <class S>
__device__ __forceinline__ void finish_row(cg::cluster_group& cluster, TokenShared& sh, const S& s, const RowParams& rp, std::int64_t k,
                                           std::int64_t start, unsigned long long* chunk_prefix, std::uint32_t* keys, int* row_out, int draws) {
  using Scan = cub::BlockScan<unsigned long long, kTokenThreads>;
  const int n = s.n;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // C: top-k.
  std::uint64_t vk = 0;
  if (rp.top_k > 0 && rp.top_k < k)
    vk = quantum(__uint_as_float(select_weight(cluster, sh, s, true, 0, static_cast<std::uint64_t>(rp.top_k), 1.0f, keys)));

  // D: top-p.
  std::uint64_t vp = 0;
  if (rp.top_p < 1) vp = quantum(__uint_as_float(select_weight(cluster, sh, s, false, vk, 0, rp.top_p, keys)));

  // E: the least quantum kept; the chunks' kept sums (a warp a chunk, lane l
  // its elements l, l + 32, l + 64, l + 96), their prefix sums.
  const std::uint64_t vm = rp.min_p > 0 ? static_cast<std::uint64_t>(ceil(static_cast<double>(rp.min_p) * 0x1p43)) : 0;
  const std::uint64_t v = max(vk, max(vp, vm));
  auto kept = [&](int i) -> std::uint64_t {
    const std::uint64_t q = quantum(s.weight(i));
    return q >= v ? q : 0;
  };
  const int used = (n + kChunk - 1) / kChunk;
  // (two loops: without truncation every quantum is kept, no compare)
  // A full chunk's elements are read without a bound check, so that the
  // compiler interleaves their independent exps.
  auto chunk_sums = [&](auto filtered) {
    auto add = [&](std::uint64_t& sum, int i) {
      const std::uint64_t q = quantum(s.weight(i));
      if constexpr (decltype(filtered)::value) sum += q >= v ? q : 0;
      else sum += q;
    };
    for (int c = warp; c < used; c += kTokenWarps) {
      std::uint64_t sum = 0;
      const int first_i = c * kChunk + lane;
      if (c * kChunk + kChunk <= n) {
#pragma unroll
        for (int e = 0; e < kChunk / 32; ++e) add(sum, first_i + e * 32);
      } else {
        for (int i = first_i; i < n; i += 32) add(sum, i);
      }
      sum = warp_sum(sum);
      if (lane == 0) chunk_prefix[c] = sum;
    }
  };
  if (v > 0) chunk_sums(std::true_type{});
  else chunk_sums(std::false_type{});
  __syncthreads();
  const int per = (used + kTokenThreads - 1) / kTokenThreads;
  const int first = static_cast<int>(threadIdx.x) * per, last = min(used, first + per);
  unsigned long long own = 0, before = 0, block_total = 0;
  for (int c = first; c < last; ++c) own += chunk_prefix[c];
  Scan(sh.scan).ExclusiveSum(own, before, block_total);
  for (int c = first; c < last; ++c) {
    const unsigned long long x = chunk_prefix[c];
    chunk_prefix[c] = before;
    before += x;
  }
  __syncthreads();
  std::uint64_t below = 0;
  const std::uint64_t total = cluster_sum(cluster, sh, threadIdx.x == 0 ? block_total : 0, &below);

  // F: the draws this block's range of the row holds, a warp a draw.
  for (int j = warp; j < draws; j += kTokenWarps) {
    const std::uint64_t t = draw_target(rp.seed, rp.offset, static_cast<std::uint32_t>(j), total);
    if (t < below || t - below >= block_total) continue;
    const std::uint64_t local = t - below;
    int lo = 0, hi = used - 1;  // the last chunk whose prefix is <= local
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (chunk_prefix[mid] <= local) lo = mid;
      else hi = mid - 1;
    }
    // lane l: the chunk's elements 16 l .. 16 l + 15, in index order
    constexpr int kPerLane = kChunk / 32;
    const int base = lo * kChunk + lane * kPerLane;
    std::uint64_t sum = 0;
    for (int e = 0; e < kPerLane; ++e) sum += base + e < n ? kept(base + e) : 0;
    std::uint64_t inclusive = sum;  // the warp's inclusive scan
    for (int o = 1; o < 32; o <<= 1) {
      const std::uint64_t y = __shfl_up_sync(0xffffffffu, inclusive, o);
      if (lane >= o) inclusive += y;
    }
    std::uint64_t acc = chunk_prefix[lo] + inclusive - sum;
    if (local >= acc && local < acc + sum) {  // exactly one lane
      int e = 0;
      for (; e < kPerLane - 1; ++e) {
        const std::uint64_t q = kept(base + e);
        if (q > 0 && local < acc + q) break;
        acc += q;
      }
      row_out[j] = static_cast<int>(start + base + e);
    }
  }
}

template <class In>
__global__ void __launch_bounds__(kTokenThreads, 2)
    token_rows(const In* __restrict__ logits, std::int64_t k, std::int64_t slice, bool in_shared, TokenParams params, int draws, int* out) {
  extern __shared__ __align__(16) unsigned char dynamic[];
  __shared__ TokenShared sh;
  using Scan = cub::BlockScan<unsigned long long, kTokenThreads>;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks();
  const int row = static_cast<int>(blockIdx.x / blocks);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::int64_t start = static_cast<std::int64_t>(rank) * slice;
  const int n = start >= k ? 0 : static_cast<int>(min(slice, k - start));
  const In* p0 = logits + static_cast<std::int64_t>(row) * k + start;

  // The slice in shared memory: element i at cached[mis + i], where mis
  // puts the 16-byte blocks of the logits on 16-byte blocks of floats.
  constexpr int kVec = 16 / static_cast<int>(sizeof(In));
  constexpr int kInFlight = 4;
  const int mis = static_cast<int>((reinterpret_cast<std::uintptr_t>(p0) % 16) / sizeof(In));
  float* cached_base = reinterpret_cast<float*>(dynamic);
  auto* chunk_prefix = reinterpret_cast<unsigned long long*>(dynamic + (in_shared ? ((slice + kVec + 3) / 4 * 16) : 0));
  float* cached = in_shared ? cached_base + mis : nullptr;
  auto* keys = reinterpret_cast<std::uint32_t*>(chunk_prefix + (slice + kChunk - 1) / kChunk);

  // A: the largest logit, and whether any is NaN (a +inf is the largest).
  float best = -INFINITY;
  bool nan = false;
  // max.NaN: a NaN anywhere makes the thread's largest NaN (one instruction
  // a logit for the largest and the NaN test both)
  auto see = [&](float x) { asm("max.NaN.f32 %0, %0, %1;" : "+f"(best) : "f"(x)); };
  if (in_shared) {
    const int head = min(n, (kVec - mis) % kVec);
    const int vectors = (n - head) / kVec;
    for (int i = threadIdx.x; i < head; i += kTokenThreads) {
      const float x = logit_to_float(p0[i]);
      cached[i] = x;
      see(x);
    }
    const auto* vp = reinterpret_cast<const uint4*>(p0 + head);
    for (int v0 = threadIdx.x; v0 < vectors; v0 += kInFlight * kTokenThreads) {
      uint4 raw[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (v0 + u * kTokenThreads < vectors) raw[u] = __ldg(vp + v0 + u * kTokenThreads);
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int v = v0 + u * kTokenThreads;
        if (v >= vectors) break;
        const In* e = reinterpret_cast<const In*>(&raw[u]);
        float x[kVec];
#pragma unroll
        for (int c = 0; c < kVec; ++c) x[c] = logit_to_float(e[c]);
        auto* dst = reinterpret_cast<float4*>(cached + head + v * kVec);
#pragma unroll
        for (int c = 0; c < kVec; c += 4) dst[c / 4] = make_float4(x[c], x[c + 1], x[c + 2], x[c + 3]);
#pragma unroll
        for (int c = 0; c < kVec; ++c) see(x[c]);
      }
    }
    for (int i = head + vectors * kVec + threadIdx.x; i < n; i += kTokenThreads) {
      const float x = logit_to_float(p0[i]);
      cached[i] = x;
      see(x);
    }
  } else {
    for (int i = threadIdx.x; i < n; i += kTokenThreads) see(logit_to_float(p0[i]));
  }
  nan = __any_sync(0xffffffffu, best != best);
  for (int o = 16; o > 0; o >>= 1) best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, o));
  if (lane == 0) sh.warp_max[warp] = best, sh.warp_bad[warp] = nan;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kTokenWarps; ++w) best = fmaxf(best, sh.warp_max[w]), nan |= sh.warp_bad[w] != 0;
    sh.post_max = best, sh.post_bad = nan;
  }
  // (one barrier: no block writes post_max again, and every path below
  // passes another cluster barrier before its block exits)
  cluster.sync();
  best = -INFINITY, nan = false;
  if (static_cast<unsigned>(lane) < blocks) {  // lane r reads block r's posts
    const TokenShared& o = *cluster.map_shared_rank(&sh, static_cast<unsigned>(lane));
    best = o.post_max, nan = o.post_bad != 0;
  }
  for (int o = 16; o > 0; o >>= 1) best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, o));
  nan = __any_sync(0xffffffffu, nan);

  const RowParams rp = row_params(params, row);
  int* row_out = out + static_cast<std::int64_t>(row) * draws;
  if (nan || best == INFINITY || best == -INFINITY || params_refused(rp)) {
    if (rank == 0)
      for (int j = threadIdx.x; j < draws; j += kTokenThreads) row_out[j] = -1;
    cluster_barrier_relaxed(cluster);  // no block leaves while another reads its posts
    return;
  }
  const float r = rp.temperature == 0 ? INFINITY : __frcp_rn(rp.temperature);
  const float m = __fmul_rn(best, r);
  if (isinf(r) || isinf(m)) {  // greedy (T = 0, or 1 / T or the largest logit times it overflowing)
    int first = n;  // the slice's first largest logit, then the row's
    for (int i = threadIdx.x; i < n; i += kTokenThreads)
      if ((in_shared ? cached[i] : logit_to_float(p0[i])) == best) {
        first = i;
        break;
      }
    for (int o = 16; o > 0; o >>= 1) first = min(first, __shfl_xor_sync(0xffffffffu, first, o));
    if (lane == 0) sh.warp_index[warp] = first < n ? start + first : INT64_MAX;
    __syncthreads();
    if (threadIdx.x == 0) {
      long long f = INT64_MAX;
      for (int w = 0; w < kTokenWarps; ++w) f = min(f, sh.warp_index[w]);
      sh.post_index = f;
    }
    long long index = INT64_MAX;
    cluster_read_posts(cluster, [&] {
      for (unsigned r = 0; r < blocks; ++r) index = min(index, cluster.map_shared_rank(&sh, r)->post_index);
    });
    if (rank == 0)
      for (int j = threadIdx.x; j < draws; j += kTokenThreads) row_out[j] = static_cast<int>(index);
    return;
  }

  // B: the weights, kept where the selections read them.
  const bool selects = (rp.top_k > 0 && rp.top_k < k) || rp.top_p < 1;
  if (in_shared && selects) {
    const Slice<In, Source::Weights> s{p0, cached, n, r, m};
    for (int i = threadIdx.x; i < n; i += kTokenThreads) cached[i] = s.weight_of(cached[i]);
    __syncthreads();
    finish_row(cluster, sh, s, rp, k, start, chunk_prefix, keys, row_out, draws);
  } else if (in_shared) {
    finish_row(cluster, sh, Slice<In, Source::SharedLogits>{p0, cached, n, r, m}, rp, k, start, chunk_prefix, keys, row_out, draws);
  } else {
    finish_row(cluster, sh, Slice<In, Source::GlobalLogits>{p0, nullptr, n, r, m}, rp, k, start, chunk_prefix, keys, row_out, draws);
  }
}

}  // namespace

}  // namespace warpsim::gpu
