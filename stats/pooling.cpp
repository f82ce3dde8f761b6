#include "stats/pooling.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace warpsim::stats {

std::string pooling_note(std::size_t pooled_categories, double min_expected) {
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g", min_expected);
  return std::to_string(pooled_categories) + " categories with an expected count below " + threshold + " pooled into one";
}

PooledCounts pool_small_expected(std::span<const double> observed, std::span<const double> probabilities,
                                 double min_expected, bool top_up_pool) {
  if (observed.size() != probabilities.size()) throw std::invalid_argument("observed and probabilities differ in length");
  const double n = std::accumulate(observed.begin(), observed.end(), 0.0);
  PooledCounts out;
  out.observed.reserve(observed.size() + 1);
  out.expected.reserve(observed.size() + 1);
  double pool_obs = 0, pool_exp = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double e = n * probabilities[i];
    if (probabilities[i] == 0) {
      ++out.dropped_zero_probability;
      out.observed_in_impossible += static_cast<std::uint64_t>(observed[i]);
    } else if (e < min_expected) {
      pool_obs += observed[i];
      pool_exp += e;
      ++out.pooled_categories;
    } else {
      out.observed.push_back(observed[i]);
      out.expected.push_back(e);
    }
  }
  if (out.pooled_categories > 0) {
    while (top_up_pool && pool_exp < min_expected && !out.expected.empty()) {
      const auto smallest = std::min_element(out.expected.begin(), out.expected.end()) - out.expected.begin();
      pool_obs += out.observed[static_cast<std::size_t>(smallest)];
      pool_exp += out.expected[static_cast<std::size_t>(smallest)];
      out.observed.erase(out.observed.begin() + smallest);
      out.expected.erase(out.expected.begin() + smallest);
      ++out.pooled_categories;
    }
    out.observed.push_back(pool_obs);
    out.expected.push_back(pool_exp);
  }
  return out;
}

}  // namespace warpsim::stats
