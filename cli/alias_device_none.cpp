// alias_device.hpp without CUDA: the build says why it cannot run.
#include "cli/alias_device.hpp"
#include "cli/errors.hpp"

namespace warpsim::cli::alias_device {

DeviceBuild build(const std::vector<double>&, bool, std::size_t) {
  throw UsageError("--device: this warpsim was built without CUDA (no nvcc at configure time)");
}

}  // namespace warpsim::cli::alias_device
