// alias_sharded_device.hpp without CUDA.
#include "cli/alias_sharded_device.hpp"
#include "cli/errors.hpp"

namespace warpsim::cli {

GpuShardedRun run_sharded_on_gpu(const dist::Communicator&, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t) {
  throw UsageError("alias sharded --on gpu: this warpsim was built without CUDA (no nvcc at configure time)");
}

}  // namespace warpsim::cli
