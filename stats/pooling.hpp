// Pooling of categories whose expected count is small, before a chi-square
// or G-test. The rule (documented in docs/stats.md and reported with every
// result):
//   1. Categories with probability 0 are dropped; an observation in one makes
//      the test reject outright (the sample is impossible under the null).
//   2. Every category whose expected count n*p is below `min_expected`
//      (default 5, Cochran's rule) goes into one pooled category.
//   3. If the pooled category's expected count is itself below
//      `min_expected`, it is merged with the remaining category of smallest
//      expected count, repeatedly, until it is not (or one category is left).
//      Only for a p-value from the chi-square limit (`top_up_pool`): that
//      limit needs it, a simulated null does not, and two categories of
//      which one is rare ({1e-3, 1} with 1,000 draws) would otherwise merge
//      into one and test nothing.
// Categories are never reordered or merged by adjacency: a sampler's indices
// have no order that the test should assume.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace warpsim::stats {

struct PooledCounts {
  std::vector<double> observed;
  std::vector<double> expected;
  std::size_t pooled_categories = 0;    // original categories merged into the pool
  std::size_t dropped_zero_probability = 0;
  std::uint64_t observed_in_impossible = 0;  // observations in zero-probability categories
};

// "N categories with expected count below T pooled into one", for reports.
std::string pooling_note(std::size_t pooled_categories, double min_expected);

PooledCounts pool_small_expected(std::span<const double> observed, std::span<const double> probabilities,
                                 double min_expected = 5.0, bool top_up_pool = true);

}  // namespace warpsim::stats
