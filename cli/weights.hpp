// Where `show` gets numeric weights: a file of W x K numbers, or a generator.
// Both give W rows (lanes) of K fp32 weights, the values the views compute
// with; the commands that take weights next (alias, validate) read them here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/inputs.hpp"

namespace warpsim::cli {

// W x K weights from `path`, lane after lane. Each must be finite,
// non-negative and survive the conversion to fp32 (1e39 would become inf,
// 1e-46 would become 0); there must be exactly W x K. UsageError otherwise.
std::vector<std::vector<float>> read_weight_rows(const InputSource& inputs, const std::string& path, int w, int k);

// W x K small whole weights (0 to 9) from a seeded generator: every partial
// sum is exact, so numeric views read as plainly as the symbolic ones.
std::vector<std::vector<float>> generated_weight_rows(std::uint64_t seed, int w, int k);

}  // namespace warpsim::cli
