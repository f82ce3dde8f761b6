// Phase 1, the units (oracle/alias/units.hpp): the weights checked, their largest,
// S', e and U on the device, each pass finding the scalars it needs from the one before.
//
// A part of gpu/alias_table.cu's translation unit, included there only and
// in this order (as CUB's agents are by their dispatch): units.cuh,
// partition.cuh, split.cuh, pack.cuh, sample.cuh, psa_plus.cuh. Its kernels
// and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

__extension__ typedef unsigned __int128 u128;

constexpr int kUnitBits = 62;


// ---- units -----------------------------------------------------------------

template <class T>
struct Bits;
template <>
struct Bits<float> {
  using type = unsigned int;
};
template <>
struct Bits<double> {
  using type = unsigned long long;
};

// a_i = floor(w_i / 2^e') from the weight's bits (gpu/detail/exact_units.hpp:
// the oracle's floor(ldexp(w, -e')) without a double conversion); the units
// u_i = floor(a_i / 2^(e - e')) = floor(w_i / 2^e) likewise.
using detail::units_of;
using detail::units_of_float;

// The build's scalars, found and kept on the device so that the phases run
// back to back on the stream with no round trip to the host: the reductions'
// targets, the unit, the capacity and its reciprocal, the lists' lengths.
struct Scale {
  unsigned long long first_bad;  // the smallest index of a bad weight (n if none)
  unsigned long long max_bits;   // the largest good weight's bits
  unsigned long long fine_lo, fine_hi;  // S' = fine_lo + fine_hi 2^32
  unsigned long long total;      // U
  int fine, shift, exponent;
  int fixed;                     // the unit given (AliasTableBuilder::build_at): fine = exponent, shift 0, set by init_scale_at
  u128 recip;                    // floor(2^126 / U)
  unsigned long long heavy_above;  // floor(U / N): an item is heavy (N u > U) iff u > it
  unsigned long long counts[2];  // |l|, |h|
  // U without a pass of its own (fine_sum): the sum of the weights times
  // 2^-64 in doubles (check_and_max, in any order), from which S' is known
  // to within 2^-18 and so its width to one of two values; fine_sum sums
  // floor(a_i / 2^s) for both shifts s, and total_units takes the one S'
  // asks for. Where the approximation cannot be trusted (fp64 weights whose
  // largest is below 2^-900, where w 2^-64 can underflow) total_units makes
  // its pass.
  double approx;
  unsigned long long candidate[2];
  int candidate_shift[2];
  int candidates_ok;
};

// A grid-stride pass over the weights, 16-byte vector loads, kLoads of them
// in flight a thread (issued together, then used): the passes below are
// bound by the bytes in flight, not by their arithmetic. The items before
// the first 16-byte boundary and after the last whole vector go to the
// first threads one by one. f(x, i) for each i < n.
constexpr int kLoads = 8;

template <int kThreads, class T, class F>
__device__ __forceinline__ void for_each_weight(const T* __restrict__ w, std::size_t n, F&& f) {
  constexpr std::size_t kPer = 16 / sizeof(T);
  using Vec = std::conditional_t<sizeof(T) == 4, float4, double2>;
  const std::size_t tid = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x, stride = static_cast<std::size_t>(gridDim.x) * kThreads;
  const auto misaligned = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(w) % 16);
  const std::size_t head = min(n, misaligned % sizeof(T) != 0 ? n : (16 - misaligned) % 16 / sizeof(T));
  const std::size_t vectors = (n - head) / kPer, tail = head + vectors * kPer;
  if (tid < head) f(w[tid], tid);
  if (tid < n - tail) f(w[tail + tid], tail + tid);
  const Vec* v = reinterpret_cast<const Vec*>(w + head);
  for (std::size_t base = tid; base < vectors; base += stride * kLoads) {
    Vec x[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const std::size_t q = base + u * stride;
      if (q < vectors) x[u] = __ldg(v + q);
    }
#pragma unroll
    for (int u = 0; u < kLoads; ++u) {
      const std::size_t q = base + u * stride;
      if (q < vectors) {
        T t[kPer];
        memcpy(t, &x[u], sizeof t);
#pragma unroll
        for (std::size_t e = 0; e < kPer; ++e) f(t[e], head + q * kPer + e);
      }
    }
  }
}

