// GPU entries of the registry: gpu_entries.cpp where warpsim is built with
// CUDA, no_gpu_entries.cpp (adds none) where it is not.
#pragma once

#include <vector>

#include "properties/registry.hpp"

namespace warpsim::properties::detail {

void add_gpu_entries(std::vector<Algorithm>& rows);

}  // namespace warpsim::properties::detail
