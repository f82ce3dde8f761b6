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

// Which seed 000 algorithm a kernel runs. Its name, and the oracle algorithm
// it must equal, are in the registry (properties/gpu_kernels.hpp).
enum class MatrixAlgorithm {
  Baseline,             // Alg. 1-3: a thread per row, running sums, binary search
  TransposedRegisters,  // Alg. 4-6 with the in-register transpose of Fig. 2, binary search
  ButterflyStandard,    // Alg. 7-10, [a c; a+b c+d]
  ButterflyAddSub,      // Alg. 7-10, [a d; a+b c+d]
};

// Launch choices that change the speed of the warp-cooperative kernels and
// never their results (the GPU tests run every choice against the oracle;
// bench_gpu_matrix sweeps them). MatrixSampler<T>::default_tuning() is the
// fastest measured for T (docs/PERF.md).
struct MatrixTuning {
  // While a warp's K values per lane fit in shared memory, its 32 rows are
  // copied there asynchronously and drawn in place: 1 stage, or 2 (the warp's
  // next rows are copied while these are drawn, in twice the memory).
  int stages = 1;
  // At most this many warps resident per multiprocessor (0: as many as fit).
  int max_warps_per_sm = 0;
  // Past shared memory, the butterfly's first pass copies the blocks through
  // a ring of this many W x W tiles in shared memory, ring - 1 in flight per
  // warp: 2, 4 or 8; 0 loads them straight into registers.
  int ring = 4;
};

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

  // Stages 1, no cap; ring 4 for fp32, 2 for fp64.
  static MatrixTuning default_tuning() { return {1, 0, sizeof(T) == 4 ? 4 : 2}; }
  // Throws std::invalid_argument on stages other than 1 or 2, a negative cap or another ring.
  void set_tuning(const MatrixTuning& tuning);
  const MatrixTuning& tuning() const { return tuning_; }

 private:
  DeviceScratch<T> scratch_;
  MatrixTuning tuning_ = default_tuning();
};

}  // namespace warpsim::gpu
