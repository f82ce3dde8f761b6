// `warpsim sample --device`: the token sampler's draws (gpu/token_sampler.hpp)
// for logits read on the host. Without CUDA, or without a usable device, it
// says why (UsageError: exit 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "oracle/token/token_law.hpp"

namespace warpsim::cli::sample_device {

struct DeviceDraws {
  std::string device;     // the GPU's name
  std::string plan;       // TokenPlan::describe()
  std::vector<int> draws;  // M x S
  double milliseconds = 0;  // the kernel, between events
};

// logits: M x K values of `type` (exactly: 16-bit types as their values).
DeviceDraws sample(const std::vector<float>& logits, oracle::token::LogitType type, int m, std::int64_t k, const oracle::token::Sampling& s,
                   std::uint64_t seed, std::uint64_t offset, int draws);

}  // namespace warpsim::cli::sample_device
