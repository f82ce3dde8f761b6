// Goodness of fit of observed category counts to given probabilities:
// Pearson's chi-square and the likelihood-ratio G-test, after pooling the
// categories whose expected count is small (stats/pooling.hpp).
//
// The p-value. The chi-square limit is what textbooks and SciPy give, and its
// tail is too light where expected counts are small: at expected counts of
// 5-10 the test rejects a correct sampler 1.5-2x as often as alpha says at
// alpha = 0.001 (docs/validate.md, "Calibration"). By default (Auto) the
// p-value is therefore a sequential Monte Carlo one (stats/monte_carlo.hpp):
// the pooled cells' multinomial simulated, valid at every sample size. Where
// the simulation would pass `max_monte_carlo_work` binomial draws (cells x the
// replicates that resolve alpha), many cells make Pearson's limit accurate
// (its mean is exact) and it is used. G's limit is biased by about df / (6 E)
// and is used only where every cell expects at least sqrt(df) draws; short of
// that G is simulated with the replicates that fit (at least 2 / alpha), or
// refused (std::invalid_argument). The result says which p-value it holds
// (p_value_method).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "stats/test_result.hpp"

namespace warpsim::stats {

enum class PValueMethod {
  Auto,        // Monte Carlo where its work fits, else the chi-square limit
  MonteCarlo,  // Monte Carlo (work permitting: else std::invalid_argument)
  Asymptotic,  // the chi-square limit (what SciPy's chisquare and power_divergence give)
};

struct GofOptions {
  double alpha = 0.05;
  double min_expected = 5.0;  // pooling threshold
  double power = 0.9;         // for the detectable-bias statement
  PValueMethod method = PValueMethod::Auto;
  std::optional<std::uint64_t> seed{};  // the Monte Carlo simulation's (default: from the counts)
  double max_monte_carlo_work = 2e8;   // binomial draws: cells x replicates
};

TestResult chi_square_test(std::span<const double> observed, std::span<const double> probabilities,
                           const GofOptions& options = {});

TestResult g_test(std::span<const double> observed, std::span<const double> probabilities,
                  const GofOptions& options = {});

}  // namespace warpsim::stats