template <class T, int kThreads>
__global__ void check_and_max(const T* __restrict__ w, std::size_t n, Scale* out) {
  detail::join_dependent_chain();
  using B = typename Bits<T>::type;
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  using ReduceSum = cub::BlockReduce<double, kThreads>;
  __shared__ typename ReduceSum::TempStorage sum_tmp;
  unsigned long long bad = n, best = 0;
  double approx = 0;
  for_each_weight<kThreads>(w, n, [&](T x, std::size_t i) {
    if (!(x >= 0) || isinf(x)) {  // NaN, negative or infinite
      bad = min(bad, static_cast<unsigned long long>(i));
    } else if (x > 0) {  // (-0 passes the check, and its bits, the sign's, would order above every positive weight)
      B b;
      memcpy(&b, &x, sizeof b);
      best = max(best, static_cast<unsigned long long>(b));
      approx += static_cast<double>(x) * 0x1p-64;  // no overflow, whatever the weights
    }
  });
  const unsigned long long block_bad = Reduce(tmp).Reduce(bad, cuda::minimum<>{});
  __syncthreads();
  const unsigned long long block_best = Reduce(tmp).Reduce(best, cuda::maximum<>{});
  const double block_approx = ReduceSum(sum_tmp).Sum(approx);
  if (threadIdx.x == 0) {
    atomicMin(&out->first_bad, block_bad);
    atomicMax(&out->max_bits, block_best);
    atomicAdd(&out->approx, block_approx);
  }
}

// The scale's steps, each computed by every block of the kernel that needs
// it first (its inputs are complete when that kernel starts) and stored by
// block 0 for the kernels after: e' from the largest weight (fine_sum), e
// from S' (total_units), 1 / U and floor(U / N) from U (tile_totals; PSA+:
// find_recip). On bad or all-zero weights they give safe values (the host
// refuses those weights when it reads the scale back; the kernels meanwhile
// stay in bounds). No launch of one thread between the passes.
template <class T>
__device__ int fine_exponent(const Scale* s, std::size_t n) {
  const auto bits = static_cast<typename Bits<T>::type>(s->max_bits);
  T largest;
  memcpy(&largest, &bits, sizeof largest);
  return s->first_bad < n || largest == 0 ? 0 : ilogb(static_cast<double>(largest)) - 63;
}

__device__ inline int bit_width(u128 x) {
  const auto hi = static_cast<unsigned long long>(x >> 64), lo = static_cast<unsigned long long>(x);
  return hi != 0 ? 128 - __clzll(static_cast<long long>(hi)) : lo != 0 ? 64 - __clzll(static_cast<long long>(lo)) : 0;
}

// The bits of S'; the unit's exponent e = e' + width - (kUnitBits - 1), its
// shift e - e' (0 for no weight).
__device__ inline int fine_width(const Scale* s) {
  return bit_width(static_cast<u128>(s->fine_lo) + (static_cast<u128>(s->fine_hi) << 32));
}
__device__ inline int unit_shift(int width) { return width > kUnitBits - 1 ? width - (kUnitBits - 1) : 0; }

__device__ inline u128 reciprocal(std::uint64_t total) { return (static_cast<u128>(1) << 126) / (total == 0 ? 1 : total); }

__global__ void init_scale(Scale* s, std::size_t n) {
  detail::join_dependent_chain();
  *s = Scale{};
  s->first_bad = n;
}

// The scale of a part of a larger table: its unit given, not found.
__global__ void init_scale_at(Scale* s, std::size_t n, int exponent) {
  detail::join_dependent_chain();
  *s = Scale{};
  s->first_bad = n;
  s->fine = exponent;
  s->shift = 0;
  s->exponent = exponent;
  s->fixed = 1;
}

__global__ void find_recip(Scale* s, std::size_t n) {
  detail::join_dependent_chain();
  s->recip = reciprocal(s->total);
  s->heavy_above = s->total / n;  // N u > U <=> u > U / N <=> u > floor(U / N), u an integer
}

template <class T, int kThreads>
__global__ void fine_sum(const T* __restrict__ w, std::size_t n, Scale* out) {
  detail::join_dependent_chain();
  const int fine = fine_exponent<T>(out, n);
  // The two shifts S' may ask for (Scale::approx): S' = sum floor(w_i / 2^e')
  // lies in [X - N, X] for X = sum w_i / 2^e' >= 2^63, and the doubles' sum
  // A = approx 2^(64 - e') is within (N - 1) 2^-53 X of X (any order of
  // additions; w 2^-64 neither overflows nor, for fp32 or a largest weight
  // of at least 2^-900, loses more than the bound allows to underflow): so
  // S' is in A (1 -+ 2^-18) and its width is that of one of the ends.
  const double a = ldexp(out->approx, 64 - fine);
  const int shifts[2] = {unit_shift(ilogb(a * (1 - 0x1p-18)) + 1), unit_shift(ilogb(a * (1 + 0x1p-18)) + 1)};
  const bool ok = a >= 0x1p62 && (sizeof(T) == 4 || fine + 63 >= -900);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    out->fine = fine;
    out->candidate_shift[0] = shifts[0];
    out->candidate_shift[1] = shifts[1];
    out->candidates_ok = ok;
  }
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  unsigned long long lo = 0, hi = 0;  // each < n 2^32 <= 2^64
  unsigned long long u0 = 0, u1 = 0;  // the units at either shift (wrapping where the shift is not S''s: unused then)
  if (shifts[0] == shifts[1]) {  // (S' far from a power of two: one candidate)
    const detail::FloatScale scale = detail::float_scale(fine);
    for_each_weight<kThreads>(w, n, [&](T x, std::size_t) {
      std::uint64_t a;
      if constexpr (sizeof(T) == 4) a = units_of_float(x, scale);
      else a = units_of(x, fine);
      lo += a & 0xffffffffu;
      hi += a >> 32;
      u0 += a >> shifts[0];
    });
    u1 = u0;
  } else {
    for_each_weight<kThreads>(w, n, [&](T x, std::size_t) {
      const std::uint64_t a = units_of(x, fine);
      lo += a & 0xffffffffu;
      hi += a >> 32;
      u0 += a >> shifts[0];
      u1 += a >> shifts[1];
    });
  }
  const unsigned long long block_lo = Reduce(tmp).Sum(lo);
  __syncthreads();
  const unsigned long long block_hi = Reduce(tmp).Sum(hi);
  __syncthreads();
  const unsigned long long block_u0 = Reduce(tmp).Sum(u0);
  __syncthreads();
  const unsigned long long block_u1 = Reduce(tmp).Sum(u1);
  if (threadIdx.x == 0) {
    atomicAdd(&out->fine_lo, block_lo);
    atomicAdd(&out->fine_hi, block_hi);
    atomicAdd(&out->candidate[0], block_u0);
    atomicAdd(&out->candidate[1], block_u1);
  }
}

