// Which CUDA device, if any, this process can use; and why not, if none.
#pragma once

#include <optional>
#include <string>

namespace warpsim::gpu {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int major = 0, minor = 0;
  int multiprocessors = 0;
  std::size_t global_bytes = 0;
  int warp_size = 0;
};

// The first device, or nothing with `reason` saying why (no driver, no device, ...).
std::optional<DeviceInfo> first_device(std::string* reason);

}  // namespace warpsim::gpu
