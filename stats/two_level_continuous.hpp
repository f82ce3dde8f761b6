// Two-level testing of a continuous law's values in stream order: the
// values cut into B consecutive blocks (as a kernel writes them: a call, a
// thread block, a request), each block's Anderson-Darling p-value, and those
// B p-values against the uniform law by Anderson-Darling again. What it sees
// that one test of all the values cannot: a law that changes along the
// stream but averages out (blocks shifted up and down, a drift, a seed
// reused per block), which the pooled values show only as a slightly
// different law.
//
// Valid at every precision: each value enters as its randomised probability
// integral transform -- F at a point drawn uniformly across its rounding
// interval (a clamp's value: across [0, F(clamp)]), the draw seeded from the
// values (stats::seed_from_counts) -- which is exactly Uniform(0, 1) and
// independent under the null, ties or not. The first level's p-values are
// then Marsaglia's (accurate to about 1e-5 from 5 values on), the second's
// the same over B of them.
//
// B = n / 1000 blocks, within [10, 100]; not run below 1,000 values (nullopt).
//
// Usage:
//   if (auto r = stats::two_level_continuous_test(values, law.cdf, law.sf, {.alpha = 1e-3})) ...
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "stats/stored.hpp"
#include "stats/test_result.hpp"

namespace warpsim::stats {

struct TwoLevelContinuousOptions {
  double alpha = 0.05;
  Stored stored = Stored::Exact;
  Clamp clamp{};
  std::optional<std::uint64_t> seed{};  // the PIT's randomisation (default: from the values)
};

/// The blocks B for n values (0 below 1,000).
int two_level_blocks(std::size_t n);

/// `values` in the order the sampler wrote them (NaN: std::invalid_argument).
std::optional<TestResult> two_level_continuous_test(std::span<const double> values, const std::function<double(double)>& cdf,
                                                    const TwoLevelContinuousOptions& options = {});

}  // namespace warpsim::stats
