// What every test in stats/ reports: the statistic, its p-value, the verdict
// at the chosen alpha, and what a pass rules out (the smallest bias the test
// detects with power 0.9 at this sample size).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace warpsim::stats {

struct DetectableBias {
  double power = 0.9;
  // Any alternative at least this far from the null in total-variation
  // distance is detected with at least `power` (chi-square family; asymptotic).
  std::optional<double> total_variation;
  // A relative error of this size in any single category (the others scaled
  // to compensate) is detected with at least `power`.
  std::optional<double> max_relative_error;
  // Any alternative whose CDF is at least this far from the null's
  // (Kolmogorov distance) is detected with at least `power` (KS tests).
  std::optional<double> kolmogorov_distance;
  // Any shift of the statistic's mean, per draw (or per pair), of at least
  // this size is detected with at least `power` (tests of a mean: the rows'
  // score and independence tests; normal approximation of their null).
  std::optional<double> mean_shift;
  std::string basis;  // how the figure was obtained
};

struct TestResult {
  std::string test;
  double statistic = 0;
  std::optional<double> df;
  double p_value = 1;
  std::optional<double> p_value_standard_error;  // Monte-Carlo p-values only
  // How the p-value was found: "exact", "Monte Carlo (N samples)", "chi-square
  // limit", "Kolmogorov limit", "DKW bound" ("" where a test does not say).
  std::string p_value_method;
  double alpha = 0.05;
  bool reject = false;
  std::size_t sample_size = 0;
  DetectableBias detectable;
  std::vector<std::string> notes;  // e.g. how categories were pooled
};

}  // namespace warpsim::stats
