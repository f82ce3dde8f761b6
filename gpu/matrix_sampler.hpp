// Draw one index per row of an M x K row-major weight matrix on the GPU, with
// the seed 000 algorithms (W = 32), fp32 or fp64. The indices equal the
// oracle's (oracle/draw_matrix.hpp) bit for bit for the same uniforms, which
// both take from rng/philox_uniform.hpp with stream = row, draw = 0.
// Every CUDA call is checked (gpu/cuda_check.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/launch.hpp"

namespace warpsim::gpu {

enum class MatrixAlgorithm {
  Baseline,             // Alg. 1-3: a thread per row, running sums, binary search
  TransposedRegisters,  // Alg. 4-6 with the in-register transpose of Fig. 2, binary search
  ButterflyStandard,    // Alg. 7-10, [a c; a+b c+d]
  ButterflyAddSub,      // Alg. 7-10, [a d; a+b c+d]
};

const char* algorithm_name(MatrixAlgorithm a);

// Owns the scratch memory the kernels need (running sums or butterfly
// tables per resident warp) and reuses it across calls.
template <class T>
class MatrixSampler {
 public:
  // weights: device, M x K row-major; out: device, M ints. Asynchronous on `stream`.
  void draw(const T* weights, int m, int k, std::uint64_t seed, MatrixAlgorithm algorithm, int* out,
            cudaStream_t stream = nullptr);

  // Inspection path (not the fast path): the butterfly table that warp q
  // builds from the first full block of its rows (columns K mod 32 ..
  // K mod 32 + 31), for every warp: tables[(q * 32 + register) * 32 + lane].
  // Needs K >= 32; tables holds ceil(M / 32) * 1024 elements.
  void butterfly_tables(const T* weights, int m, int k, bool addsub, T* tables, cudaStream_t stream = nullptr);

 private:
  DeviceScratch<T> scratch_;
};

}  // namespace warpsim::gpu
