// The z-draw of an uncollapsed LDA Gibbs sweep on the GPU (seed 000, Sec. 4-6):
// for every token t of document m with word c, weights theta[m, k] * phi[c, k]
// computed on the fly, z[t] drawn with u = rng::uniform(seed, t). A thread
// per document; the warp-cooperative algorithms keep every lane awake with
// the seed's master-index loop. Indices equal the oracle's
// (oracle/lda_workload.hpp) bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/launch.hpp"
#include "gpu/matrix_sampler.hpp"  // MatrixAlgorithm names the same four algorithms

namespace warpsim::gpu {

template <class T>
class LdaSampler {
 public:
  // Device pointers: theta (documents x K), phi (vocabulary x K), offsets
  // (documents + 1), words and z (one per token). Asynchronous on `stream`.
  void draw(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k, std::uint64_t seed,
            MatrixAlgorithm algorithm, int* z, cudaStream_t stream = nullptr);

 private:
  DeviceScratch<T> scratch_;
};

}  // namespace warpsim::gpu
