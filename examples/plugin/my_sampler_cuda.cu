// The example's sampler on the device: a thread per row (draw_rows) or per
// draw (draw_many), weights and indices in device memory. Launches are
// checked here, and warpsim checks again after each call.
#include <cuda_runtime.h>
#include <warpsim/plugin.h>

#include <string>

#include "my_sampler.hpp"

namespace {

thread_local std::string last_error;

template <class T>
__global__ void rows_kernel(const T* w, std::int64_t rows, std::int64_t cols, std::uint64_t seed, std::int32_t* out) {
  const std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (r < rows) out[r] = draw_one(w + r * cols, cols, warpsim::rng::uniform<T>(seed, static_cast<std::uint64_t>(r)));
}

template <class T>
__global__ void many_kernel(const T* w, std::int64_t k, std::int64_t draws, std::uint64_t seed, std::uint64_t first, std::int32_t* out) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < draws) out[i] = draw_one(w, k, warpsim::rng::uniform<T>(seed, first + static_cast<std::uint64_t>(i)));
}

template <class T>
__global__ void row_draws_kernel(const T* w, std::int64_t rows, std::int64_t cols, std::int64_t s, const std::uint64_t* seeds,
                                 const std::uint64_t* offsets, std::int32_t* out) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= rows * s) return;
  const std::int64_t r = i / s, j = i % s;
  out[i] = draw_one(w + r * cols, cols, warpsim::rng::uniform<T>(seeds[r], offsets[r] + static_cast<std::uint64_t>(j)));
}

int launched(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return 0;
  last_error = std::string(what) + ": " + cudaGetErrorString(e);
  return 1;
}

unsigned blocks(std::int64_t n) { return static_cast<unsigned>((n + 255) / 256); }

}  // namespace

int my_sampler_cuda_rows(void*, const void* w, warpsim_dtype dtype, std::int64_t rows, std::int64_t cols, std::uint64_t seed, std::int32_t* out) {
  if (rows == 0) return 0;
  if (dtype == WARPSIM_F32) rows_kernel<float><<<blocks(rows), 256>>>(static_cast<const float*>(w), rows, cols, seed, out);
  else rows_kernel<double><<<blocks(rows), 256>>>(static_cast<const double*>(w), rows, cols, seed, out);
  return launched("rows_kernel");
}

int my_sampler_cuda_many(void*, const void* w, warpsim_dtype dtype, std::int64_t k, std::int64_t draws, std::uint64_t seed, std::uint64_t first,
                         std::int32_t* out) {
  if (draws == 0) return 0;
  if (dtype == WARPSIM_F32) many_kernel<float><<<blocks(draws), 256>>>(static_cast<const float*>(w), k, draws, seed, first, out);
  else many_kernel<double><<<blocks(draws), 256>>>(static_cast<const double*>(w), k, draws, seed, first, out);
  return launched("many_kernel");
}

// The seeds and offsets come in host memory (the ABI's rule): copied here.
int my_sampler_cuda_row_draws(void*, const void* w, warpsim_dtype dtype, std::int64_t rows, std::int64_t cols, std::int64_t s,
                              const std::uint64_t* seeds, const std::uint64_t* offsets, std::int32_t* out) {
  if (rows == 0 || s == 0) return 0;
  std::uint64_t* d = nullptr;
  const std::size_t bytes = static_cast<std::size_t>(rows) * sizeof(std::uint64_t);
  if (cudaMalloc(&d, 2 * bytes) != cudaSuccess) return launched("cudaMalloc of the seeds");
  cudaMemcpy(d, seeds, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d + rows, offsets, bytes, cudaMemcpyHostToDevice);
  if (dtype == WARPSIM_F32) row_draws_kernel<float><<<blocks(rows * s), 256>>>(static_cast<const float*>(w), rows, cols, s, d, d + rows, out);
  else row_draws_kernel<double><<<blocks(rows * s), 256>>>(static_cast<const double*>(w), rows, cols, s, d, d + rows, out);
  const int rc = launched("row_draws_kernel");
  cudaFree(d);
  return rc;
}

const char* my_sampler_cuda_error() { return last_error.c_str(); }
