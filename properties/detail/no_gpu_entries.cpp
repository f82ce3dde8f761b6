// Built without CUDA: the registry's rows have no GPU entries (Algorithm::gpu
// stays empty; nothing stands in for a kernel).
#include "properties/detail/gpu_entries.hpp"

namespace warpsim::properties::detail {

void add_gpu_entries(std::vector<Algorithm>&) {}

}  // namespace warpsim::properties::detail
