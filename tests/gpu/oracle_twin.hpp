// Which oracle algorithm each GPU kernel must equal, bit for bit.
#pragma once

#include "gpu/matrix_sampler.hpp"
#include "oracle/draw_matrix.hpp"

namespace warpsim::gpu_test {

inline oracle::Algorithm oracle_twin(gpu::MatrixAlgorithm a) {
  switch (a) {
    case gpu::MatrixAlgorithm::Baseline: return oracle::Algorithm::BaselineBinary;
    case gpu::MatrixAlgorithm::TransposedRegisters: return oracle::Algorithm::TransposedRegisters;
    case gpu::MatrixAlgorithm::ButterflyStandard: return oracle::Algorithm::ButterflyStandard;
    case gpu::MatrixAlgorithm::ButterflyAddSub: return oracle::Algorithm::ButterflyAddSub;
  }
  return oracle::Algorithm::BaselineBinary;
}

}  // namespace warpsim::gpu_test
