// Goodness of fit of observed category counts to given probabilities:
// Pearson's chi-square and the likelihood-ratio G-test, after pooling the
// categories whose expected count is small (stats/pooling.hpp).
#pragma once

#include <span>

#include "stats/test_result.hpp"

namespace warpsim::stats {

struct GofOptions {
  double alpha = 0.05;
  double min_expected = 5.0;  // pooling threshold
  double power = 0.9;         // for the detectable-bias statement
};

TestResult chi_square_test(std::span<const double> observed, std::span<const double> probabilities,
                           const GofOptions& options = {});

TestResult g_test(std::span<const double> observed, std::span<const double> probabilities,
                  const GofOptions& options = {});

}  // namespace warpsim::stats
