#include "cli/generated_weights.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace warpsim::cli {

namespace {

__global__ void generate_kernel(double* w, std::uint64_t count, std::uint64_t seed, std::uint64_t first) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    w[i] = generated_weight(seed, first + i);
  }
}

}  // namespace

void generate_weights_on_device(double* weights, std::uint64_t count, std::uint64_t seed, std::uint64_t first) {
  if (count == 0) return;
  const std::uint64_t blocks = (count + 255) / 256;
  generate_kernel<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), 256>>>(weights, count, seed, first);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) throw std::runtime_error(std::string("generating weights on the device: ") + cudaGetErrorString(e));
}

}  // namespace warpsim::cli
