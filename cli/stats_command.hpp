// `warpsim stats TEST --observed FILE --probabilities FILE ...`
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace warpsim::cli {

struct StatsOptions {
  std::string test;  // chi-square | g-test | ks-discrete | binomial | homogeneity | ks-two-sample
  std::string observed;
  std::string probabilities;  // one-sample tests
  std::string observed2;      // two-sample tests
  double alpha = 0.05;
  std::string format = "text";
  bool normalize = false;
  std::string correction = "holm";  // binomial: holm | bh
  std::optional<double> target_tv;   // chi-square, g-test: report the draws needed to detect this bias
};

// 0: not rejected; 1: rejected; throws UsageError for bad input.
int run_stats(const StatsOptions& options, std::ostream& out);

}  // namespace warpsim::cli
