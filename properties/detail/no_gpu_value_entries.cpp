// Built without CUDA: the samplers of values have no GPU entries.
#include "properties/value_samplers.hpp"

namespace warpsim::properties::detail {

void add_gpu_value_entries(std::vector<ValueAlgorithm>&) {}

}  // namespace warpsim::properties::detail
