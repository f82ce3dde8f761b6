// Marsaglia-Tsang gamma variates and LDA's theta and phi (gpu/gamma.hpp),
// written next to oracle/rejection/gamma.hpp, in the output's precision
// (fp64 in double, fp32 in float): every floating-point step is one
// explicitly rounded operation (__fmul_rn, fmaf, ...), so nvcc contracts
// nothing into FMA and the order is the oracle's; log, exp, log2f and exp2f
// are CUDA's (within 1-2 ulp; sqrt and division are correctly rounded).
//
// The normal is the ziggurat (rng/ziggurat.hpp's tables, in shared memory):
// the common attempt is a Philox block, an integer test, one multiplication
// and the squeeze -- no log, cos or exp. The default loop (GammaLoop::lane,
// gamma_lanes below) keeps each lane on its own tasks and makes every
// task's first attempt on that common path, in one straight line; a task
// that needs a log or exp (or a second attempt) waits in a warp queue until
// 32 do, then the warp makes their attempts together. Seed 004's warp loops
// (uncached and pre-cached, gpu/warp_rejection.cuh) run the same attempts.
#include "gpu/gamma.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/philox_keyed.hpp"
#include "gpu/warp_rejection.cuh"
#include "rng/ziggurat.hpp"

namespace warpsim::gpu {

namespace {

constexpr int kThreads = 256;
constexpr std::uint64_t kGammaStreams = std::uint64_t{1} << 63;  // oracle/rejection/gamma.hpp
constexpr std::uint32_t kBoostWord = 1, kSlowWord = 2;           // the counter's fourth word of those blocks

// The tables, one copy a device and precision in constant memory, copied
// into each block's shared memory (a lane reads the layer its bits chose:
// shared memory serves 32 different words at once, constant memory one).
__constant__ rng::ZigguratTables<float> kZiggurat32;
__constant__ rng::ZigguratTables<double> kZiggurat64;

template <class R>
void upload_ziggurat() {
  static std::mutex mutex;
  static std::array<bool, 64> done{};
  int device = 0;
  WARPSIM_CUDA(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (device < 0 || device >= static_cast<int>(done.size())) throw std::runtime_error("gamma: device number out of range");
  if (done[static_cast<std::size_t>(device)]) return;
  static const auto tables = rng::make_ziggurat_tables<R>();
  if constexpr (sizeof(R) == 4) WARPSIM_CUDA(cudaMemcpyToSymbol(kZiggurat32, &tables, sizeof tables));
  else WARPSIM_CUDA(cudaMemcpyToSymbol(kZiggurat64, &tables, sizeof tables));
  done[static_cast<std::size_t>(device)] = true;
}

template <class R>
__device__ __forceinline__ const rng::ZigguratTables<R>& load_ziggurat(rng::ZigguratTables<R>& shared) {
  const auto* from = reinterpret_cast<const std::uint32_t*>(sizeof(R) == 4 ? static_cast<const void*>(&kZiggurat32) : static_cast<const void*>(&kZiggurat64));
  auto* to = reinterpret_cast<std::uint32_t*>(&shared);
  for (unsigned i = threadIdx.x; i < sizeof(shared) / 4; i += blockDim.x) to[i] = from[i];
  __syncthreads();
  return shared;
}

// One rounding an operation, in R: the oracle's arithmetic with nothing
// contracted (CUDA's log and exp for the functions).
template <class R>
struct Arith;
template <>
struct Arith<double> {
  static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
  static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
  static __device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
  static __device__ __forceinline__ double div(double a, double b) { return __ddiv_rn(a, b); }
  static __device__ __forceinline__ double fma(double a, double b, double c) { return __fma_rn(a, b, c); }
  static __device__ __forceinline__ double sqrt(double a) { return __dsqrt_rn(a); }
  static __device__ __forceinline__ double log(double a) { return ::log(a); }
  static __device__ __forceinline__ double exp(double a) { return ::exp(a); }
  static constexpr double kMin = DBL_MIN;
  // (hi lo >> 11) + 1/2, times 2^-53: the oracle's open_uniform53.
  static __device__ __forceinline__ double open(std::uint32_t hi, std::uint32_t lo) {
    return mul(add(static_cast<double>(((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11), 0.5), 0x1p-53);
  }
};
template <>
struct Arith<float> {
  static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
  static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
  static __device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
  static __device__ __forceinline__ float div(float a, float b) { return __fdiv_rn(a, b); }
  static __device__ __forceinline__ float fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
  static __device__ __forceinline__ float sqrt(float a) { return __fsqrt_rn(a); }
  static __device__ __forceinline__ float log(float a) { return ::logf(a); }
  static __device__ __forceinline__ float exp(float a) { return ::expf(a); }
  static __device__ __forceinline__ float log2(float a) { return ::log2f(a); }
  static __device__ __forceinline__ float exp2(float a) { return ::exp2f(a); }
  static constexpr float kMin = FLT_MIN;
  // (k + 1/2) 2^-23 of the top 23 bits k (the oracle's open_uniform23): 1 +
  // k 2^-23 from its bits, less 1 - 2^-24 -- exact (Sterbenz), two operations.
  static __device__ __forceinline__ float u23(std::uint32_t x) { return __fsub_rn(__uint_as_float((x >> 9) | 0x3f800000u), 0x1.fffffep-1f); }
};

// Marsaglia-Tsang's constants for shape s = a < 1 ? a + 1 : a.
template <class R>
struct GammaShape {
  R a = -1, d = 0, c = 0, inv_a = 0;  // inv_a = 1/a for the boost (a < 1)
  __device__ __forceinline__ void set(R shape) {
    using A = Arith<R>;
    if (shape == a) return;  // a run of equal shapes (LDA's alpha and beta) pays once
    a = shape;
    const R s = shape < 1 ? A::add(shape, R(1)) : shape;
    d = A::sub(s, R(1) / R(3));
    c = A::div(R(1), A::sqrt(A::mul(R(9), d)));
    if (shape < 1) inv_a = A::div(R(1), shape);
  }
};

// Where task t's blocks are (oracle/rejection/gamma.hpp): fp32 tasks 2P and
// 2P + 1 share stream 2^63 + P, half t mod 2 of each block; fp64 task t has
// stream 2^63 + t.
template <class R>
__device__ __forceinline__ std::uint64_t stream_of(std::uint64_t task) {
  return kGammaStreams + (sizeof(R) == 4 ? task / 2 : task);
}
template <class R>
__device__ __forceinline__ int half_of(std::uint64_t task) {
  return sizeof(R) == 4 ? static_cast<int>(task & 1) : 0;
}

// Attempt j of a task from its block x (stream, draw j), half h:
// kAccepted and the variate d v in `out`, or kRejected. kFastOnly stops
// where a log or exp would be called (the ziggurat's wedge or tail, the
// squeeze's second test: 1-5% of attempts) and returns kSlow: the caller
// makes the attempt again in full later.
constexpr int kRejected = 0, kAccepted = 1, kSlow = 2;

template <bool kFastOnly, class R>
__device__ __forceinline__ int gamma_attempt(const detail::PhiloxKeyed& philox, const rng::ZigguratTables<R>& z, std::uint64_t stream,
                                             std::uint32_t j, int h, const r123::Philox4x32::ctr_type& x, const GammaShape<R>& k, R& out) {
  using A = Arith<R>;
  int layer;
  std::uint32_t sign;
  R unit, u;
  bool fast;
  if constexpr (sizeof(R) == 4) {
    const std::uint32_t zig = h ? x.v[2] : x.v[0];
    layer = static_cast<int>(zig & 255u);
    sign = (zig << 23) & 0x80000000u;
    fast = (zig >> 9) < z.fast[layer];
    unit = A::u23(zig);
    u = A::u23(h ? x.v[3] : x.v[1]);
  } else {
    layer = static_cast<int>(x.v[1] & 255u);
    sign = (x.v[1] << 23) & 0x80000000u;
    const std::uint64_t m = ((static_cast<std::uint64_t>(x.v[0]) << 32) | x.v[1]) >> 11;
    fast = m < z.fast[layer];
    unit = A::open(x.v[0], x.v[1]);
    u = A::open(x.v[2], x.v[3]);
  }
  R n = A::mul(unit, z.x[layer]);
  if constexpr (kFastOnly) {
    // One straight line, the outcome selected at the end (no branch: a
    // warp's lanes part at each one).
    if constexpr (sizeof(R) == 4) n = __uint_as_float(__float_as_uint(n) ^ sign);
    else n = __longlong_as_double(__double_as_longlong(n) ^ static_cast<long long>(static_cast<unsigned long long>(sign) << 32));
    const R t = A::fma(k.c, n, R(1));
    const R x2 = A::mul(n, n);
    out = A::mul(k.d, A::mul(A::mul(t, t), t));
    const bool squeezed = u < A::fma(R(-0.0331), A::mul(x2, x2), R(1));
    return !fast ? kSlow : !(t > 0) ? kRejected : squeezed ? kAccepted : kSlow;
  }
  if (!fast) {  // the wedge or the tail: 1.5% of draws
    const auto y = philox(stream, j, kSlowWord);
    R u1, u2;
    if constexpr (sizeof(R) == 4) {
      u1 = A::u23(h ? y.v[2] : y.v[0]);
      u2 = A::u23(h ? y.v[3] : y.v[1]);
    } else {
      u1 = A::open(y.v[0], y.v[1]);
      u2 = A::open(y.v[2], y.v[3]);
    }
    bool ok;
    if (layer == 0) {
      const R t = A::div(-A::log(u1), static_cast<R>(rng::kZigguratR));
      ok = A::mul(R(-2), A::log(u2)) > A::mul(t, t);
      n = A::add(static_cast<R>(rng::kZigguratR), t);
    } else {
      ok = A::add(z.f[layer], A::mul(u1, A::sub(z.f[layer + 1], z.f[layer]))) < A::exp(A::mul(R(-0.5), A::mul(n, n)));
    }
    if (!ok) return kRejected;
  }
  if constexpr (sizeof(R) == 4) n = __uint_as_float(__float_as_uint(n) ^ sign);
  else n = __longlong_as_double(__double_as_longlong(n) ^ static_cast<long long>(static_cast<unsigned long long>(sign) << 32));
  const R t = A::fma(k.c, n, R(1));
  if (!(t > 0)) return kRejected;
  const R v = A::mul(A::mul(t, t), t);
  const R x2 = A::mul(n, n);
  out = A::mul(k.d, v);
  if (u < A::fma(R(-0.0331), A::mul(x2, x2), R(1))) return kAccepted;
  return A::log(u) < A::fma(R(0.5), x2, A::mul(k.d, A::add(A::sub(R(1), v), A::log(v)))) ? kAccepted : kRejected;
}

// Attempt j of task `task` in full, its block made here.
template <class R>
__device__ __forceinline__ int gamma_attempt_at(const detail::PhiloxKeyed& philox, const rng::ZigguratTables<R>& z, std::uint64_t task,
                                                std::uint32_t j, const GammaShape<R>& k, R& out) {
  const std::uint64_t stream = stream_of<R>(task);
  return gamma_attempt<false>(philox, z, stream, j, half_of<R>(task), philox(stream, j), k, out);
}

// The boost's U of task t (shape < 1), half h = t mod 2 of the block
// (2^63 + t / 2, 0, word3 1) that tasks 2P and 2P + 1 share.
template <class R>
__device__ __forceinline__ R boost_uniform(const r123::Philox4x32::ctr_type& x, int h) {
  if constexpr (sizeof(R) == 4) return Arith<float>::u23(h ? x.v[1] : x.v[0]);
  else return h ? Arith<double>::open(x.v[2], x.v[3]) : Arith<double>::open(x.v[0], x.v[1]);
}

// G U^(1/a) for a < 1 (oracle/rejection/gamma.hpp's gamma_boost), at
// least R's smallest normal number (the underflow rule); G itself for a >=
// 1. fp32: G e, e = 2^l, l = log2(U) (1/a), where e is a normal number,
// else (G 2^(l + 64)) 2^-64 -- both computed and one selected, a few
// instructions each (exp2f is the hardware's; at shape 0.01 e underflows
// for 42% of the tasks, and a branch would part the warp). fp64: G e, e =
// exp(l), l = log(U) (1/a), else exp(log G + l) where the lane needs it (e
// underflows for 8.4e-4 of the tasks at 0.01).
template <class R>
__device__ __forceinline__ R boosted(R g, const GammaShape<R>& k, R boost_u) {
  using A = Arith<R>;
  if (!(k.a < 1)) return g;
  if constexpr (sizeof(R) == 4) {
    const float l = A::mul(A::log2(boost_u), k.inv_a), e = A::exp2(l);
    const float near = A::mul(g, e), far = A::mul(A::mul(g, A::exp2(A::add(l, 64.0f))), 0x1p-64f);
    return fmaxf(e >= A::kMin ? near : far, A::kMin);
  } else {
    const double l = A::mul(A::log(boost_u), k.inv_a), e = A::exp(l);
    return fmax(e >= A::kMin ? A::mul(g, e) : A::exp(A::add(A::log(g), l)), A::kMin);
  }
}

// A task parked by the fast pass: its element, the attempt it resumes at,
// and the boost's U (shape < 1): 16 bytes in fp32, aligned so one 16-byte
// shared store could hold it (nvcc 13 emits two 8-byte ones).
template <class R>
struct alignas(sizeof(R) == 4 ? 16 : 8) Parked {
  std::uint64_t i;
  std::uint32_t j;
  R boost_u;
};
// A warp's queue: fewer than 32 parked, plus an iteration's (two units of
// one or two tasks a lane).
template <class R>
constexpr int kParked = 32 + 32 * 2 * (sizeof(R) == 4 ? 2 : 1);

// Tasks first .. first + count - 1 over the grid, task first + i the
// element i: shape(i) its shape (double, rounded to R as the oracle's
// caller does), put(i, value) stores it. A unit is a pair of tasks, 2P and
// 2P + 1, which share the boost's block (and in fp32 their attempts'
// blocks too: a task takes half a block). A lane takes units u = tid, tid
// + stride, ..., two Philox blocks an iteration in flight, whose rounds
// interleave, where one chain of dependent multiplications would leave the
// schedulers idle (fp32: units u and u + stride; fp64: the two tasks of
// unit u), and makes each task's attempt 0 on the fast path alone.
// A task that needs the slow path or a second attempt is parked in the
// warp's queue, and each time 32 are parked the warp makes one attempt of
// each in full, a task a lane, and parks again the tasks it rejected: so
// the warp runs the common attempt with all its lanes and the rare one with
// all its lanes too, where a lane that met it at once would hold the other
// 31 idle through its log and exp, and a round of the queue lasts one
// attempt, not the longest of 32 lanes' runs of attempts.
// Iterations whose units are all whole and in range (all but the last one
// or two of a call) skip the bounds tests.
template <class R, bool kCount, class Shape, class Put>
__device__ __forceinline__ void gamma_lanes(const rng::ZigguratTables<R>& z, Parked<R>* queue, std::uint64_t seed, std::uint64_t first,
                                            std::uint64_t count, const Shape& shape, Put&& put, RejectionCounts* counts) {
  constexpr bool kF32 = sizeof(R) == 4;
  constexpr int kUnits = kF32 ? 2 : 1;  // units a lane takes an iteration
  const std::uint64_t tid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  // Units unit0 + u, u = 0 .. units - 1: the pairs of tasks first .. first
  // + count - 1. Units whole_lo .. whole_hi - 1 have both tasks in range:
  // the first lacks task first - 1 when first is odd, the last task first +
  // count when first + count is odd.
  const std::uint64_t unit0 = first / 2, units = (first + count - 1) / 2 - unit0 + 1;
  const std::uint64_t calls = (units + stride - 1) / stride;  // the same on every lane
  const std::uint64_t whole_lo = first & 1, whole_hi = units - ((first + count) & 1);
  const unsigned lane = threadIdx.x % 32, below = (1u << lane) - 1;
  const detail::PhiloxKeyed philox(seed);
  GammaShape<R> ks[2];
  unsigned long long attempts = 0, trips = 0;
  // Attempt p.j of a parked task in full: stores the variate if accepted,
  // else moves p to its next attempt; true if rejected.
  auto attempt_once = [&](Parked<R>& p) {
    GammaShape<R>& k = ks[0];
    k.set(static_cast<R>(shape(p.i)));
    R g;
    const bool accepted = gamma_attempt_at(philox, z, first + p.i, p.j, k, g) == kAccepted;
    if constexpr (kCount) ++attempts;
    if (accepted) put(p.i, boosted(g, k, p.boost_u));
    ++p.j;
    return !accepted;
  };
  int parked = 0;  // the same on every lane
  auto park = [&](bool mine, const Parked<R>& p) {
    const unsigned parking = __ballot_sync(detail::kFullWarp, mine);
    if (mine) queue[parked + __popc(parking & below)] = p;
    parked += __popc(parking);
  };
  // Rounds of the queue while at least `least` are parked: the top 32 (or
  // all) a lane each, one attempt each, the rejected parked again.
  auto drain = [&](int least) {
    while (parked >= least) {  // the same on every lane
      const int take = min(parked, 32), from = parked - take;
      const bool mine = static_cast<int>(lane) < take;
      __syncwarp();
      Parked<R> task{};
      if (mine) task = queue[from + static_cast<int>(lane)];
      __syncwarp();
      parked = from;
      const bool again = mine && attempt_once(task);
      if constexpr (kCount) ++trips;
      park(again, task);
    }
  };
  // Task h of unit u: its attempt 0 from block x, of shape s (if `in`:
  // the task is in range) and the boost's U bu; true to park it (in p).
  auto fast = [&](std::uint64_t u, int h, const r123::Philox4x32::ctr_type& x, R s, R bu, bool in, Parked<R>& p) {
    const std::uint64_t task = (unit0 + u) * 2 + static_cast<std::uint64_t>(h), i = task - first;
    p = {i, 0, bu};
    if (!in) return false;
    GammaShape<R>& k = ks[h];
    k.set(s);
    R g;
    const int r = gamma_attempt<true>(philox, z, stream_of<R>(task), 0, kF32 ? h : 0, x, k, g);  // (task mod 2 = h)
    if (r == kAccepted) put(i, boosted(g, k, bu));
    p.j = r == kRejected ? 1 : 0;
    if constexpr (kCount) attempts += r == kSlow ? 0 : 1;
    return r != kAccepted;
  };
  // Units us[w] = u + w stride: their attempts' blocks, shapes and boost
  // blocks, then each task's fast attempt. check::value: a unit or task
  // may be out of range.
  auto iteration = [&](auto check, std::uint64_t u) {
    std::uint64_t us[kUnits];
#pragma unroll
    for (int w = 0; w < kUnits; ++w) us[w] = u + static_cast<std::uint64_t>(w) * stride;
    // fp32: x[w] is unit w's block; fp64: x[h] is task h's of unit u.
    r123::Philox4x32::ctr_type x[2];
#pragma unroll
    for (int b = 0; b < 2; ++b) x[b] = philox(kF32 ? kGammaStreams + unit0 + us[b % kUnits] : kGammaStreams + (unit0 + u) * 2 + static_cast<std::uint64_t>(b), 0);
    R s[kUnits][2], bu[kUnits][2] = {};
    bool in[kUnits][2], boost[kUnits] = {};
#pragma unroll
    for (int w = 0; w < kUnits; ++w) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::uint64_t task = (unit0 + us[w]) * 2 + static_cast<std::uint64_t>(h);
        in[w][h] = !decltype(check)::value || (us[w] < units && task >= first && task - first < count);
        s[w][h] = in[w][h] ? static_cast<R>(shape(task - first)) : R(1);
        boost[w] = boost[w] || s[w][h] < 1;
      }
    }
#pragma unroll
    for (int w = 0; w < kUnits; ++w) {
      if (boost[w]) {
        const auto b = philox(kGammaStreams + unit0 + us[w], 0, kBoostWord);
#pragma unroll
        for (int h = 0; h < 2; ++h) bu[w][h] = boost_uniform<R>(b, h);
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      Parked<R> p[kUnits];
      bool parking[kUnits];
#pragma unroll
      for (int w = 0; w < kUnits; ++w) parking[w] = fast(us[w], h, x[kF32 ? w : h], s[w][h], bu[w][h], in[w][h], p[w]);
#pragma unroll
      for (int w = 0; w < kUnits; ++w) park(parking[w], p[w]);
    }
  };
  std::uint64_t u = tid;
  for (std::uint64_t c = 0; c < calls; c += kUnits, u += kUnits * stride) {
    // the same on every lane
    if (c * stride >= whole_lo && (c + kUnits) * stride <= whole_hi) iteration(std::false_type{}, u);
    else iteration(std::true_type{}, u);
    if constexpr (kCount) trips += kUnits;
    drain(32);
  }
  drain(1);
  if constexpr (kCount) {
    // A call: a unit a lane; its trips: the fast passes and the queue's rounds.
    unsigned long long warp_attempts = attempts;
    for (int o = 16; o > 0; o /= 2) warp_attempts += __shfl_down_sync(detail::kFullWarp, warp_attempts, o);
    if (lane == 0) {
      atomicAdd(&counts->warp_iterations, trips);
      atomicAdd(&counts->warp_calls, static_cast<unsigned long long>(calls));
      atomicAdd(&counts->attempts, warp_attempts);
    }
    if (tid == 0) atomicAdd(&counts->draws, static_cast<unsigned long long>(count));
  }
}

// The same tasks through seed 004's warp loops (gpu/warp_rejection.cuh).
template <class R, class Shape>
struct WarpAttempt {
  const rng::ZigguratTables<R>& z;
  const Shape& shape;
  std::uint64_t first;
  const detail::PhiloxKeyed& philox;
  __device__ __forceinline__ bool operator()(std::uint64_t task, std::uint32_t j, R& out) const {
    GammaShape<R> k;
    k.set(static_cast<R>(shape(task - first)));
    return gamma_attempt_at(philox, z, task, j, k, out) == kAccepted;
  }
};

template <class R, RejectionCaching kCaching, bool kCount, class Shape, class Put>
__device__ __forceinline__ void gamma_warps(const rng::ZigguratTables<R>& z, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                                            const Shape& shape, Put&& put, RejectionCounts* counts) {
  const std::uint64_t tid = blockIdx.x * static_cast<std::uint64_t>(kThreads) + threadIdx.x, stride = static_cast<std::uint64_t>(gridDim.x) * kThreads;
  const std::uint64_t calls = (count + stride - 1) / stride;  // the same on every lane (the loop votes)
  const detail::PhiloxKeyed philox(seed);
  const WarpAttempt<R, Shape> attempt{z, shape, first, philox};
  WarpRejection<R, kCaching> rejection;
  RejectionTally tally;
  for (std::uint64_t c = 0; c < calls; ++c) {
    const std::uint64_t i = tid + c * stride;
    const R g = rejection.next(i < count, first + i, i + stride < count, first + i + stride, attempt);
    if (i < count) {
      GammaShape<R> k;
      k.set(static_cast<R>(shape(i)));
      const std::uint64_t task = first + i;
      put(i, k.a < 1 ? boosted(g, k, boost_uniform<R>(philox(kGammaStreams + task / 2, 0, kBoostWord), static_cast<int>(task & 1))) : g);
    }
    if constexpr (kCount) tally.add(rejection, i < count);
  }
  if constexpr (kCount) tally.flush(counts, tid == 0 ? count : 0);
}

template <class R, int kLoop, bool kCount, class Shape, class Put>
__device__ __forceinline__ void gamma_tasks(std::uint64_t seed, std::uint64_t first, std::uint64_t count, const Shape& shape, Put&& put,
                                            RejectionCounts* counts) {
  __shared__ rng::ZigguratTables<R> shared;
  const auto& z = load_ziggurat(shared);
  if constexpr (kLoop == static_cast<int>(GammaLoop::lane)) {
    __shared__ Parked<R> queue[kThreads / 32][kParked<R>];
    gamma_lanes<R, kCount>(z, queue[threadIdx.x / 32], seed, first, count, shape, put, counts);
  }
  else if constexpr (kLoop == static_cast<int>(GammaLoop::warp_uncached)) gamma_warps<R, RejectionCaching::none, kCount>(z, seed, first, count, shape, put, counts);
  else gamma_warps<R, RejectionCaching::precached, kCount>(z, seed, first, count, shape, put, counts);
}

template <class T>
struct ArrayShape {
  const T* shape;
  __device__ __forceinline__ double operator()(std::uint64_t i) const { return static_cast<double>(shape[i]); }
};

// Blocks an SM must hold: fp64's kernels capped at 64 registers (4 blocks
// of 256, no spill) rather than the 76 ptxas would take (3 blocks): 9%
// faster at shape 30 on an H200 (docs/perf/lda.md).
template <class T>
constexpr int kMinBlocks = sizeof(T) == 4 ? 1 : 4;

template <class T, int kLoop, bool kCount>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T>) gamma_kernel(const T* __restrict__ shape, std::uint64_t n, std::uint64_t seed, std::uint64_t first,
                                                         T* __restrict__ out, RejectionCounts* counts) {
  gamma_tasks<T, kLoop, kCount>(seed, first, n, ArrayShape<T>{shape}, [&](std::uint64_t i, T g) { out[i] = g; }, counts);
}

// The kernel for (loop, counted): one instantiation each.
template <template <class, int, bool> class Kernel, class T, class Launch>
void dispatch_gamma(GammaLoop loop, bool counted, Launch&& launch) {
  switch (loop) {
    case GammaLoop::lane:
      return counted ? launch(Kernel<T, 0, true>::get()) : launch(Kernel<T, 0, false>::get());
    case GammaLoop::warp_uncached:
      return counted ? launch(Kernel<T, 1, true>::get()) : launch(Kernel<T, 1, false>::get());
    case GammaLoop::warp_precached:
      return counted ? launch(Kernel<T, 2, true>::get()) : launch(Kernel<T, 2, false>::get());
  }
  throw std::invalid_argument("gamma: unknown loop");
}

template <class T, int kLoop, bool kCount>
struct GammaKernel {
  static auto get() { return gamma_kernel<T, kLoop, kCount>; }
};

// ---- LDA's theta and phi ---------------------------------------------------

// n[m, k] and n[c, k] from z: a warp a document, its lanes over the
// tokens (a thread a document would walk the longest document's 307 tokens
// alone); integer atomics: the same counts in any order.
__global__ void __launch_bounds__(kThreads) count_topics(const int* __restrict__ z, const int* __restrict__ offsets, const int* __restrict__ words,
                                                        int documents, int k, int* theta_counts, int* phi_counts) {
  const int warps = static_cast<int>(gridDim.x) * (kThreads / 32), lane = static_cast<int>(threadIdx.x % 32);
  for (int m = static_cast<int>((blockIdx.x * kThreads + threadIdx.x) / 32); m < documents; m += warps) {
    for (int t = offsets[m] + lane; t < offsets[m + 1]; t += 32) {
      atomicAdd(theta_counts + static_cast<std::size_t>(m) * k + z[t], 1);
      atomicAdd(phi_counts + static_cast<std::size_t>(words[t]) * k + z[t], 1);
    }
  }
}

struct LdaShape {
  const int* theta_counts;  // M K, then the phi counts (V K) right after
  std::uint64_t theta_tasks;
  double alpha, beta;
  __device__ __forceinline__ double operator()(std::uint64_t t) const {
    return __dadd_rn(t < theta_tasks ? alpha : beta, static_cast<double>(theta_counts[t]));
  }
};

// A task's variate is stored once, after its last read of its count; the
// count is then set to 0, so the counts are all 0 when the kernel ends and
// the next draw's count_topics needs no memset (the kernel is bound by its
// arithmetic, not by these stores).
template <class T, int kLoop, bool kCount>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T>) lda_gammas(LdaShape shape, int* topic_counts, std::uint64_t tasks, std::uint64_t seed,
                                                       T* theta, T* phi_raw, RejectionCounts* counts) {
  gamma_tasks<T, kLoop, kCount>(seed, 0, tasks, shape, [&](std::uint64_t t, T g) {
    if (t < shape.theta_tasks) theta[t] = g;
    else phi_raw[t - shape.theta_tasks] = g;
    topic_counts[t] = 0;
  }, counts);
}

// S_k in two levels, as the oracle adds it: the sum of each chunk of
// kSumChunk words (in word order; a thread a chunk and topic, coalesced
// across the topics), then the chunks' sums in chunk order (a thread a topic).
constexpr int kSumChunk = 256;  // oracle/rejection/gamma.hpp, kLdaSumChunk

template <class T>
__global__ void __launch_bounds__(kThreads) chunk_sums(const T* __restrict__ phi_raw, int vocabulary, int k, double* partial) {
  const int j = static_cast<int>(blockIdx.x * kThreads + threadIdx.x), chunk = static_cast<int>(blockIdx.y);
  if (j >= k) return;
  const int end = min(vocabulary, (chunk + 1) * kSumChunk);
  double s = 0;
  for (int c = chunk * kSumChunk; c < end; ++c) s = __dadd_rn(s, static_cast<double>(phi_raw[static_cast<std::size_t>(c) * k + j]));
  partial[static_cast<std::size_t>(chunk) * k + j] = s;
}

__global__ void __launch_bounds__(kThreads) column_sums(const double* __restrict__ partial, int chunks, int k, double* inverse) {
  const int j = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  if (j >= k) return;
  double s = 0;
  for (int c = 0; c < chunks; ++c) s = __dadd_rn(s, partial[static_cast<std::size_t>(c) * k + j]);
  inverse[j] = __ddiv_rn(1.0, s);
}

// phi = T(double(raw) (1 / S_k)): a thread a topic (its 1 / S_k loaded
// once), the blocks' y over the words.
template <class T>
__global__ void __launch_bounds__(kThreads) normalise(const T* __restrict__ phi_raw, const double* __restrict__ inverse, int vocabulary, int k,
                                                      T* __restrict__ phi) {
  const int j = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  if (j >= k) return;
  const double inv = inverse[j];
  for (int c = static_cast<int>(blockIdx.y); c < vocabulary; c += static_cast<int>(gridDim.y)) {
    const std::size_t at = static_cast<std::size_t>(c) * static_cast<std::size_t>(k) + static_cast<std::size_t>(j);
    phi[at] = static_cast<T>(__dmul_rn(static_cast<double>(phi_raw[at]), inv));
  }
}

template <class T, int kLoop, bool kCount>
struct LdaKernel {
  static auto get() { return lda_gammas<T, kLoop, kCount>; }
};

}  // namespace

template <class T>
void gamma_sample(const T* shape, std::size_t n, std::uint64_t seed, std::uint64_t first, T* out, GammaLoop loop, RejectionCounts* counts,
                  cudaStream_t stream) {
  if (n == 0) return;
  upload_ziggurat<T>();
  dispatch_gamma<GammaKernel, T>(loop, counts != nullptr, [&](auto kernel) {
    kernel<<<resident_grid(reinterpret_cast<const void*>(kernel), kThreads, n), kThreads, 0, stream>>>(shape, n, seed, first, out, counts);
    WARPSIM_CUDA(cudaGetLastError());
  });
}

template <class T>
void LdaTopicSampler<T>::draw(const int* z, const int* offsets, const int* words, int documents, int vocabulary, int k, double alpha, double beta,
                              std::uint64_t seed, T* theta, T* phi, GammaLoop loop, RejectionCounts* counts, cudaStream_t stream) {
  if (documents < 1 || vocabulary < 1 || k < 1) throw std::invalid_argument("LdaTopicSampler: documents, vocabulary and K must be at least 1");
  if (!(alpha > 0) || !(beta > 0) || std::isinf(alpha) || std::isinf(beta)) {
    throw std::invalid_argument("LdaTopicSampler: the priors alpha and beta must be finite and > 0");
  }
  const std::uint64_t theta_n = static_cast<std::uint64_t>(documents) * static_cast<std::uint64_t>(k);
  const std::uint64_t phi_n = static_cast<std::uint64_t>(vocabulary) * static_cast<std::uint64_t>(k);
  const std::size_t counts_bytes = (theta_n + phi_n) * sizeof(int), raw_at = (counts_bytes + 255) / 256 * 256;
  const int chunks = (vocabulary + kSumChunk - 1) / kSumChunk;
  const std::size_t inverse_at = raw_at + (phi_n * sizeof(T) + 255) / 256 * 256;
  const std::size_t partial_at = inverse_at + (static_cast<std::size_t>(k) * sizeof(double) + 255) / 256 * 256;
  unsigned char* base = scratch_.ensure(partial_at + static_cast<std::size_t>(chunks) * static_cast<std::size_t>(k) * sizeof(double));
  auto* partial = reinterpret_cast<double*>(base + partial_at);
  auto* topic_counts = reinterpret_cast<int*>(base);
  auto* phi_raw = reinterpret_cast<T*>(base + raw_at);
  auto* inverse = reinterpret_cast<double*>(base + inverse_at);  // 1 / S_k
  // The counts are 0 where the last draw's gamma kernel left them so, in this
  // allocation, over at least this draw's counts; else zeroed here.
  if (base != zeroed_at_ || zeroed_bytes_ < counts_bytes) WARPSIM_CUDA(cudaMemsetAsync(topic_counts, 0, counts_bytes, stream));
  zeroed_bytes_ = 0;  // until every kernel below is launched
  count_topics<<<grid_for(static_cast<std::size_t>(documents) * 32, kThreads), kThreads, 0, stream>>>(z, offsets, words, documents, k, topic_counts,
                                                                                        topic_counts + theta_n);
  WARPSIM_CUDA(cudaGetLastError());
  const LdaShape shape{topic_counts, theta_n, alpha, beta};
  const std::uint64_t tasks = theta_n + phi_n;
  upload_ziggurat<T>();
  dispatch_gamma<LdaKernel, T>(loop, counts != nullptr, [&](auto kernel) {
    kernel<<<resident_grid(reinterpret_cast<const void*>(kernel), kThreads, tasks), kThreads, 0, stream>>>(shape, topic_counts, tasks, seed, theta,
                                                                                                         phi_raw, counts);
    WARPSIM_CUDA(cudaGetLastError());
  });
  chunk_sums<T><<<dim3(static_cast<unsigned>((k + kThreads - 1) / kThreads), static_cast<unsigned>(chunks)), kThreads, 0, stream>>>(phi_raw, vocabulary,
                                                                                                                            k, partial);
  WARPSIM_CUDA(cudaGetLastError());
  column_sums<<<(k + kThreads - 1) / kThreads, kThreads, 0, stream>>>(partial, chunks, k, inverse);
  WARPSIM_CUDA(cudaGetLastError());
  const dim3 rows(static_cast<unsigned>((k + kThreads - 1) / kThreads), static_cast<unsigned>(std::min(vocabulary, 2048)));
  normalise<T><<<rows, kThreads, 0, stream>>>(phi_raw, inverse, vocabulary, k, phi);
  WARPSIM_CUDA(cudaGetLastError());
  zeroed_at_ = base;
  zeroed_bytes_ = counts_bytes;
}

template void gamma_sample<float>(const float*, std::size_t, std::uint64_t, std::uint64_t, float*, GammaLoop, RejectionCounts*, cudaStream_t);
template void gamma_sample<double>(const double*, std::size_t, std::uint64_t, std::uint64_t, double*, GammaLoop, RejectionCounts*, cudaStream_t);
template class LdaTopicSampler<float>;
template class LdaTopicSampler<double>;

}  // namespace warpsim::gpu
