// Every CUDA runtime call and kernel launch in warpsim goes through these, so
// that a failure names the call, the file and the line.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace warpsim::gpu {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // (a failed call's error is not left for the next check to report)
    throw CudaError(code, std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                              cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
  }
}

}  // namespace warpsim::gpu

// WARPSIM_CUDA(cudaMalloc(&p, n));  throws CudaError naming the call.
#define WARPSIM_CUDA(call) ::warpsim::gpu::check_cuda((call), #call, __FILE__, __LINE__)

// After a launch: checks the launch itself, then waits and checks execution.
#define WARPSIM_CUDA_LAUNCH(what)                                                          \
  do {                                                                                     \
    ::warpsim::gpu::check_cuda(cudaGetLastError(), "launch of " what, __FILE__, __LINE__); \
    ::warpsim::gpu::check_cuda(cudaDeviceSynchronize(), "execution of " what, __FILE__, __LINE__); \
  } while (0)
