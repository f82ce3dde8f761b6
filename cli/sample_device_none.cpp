// sample_device.hpp without CUDA: the draw says why it cannot run.
#include "cli/errors.hpp"
#include "cli/sample_device.hpp"

namespace warpsim::cli::sample_device {

DeviceDraws sample(const std::vector<float>&, oracle::token::LogitType, int, std::int64_t, const oracle::token::Sampling&, std::uint64_t,
                   std::uint64_t, int) {
  throw UsageError("--device: this warpsim was built without CUDA (no nvcc at configure time)");
}

}  // namespace warpsim::cli::sample_device
