// Built without CUDA: the registry's rows have no GPU entries (Algorithm::gpu
// stays empty; nothing stands in for a kernel).
#include "properties/detail/gpu_entries.hpp"
#include "properties/value_samplers.hpp"

namespace warpsim::properties::detail {

void add_gpu_entries(std::vector<Algorithm>&) {}
void add_gpu_value_entries(std::vector<ValueAlgorithm>&) {}

}  // namespace warpsim::properties::detail
