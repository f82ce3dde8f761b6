// device.hpp with CUDA: every call checked; an error that belongs to a
// plugin's launch is returned by synchronize_error() for the caller to blame.
#include <cuda_runtime.h>

#include "cli/errors.hpp"
#include "cli/validate/device.hpp"

namespace warpsim::cli::validate::device {

namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw UsageError(what + ": CUDA error " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

// Few categories: each block counts in shared memory (32-bit, at most
// 2^31 draws a block a call) and adds its counts to the global ones once, so
// the atomics on a hot category stay inside the SM.
constexpr int kSharedBins = 8192;

template <class T, bool Shared>
__global__ void histogram_kernel(const std::int32_t* idx, std::uint64_t n, const T* w, std::int64_t k, unsigned long long* counts,
                                 unsigned long long* findings) {
  __shared__ unsigned int local[Shared ? kSharedBins : 1];
  if constexpr (Shared) {
    for (int i = threadIdx.x; i < k; i += blockDim.x) local[i] = 0;
    __syncthreads();
  }
  for (std::uint64_t e = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::int32_t i = idx[e];
    if (i < 0 || i >= k) {
      atomicAdd(&findings[0], 1ull);
      atomicMin(&findings[1], static_cast<unsigned long long>(e));
      continue;
    }
    if (w[i] == T(0)) {
      atomicAdd(&findings[2], 1ull);
      atomicMin(&findings[3], static_cast<unsigned long long>(e));
    }
    if constexpr (Shared) {
      atomicAdd(&local[i], 1u);
    } else {
      atomicAdd(&counts[i], 1ull);
    }
  }
  if constexpr (Shared) {
    __syncthreads();
    for (int i = threadIdx.x; i < k; i += blockDim.x)
      if (local[i]) atomicAdd(&counts[i], static_cast<unsigned long long>(local[i]));
  }
}

template <class T>
void launch_histogram(int blocks, int threads, const std::int32_t* idx, std::uint64_t n, const T* w, std::int64_t k, unsigned long long* c,
                      unsigned long long* f) {
  if (k <= kSharedBins) {
    histogram_kernel<T, true><<<blocks, threads>>>(idx, n, w, k, c, f);
  } else {
    histogram_kernel<T, false><<<blocks, threads>>>(idx, n, w, k, c, f);
  }
}

}  // namespace

std::string unavailable() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  if (n == 0) return "no CUDA device";
  return "";
}

Buffer::Buffer(std::size_t bytes, const std::string& what) : bytes_(bytes) {
  const cudaError_t e = cudaMalloc(&p_, bytes == 0 ? 1 : bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    throw UsageError(what + " needs " + std::to_string(bytes) + " bytes of device memory; " + std::to_string(free) + " of " +
                     std::to_string(total) + " are free");
  }
  check(e, what + " (cudaMalloc of " + std::to_string(bytes) + " bytes)");
}

Buffer::~Buffer() {
  if (p_) cudaFree(p_);  // in a destructor: an error here has been reported by the call that caused it
}

void Buffer::upload(const void* host, std::size_t bytes) { check(cudaMemcpy(p_, host, bytes, cudaMemcpyHostToDevice), "copying to the device"); }
void Buffer::download(void* host, std::size_t bytes) const {
  check(cudaMemcpy(host, p_, bytes, cudaMemcpyDeviceToHost), "copying from the device");
}
void Buffer::zero() { check(cudaMemset(p_, 0, bytes_), "cudaMemset"); }

std::string synchronize_error() {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e == cudaSuccess) return "";
  return std::string("CUDA error ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
}

HistogramFindings histogram(const Buffer& indices, std::uint64_t n, const Buffer& weights, int dtype_bytes, std::int64_t k, Buffer& counts) {
  unsigned long long host[4] = {0, UINT64_MAX, 0, UINT64_MAX};
  Buffer findings(sizeof host, "the histogram's findings");
  findings.upload(host, sizeof host);
  const int threads = 256;
  // A block takes at most 2^31 draws (its shared counters are 32-bit).
  const int blocks = static_cast<int>(std::min<std::uint64_t>((n + threads - 1) / threads, 1024));
  if (n > 0) {
    const auto* idx = static_cast<const std::int32_t*>(indices.get());
    auto* c = static_cast<unsigned long long*>(counts.get());
    auto* f = static_cast<unsigned long long*>(findings.get());
    if (dtype_bytes == 4) {
      launch_histogram(blocks, threads, idx, n, static_cast<const float*>(weights.get()), k, c, f);
    } else {
      launch_histogram(blocks, threads, idx, n, static_cast<const double*>(weights.get()), k, c, f);
    }
    check(cudaGetLastError(), "launching the histogram kernel");
    check(cudaDeviceSynchronize(), "the histogram kernel");
  }
  findings.download(host, sizeof host);
  return {host[0], host[1], host[2], host[3]};
}

}  // namespace warpsim::cli::validate::device
