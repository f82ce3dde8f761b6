// Marsaglia-Tsang gamma variates and LDA's theta and phi (gpu/gamma.hpp),
// written next to oracle/rejection/gamma.hpp, in the output's precision
// (fp64 in double, fp32 in float): every floating-point step is one
// explicitly rounded operation (__dmul_rn / __fmul_rn, ...), so nvcc
// contracts nothing into FMA and the order is the oracle's; log, cos and exp
// are CUDA's (within 1-2 ulp; sqrt is correctly rounded).
#include "gpu/gamma.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/philox_keyed.hpp"
#include "gpu/warp_rejection.cuh"

namespace warpsim::gpu {

namespace {

constexpr int kThreads = 256;
constexpr std::uint64_t kGammaStreams = std::uint64_t{1} << 63;  // oracle/rejection/gamma.hpp
constexpr double kTwoPi = 6.283185307179586;                     // 2 pi, as the oracle's 2.0 * std::numbers::pi

// One rounding an operation, in R: the oracle's arithmetic with nothing
// contracted (CUDA's log, cos and exp for the functions).
template <class R>
struct Arith;
template <>
struct Arith<double> {
  static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
  static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
  static __device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
  static __device__ __forceinline__ double div(double a, double b) { return __ddiv_rn(a, b); }
  static __device__ __forceinline__ double sqrt(double a) { return __dsqrt_rn(a); }
  static __device__ __forceinline__ double log(double a) { return ::log(a); }
  static __device__ __forceinline__ double cos(double a) { return ::cos(a); }
  static __device__ __forceinline__ double exp(double a) { return ::exp(a); }
  // u1, angle, u from the block (the oracle's open_uniform53 and open_uniform32).
  static __device__ __forceinline__ void uniforms(const r123::Philox4x32::ctr_type& x, double& u1, double& angle, double& u) {
    u1 = mul(add(static_cast<double>(((static_cast<std::uint64_t>(x.v[0]) << 32) | x.v[1]) >> 11), 0.5), 0x1p-53);
    angle = mul(add(static_cast<double>(x.v[2]), 0.5), 0x1p-32);
    u = mul(add(static_cast<double>(x.v[3]), 0.5), 0x1p-32);
  }
  static __device__ __forceinline__ double boost_uniform(const r123::Philox4x32::ctr_type& x) {
    return mul(add(static_cast<double>(((static_cast<std::uint64_t>(x.v[0]) << 32) | x.v[1]) >> 11), 0.5), 0x1p-53);
  }
};
template <>
struct Arith<float> {
  static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
  static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
  static __device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
  static __device__ __forceinline__ float div(float a, float b) { return __fdiv_rn(a, b); }
  static __device__ __forceinline__ float sqrt(float a) { return __fsqrt_rn(a); }
  static __device__ __forceinline__ float log(float a) { return ::logf(a); }
  static __device__ __forceinline__ float cos(float a) { return ::cosf(a); }
  static __device__ __forceinline__ float exp(float a) { return ::expf(a); }
  // (k + 1/2) 2^-23 of the top 23 bits: the oracle's open_uniform23.
  static __device__ __forceinline__ float u23(std::uint32_t x) { return mul(add(static_cast<float>(x >> 9), 0.5f), 0x1p-23f); }
  static __device__ __forceinline__ void uniforms(const r123::Philox4x32::ctr_type& x, float& u1, float& angle, float& u) {
    u1 = u23(x.v[0]);
    angle = u23(x.v[2]);
    u = u23(x.v[3]);
  }
  static __device__ __forceinline__ float boost_uniform(const r123::Philox4x32::ctr_type& x) { return u23(x.v[0]); }
};

// One Marsaglia-Tsang attempt in R; Shape(i) is the shape of task first + i
// (in double; rounded to R as the oracle's caller does).
template <class R, class Shape>
struct GammaAttempt {
  using A = Arith<R>;
  const Shape& shape;
  std::uint64_t first;
  const detail::PhiloxKeyed& philox;
  __device__ __forceinline__ bool operator()(std::uint64_t task, std::uint32_t j, R& out) const {
    const R a = static_cast<R>(shape(task - first));
    const R s = a < 1 ? A::add(a, R(1)) : a;
    const R d = A::sub(s, R(1) / R(3)), c = A::div(R(1), A::sqrt(A::mul(R(9), d)));
    R u1, angle, u;
    A::uniforms(philox(kGammaStreams + task, j), u1, angle, u);
    const R radius = A::sqrt(A::mul(R(-2), A::log(u1)));
    const R normal = A::mul(radius, A::cos(A::mul(static_cast<R>(kTwoPi), angle)));
    const R t = A::add(R(1), A::mul(c, normal));
    if (t <= 0) return false;
    const R v = A::mul(A::mul(t, t), t);
    const R x2 = A::mul(normal, normal);
    if (u < A::sub(R(1), A::mul(R(0.0331), A::mul(x2, x2))) ||
        A::log(u) < A::add(A::mul(R(0.5), x2), A::mul(d, A::add(A::sub(R(1), v), A::log(v))))) {
      out = A::mul(d, v);
      return true;
    }
    return false;
  }
};

// Gamma(a + 1) U^(1/a) for a < 1: the oracle's boost.
template <class R>
__device__ __forceinline__ R boosted(R g, R a, std::uint64_t task, const detail::PhiloxKeyed& philox) {
  using A = Arith<R>;
  if (!(a < 1)) return g;
  return A::mul(g, A::exp(A::div(A::log(A::boost_uniform(philox(kGammaStreams + task, 0, 1))), a)));
}

// Tasks first .. first + count - 1 over the grid, task first + i the
// element i: shape(i) its shape, put(i, value) stores it.
template <class R, RejectionCaching kCaching, bool kCount, class Shape, class Put>
__device__ __forceinline__ void gamma_tasks(std::uint64_t seed, std::uint64_t first, std::uint64_t count, const Shape& shape, Put&& put,
                                            RejectionCounts* counts) {
  const std::uint64_t tid = blockIdx.x * static_cast<std::uint64_t>(kThreads) + threadIdx.x, stride = static_cast<std::uint64_t>(gridDim.x) * kThreads;
  const std::uint64_t calls = (count + stride - 1) / stride;  // the same on every lane (the loop votes)
  const detail::PhiloxKeyed philox(seed);
  const GammaAttempt<R, Shape> attempt{shape, first, philox};
  WarpRejection<R, kCaching> rejection;
  RejectionTally tally;
  for (std::uint64_t c = 0; c < calls; ++c) {
    const std::uint64_t i = tid + c * stride;
    const R g = rejection.next(i < count, first + i, i + stride < count, first + i + stride, attempt);
    if (i < count) put(i, boosted(g, static_cast<R>(shape(i)), first + i, philox));
    if constexpr (kCount) tally.add(rejection, i < count);
  }
  if constexpr (kCount) tally.flush(counts, tid == 0 ? count : 0);
}

template <class T>
struct ArrayShape {
  const T* shape;
  __device__ __forceinline__ double operator()(std::uint64_t i) const { return static_cast<double>(shape[i]); }
};

template <class T, RejectionCaching kCaching, bool kCount>
__global__ void __launch_bounds__(kThreads) gamma_kernel(const T* __restrict__ shape, std::uint64_t n, std::uint64_t seed, std::uint64_t first,
                                                         T* __restrict__ out, RejectionCounts* counts) {
  gamma_tasks<T, kCaching, kCount>(seed, first, n, ArrayShape<T>{shape}, [&](std::uint64_t i, T g) { out[i] = g; }, counts);
}

// ---- LDA's theta and phi ---------------------------------------------------

// n[m, k] and n[c, k] from z: a thread a document (integer atomics: the same
// counts in any order).
__global__ void __launch_bounds__(kThreads) count_topics(const int* __restrict__ z, const int* __restrict__ offsets, const int* __restrict__ words,
                                                        int documents, int k, int* theta_counts, int* phi_counts) {
  for (int m = static_cast<int>(blockIdx.x * kThreads + threadIdx.x); m < documents; m += static_cast<int>(gridDim.x) * kThreads) {
    for (int t = offsets[m]; t < offsets[m + 1]; ++t) {
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

template <class T, RejectionCaching kCaching, bool kCount>
__global__ void __launch_bounds__(kThreads) lda_gammas(LdaShape shape, std::uint64_t tasks, std::uint64_t seed, T* theta, T* phi_raw,
                                                       RejectionCounts* counts) {
  gamma_tasks<T, kCaching, kCount>(seed, 0, tasks, shape, [&](std::uint64_t t, T g) {
    if (t < shape.theta_tasks) theta[t] = g;
    else phi_raw[t - shape.theta_tasks] = g;
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

__global__ void __launch_bounds__(kThreads) column_sums(const double* __restrict__ partial, int chunks, int k, double* sums) {
  const int j = static_cast<int>(blockIdx.x * kThreads + threadIdx.x);
  if (j >= k) return;
  double s = 0;
  for (int c = 0; c < chunks; ++c) s = __dadd_rn(s, partial[static_cast<std::size_t>(c) * k + j]);
  sums[j] = s;
}

template <class T>
__global__ void __launch_bounds__(kThreads) normalise(const T* __restrict__ phi_raw, const double* __restrict__ sums, std::uint64_t n, int k,
                                                      T* __restrict__ phi) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(kThreads) + threadIdx.x; i < n; i += static_cast<std::uint64_t>(gridDim.x) * kThreads)
    phi[i] = static_cast<T>(__ddiv_rn(static_cast<double>(phi_raw[i]), sums[i % static_cast<std::uint64_t>(k)]));
}

}  // namespace

template <class T>
void gamma_sample(const T* shape, std::size_t n, std::uint64_t seed, std::uint64_t first, T* out, bool precached, RejectionCounts* counts,
                  cudaStream_t stream) {
  if (n == 0) return;
  auto launch = [&](auto kernel) {
    kernel<<<resident_grid(reinterpret_cast<const void*>(kernel), kThreads, n), kThreads, 0, stream>>>(shape, n, seed, first, out, counts);
    WARPSIM_CUDA(cudaGetLastError());
  };
  if (precached) {
    if (counts) launch(gamma_kernel<T, RejectionCaching::precached, true>);
    else launch(gamma_kernel<T, RejectionCaching::precached, false>);
  } else {
    if (counts) launch(gamma_kernel<T, RejectionCaching::none, true>);
    else launch(gamma_kernel<T, RejectionCaching::none, false>);
  }
}

template <class T>
void LdaTopicSampler<T>::draw(const int* z, const int* offsets, const int* words, int documents, int vocabulary, int k, double alpha, double beta,
                              std::uint64_t seed, T* theta, T* phi, bool precached, RejectionCounts* counts, cudaStream_t stream) {
  if (documents < 1 || vocabulary < 1 || k < 1) throw std::invalid_argument("LdaTopicSampler: documents, vocabulary and K must be at least 1");
  if (!(alpha > 0) || !(beta > 0) || std::isinf(alpha) || std::isinf(beta)) {
    throw std::invalid_argument("LdaTopicSampler: the priors alpha and beta must be finite and > 0");
  }
  const std::uint64_t theta_n = static_cast<std::uint64_t>(documents) * static_cast<std::uint64_t>(k);
  const std::uint64_t phi_n = static_cast<std::uint64_t>(vocabulary) * static_cast<std::uint64_t>(k);
  const std::size_t counts_bytes = (theta_n + phi_n) * sizeof(int), raw_at = (counts_bytes + 255) / 256 * 256;
  const int chunks = (vocabulary + kSumChunk - 1) / kSumChunk;
  const std::size_t sums_at = raw_at + (phi_n * sizeof(T) + 255) / 256 * 256;
  const std::size_t partial_at = sums_at + (static_cast<std::size_t>(k) * sizeof(double) + 255) / 256 * 256;
  unsigned char* base = scratch_.ensure(partial_at + static_cast<std::size_t>(chunks) * static_cast<std::size_t>(k) * sizeof(double));
  auto* partial = reinterpret_cast<double*>(base + partial_at);
  auto* topic_counts = reinterpret_cast<int*>(base);
  auto* phi_raw = reinterpret_cast<T*>(base + raw_at);
  auto* sums = reinterpret_cast<double*>(base + sums_at);
  WARPSIM_CUDA(cudaMemsetAsync(topic_counts, 0, counts_bytes, stream));
  count_topics<<<grid_for(static_cast<std::size_t>(documents), kThreads), kThreads, 0, stream>>>(z, offsets, words, documents, k, topic_counts,
                                                                                        topic_counts + theta_n);
  WARPSIM_CUDA(cudaGetLastError());
  const LdaShape shape{topic_counts, theta_n, alpha, beta};
  const std::uint64_t tasks = theta_n + phi_n;
  auto launch = [&](auto kernel) {
    kernel<<<resident_grid(reinterpret_cast<const void*>(kernel), kThreads, tasks), kThreads, 0, stream>>>(shape, tasks, seed, theta, phi_raw, counts);
    WARPSIM_CUDA(cudaGetLastError());
  };
  if (precached) {
    if (counts) launch(lda_gammas<T, RejectionCaching::precached, true>);
    else launch(lda_gammas<T, RejectionCaching::precached, false>);
  } else {
    if (counts) launch(lda_gammas<T, RejectionCaching::none, true>);
    else launch(lda_gammas<T, RejectionCaching::none, false>);
  }
  chunk_sums<T><<<dim3(static_cast<unsigned>((k + kThreads - 1) / kThreads), static_cast<unsigned>(chunks)), kThreads, 0, stream>>>(phi_raw, vocabulary,
                                                                                                                            k, partial);
  WARPSIM_CUDA(cudaGetLastError());
  column_sums<<<(k + kThreads - 1) / kThreads, kThreads, 0, stream>>>(partial, chunks, k, sums);
  WARPSIM_CUDA(cudaGetLastError());
  normalise<T><<<grid_for(phi_n, kThreads), kThreads, 0, stream>>>(phi_raw, sums, phi_n, k, phi);
  WARPSIM_CUDA(cudaGetLastError());
}

template void gamma_sample<float>(const float*, std::size_t, std::uint64_t, std::uint64_t, float*, bool, RejectionCounts*, cudaStream_t);
template void gamma_sample<double>(const double*, std::size_t, std::uint64_t, std::uint64_t, double*, bool, RejectionCounts*, cudaStream_t);
template class LdaTopicSampler<float>;
template class LdaTopicSampler<double>;

}  // namespace warpsim::gpu
