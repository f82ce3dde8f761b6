// `warpsim alias build --device`: the table built by the GPU kernels
// (gpu/alias_table.hpp), downloaded for the command to check against the
// host's and print. Without CUDA, or without a usable device, it says why
// (UsageError: exit 2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::cli::alias_device {

struct DeviceBuild {
  std::string device;                  // the GPU's name
  int exponent = 0;
  std::uint64_t capacity = 0;
  std::vector<std::uint64_t> threshold;  // per row (oracle/alias/table.hpp: keep = ceil(t U / 2^64))
  std::vector<std::uint32_t> alias;
  double milliseconds = 0;             // the build, between its start and the table written (no transfers)
};

// Builds PSA's table of `weights` (already rounded to their precision) in
// fp32 or fp64 on the first CUDA device; PSA+'s with greedy groups of
// psa_plus_group items (32 lanes a group) where that is not 0.
DeviceBuild build(const std::vector<double>& weights, bool fp32, std::size_t psa_plus_group = 0);

}  // namespace warpsim::cli::alias_device
