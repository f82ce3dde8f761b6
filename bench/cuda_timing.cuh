// Timing and data for the device benchmarks: the median of repeated runs
// between CUDA events after warm-up runs, the copy bandwidth that sets the
// floors, and weights filled on the device (uniform from the shared Philox
// mapping, or a shuffled power law).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::bench {

template <class T>
__global__ void fill_uniform(T* w, std::size_t n, std::uint64_t seed, std::uint32_t draw) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    w[i] = rng::uniform<T>(seed, i, draw);
  }
}

template <class T>
__global__ void fill_constant(T* w, std::size_t n, T value) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    w[i] = value;
  }
}

// A shuffled power law: w[perm(i)] = (i + 1)^-1, perm(i) = i * 7919 mod n
// (7919 is prime and divides none of the sizes used).
template <class T>
__global__ void fill_power_law(T* w, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    w[(i * 7919) % n] = T(1) / static_cast<T>(i + 1);
  }
}

template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(std::size_t n) { WARPSIM_CUDA(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

template <class F>
double median_ms(F&& run, int reps, int warmup) {
  cudaEvent_t a, b;
  WARPSIM_CUDA(cudaEventCreate(&a));
  WARPSIM_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < warmup; ++i) run();
  WARPSIM_CUDA(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    WARPSIM_CUDA(cudaEventRecord(a));
    run();
    WARPSIM_CUDA(cudaEventRecord(b));
    WARPSIM_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    WARPSIM_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  WARPSIM_CUDA(cudaEventDestroy(a));
  WARPSIM_CUDA(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The device-to-device copy bandwidth (bytes read and written), GB/s: a
// benchmark's floor divides its bytes by this.
inline double copy_bandwidth_gbs() {
  const std::size_t bytes = std::size_t{1} << 30;
  DeviceBuffer<char> a(bytes), b(bytes);
  WARPSIM_CUDA(cudaMemset(a.p, 1, bytes));
  const double ms = bench::median_ms([&] { WARPSIM_CUDA(cudaMemcpy(b.p, a.p, bytes, cudaMemcpyDeviceToDevice)); }, 10, 2);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e6);
}

}  // namespace warpsim::bench
