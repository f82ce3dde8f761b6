// Where warpsim is built with CUDA: which kernel of gpu/matrix_sampler.hpp
// implements which registry row -- the pairing, in one place, for code that
// drives gpu::MatrixSampler directly (tuning sweeps, benchmarks, the LDA
// sampler) and needs the row's name or its oracle.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpu/matrix_sampler.hpp"

namespace warpsim::properties {

// (registry name, kernel), in the registry's order.
const std::vector<std::pair<std::string, gpu::MatrixAlgorithm>>& matrix_kernels();

// The registry name of a kernel ("butterfly-addsub").
const std::string& name_of(gpu::MatrixAlgorithm kernel);

}  // namespace warpsim::properties
