#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"

namespace warpsim::gpu {

std::optional<DeviceInfo> first_device(std::string* reason) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    if (reason) *reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return std::nullopt;
  }
  if (count == 0) {
    if (reason) *reason = "no CUDA device is present";
    return std::nullopt;
  }
  cudaDeviceProp p{};
  WARPSIM_CUDA(cudaGetDeviceProperties(&p, 0));
  DeviceInfo d;
  d.ordinal = 0;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.multiprocessors = p.multiProcessorCount;
  d.global_bytes = p.totalGlobalMem;
  d.warp_size = p.warpSize;
  return d;
}

}  // namespace warpsim::gpu