template <class T, int kThreads>
__global__ void total_units(const T* __restrict__ w, std::size_t n, Scale* out) {
  detail::join_dependent_chain();
  const bool fixed = out->fixed != 0;
  const int fine = out->fine, width = fine_width(out), shift = fixed ? out->shift : unit_shift(width);
  const int known = fixed || !out->candidates_ok ? -1 : shift == out->candidate_shift[0] ? 0 : shift == out->candidate_shift[1] ? 1 : -1;
  if (blockIdx.x == 0 && threadIdx.x == 0 && !fixed) {
    out->shift = shift;
    out->exponent = fine + width - (kUnitBits - 1);
    if (known >= 0) out->total = out->candidate[known];
  }
  if (known >= 0) return;  // fine_sum summed U (the whole grid returns)
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  unsigned long long sum = 0;  // < 2^62
  for_each_weight<kThreads>(w, n, [&](T x, std::size_t) { sum += units_of(x, fine + shift); });
  const unsigned long long block = Reduce(tmp).Sum(sum);
  if (threadIdx.x == 0) atomicAdd(&out->total, block);
}

// The parts of a larger table (gpu/alias_table.hpp, alias_unit_sum and
// alias_unit_bins): floor(w_i / 2^e) summed exactly in 32-bit halves, or
// into the bins of 2^bin_shift consecutive items.
template <class T>
__device__ __forceinline__ std::uint64_t units_at(T x, int exponent, const detail::FloatScale& scale) {
  if constexpr (sizeof(T) == 4) return units_of_float(x, scale);
  else return units_of(x, exponent);
}

template <class T, int kThreads>
__global__ void unit_sum_kernel(const T* __restrict__ w, std::size_t n, int exponent, unsigned long long* halves) {
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const detail::FloatScale scale = detail::float_scale(exponent);
  unsigned long long lo = 0, hi = 0;  // each < n 2^32 <= 2^64
  for_each_weight<kThreads>(w, n, [&](T x, std::size_t) {
    const std::uint64_t a = units_at(x, exponent, scale);
    lo += a & 0xffffffffu;
    hi += a >> 32;
  });
  const unsigned long long block_lo = Reduce(tmp).Sum(lo);
  __syncthreads();
  const unsigned long long block_hi = Reduce(tmp).Sum(hi);
  if (threadIdx.x == 0) {
    atomicAdd(&halves[0], block_lo);
    atomicAdd(&halves[1], block_hi);
  }
}

// A warp takes 32 consecutive items at a time (one bin: bins hold at least
// 32, aligned), sums their units by shuffles and adds them with one atomic.
template <class T>
__global__ void unit_bins_kernel(const T* __restrict__ w, std::size_t n, int exponent, int bin_shift, unsigned long long* bins) {
  const detail::FloatScale scale = detail::float_scale(exponent);
  const unsigned lane = threadIdx.x & 31;
  const std::size_t warp = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) >> 5;
  const std::size_t warps = (static_cast<std::size_t>(gridDim.x) * blockDim.x) >> 5;
  for (std::size_t base = warp * 32; base < n; base += warps * 32) {
    const std::size_t i = base + lane;
    unsigned long long u = i < n ? units_at(w[i], exponent, scale) : 0;
    for (int o = 16; o > 0; o >>= 1) u += __shfl_down_sync(0xffffffffu, u, o);
    if (lane == 0 && u != 0) atomicAdd(&bins[base >> bin_shift], u);
  }
}

}  // namespace

}  // namespace warpsim::gpu
