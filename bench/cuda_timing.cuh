// Timing and data for the device benchmarks: the median of repeated runs
// between CUDA events after warm-up runs, and weights filled on the device
// from the shared Philox mapping.
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

}  // namespace warpsim::bench
