// A device copy of a host vector for the GPU tests, every call checked.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "gpu/cuda_check.hpp"

namespace warpsim::gpu_test {

template <class T>
struct DeviceArray {
  T* p = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(std::size_t n_) : n(n_) { WARPSIM_CUDA(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T))); }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    WARPSIM_CUDA(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() { cudaFree(p); }
  std::vector<T> download() const {
    std::vector<T> h(n);
    WARPSIM_CUDA(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

}  // namespace warpsim::gpu_test
