// `warpsim stats TEST --observed FILE --probabilities FILE ...`
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "cli/input/sources.hpp"

namespace CLI {
class App;
}

namespace warpsim::cli {

struct StatsOptions {
  std::string test;  // chi-square | g-test | ks-discrete | binomial | homogeneity | ks-two-sample
  std::string observed;
  std::string probabilities;  // one-sample tests
  std::string observed2;      // two-sample tests
  double alpha = 0.05;
  std::string format = "text";
  bool normalize = false;
  std::optional<std::string> correction;  // binomial: holm (default) | bh
  std::optional<double> target_tv;        // chi-square, g-test: report the draws needed to detect this bias
};

// The most categories each test takes (the input reader refuses more): what
// runs in seconds on one core. ks-discrete and ks-two-sample bound their own
// work (exact, then Monte Carlo, then a conservative bound; stats/ks_discrete.hpp).
std::size_t stats_max_categories(const std::string& test);

// Adds `stats` and its options to the command line, writing into `o`.
CLI::App* add_stats_command(CLI::App& app, StatsOptions& o);

// 0: not rejected; 1: rejected; throws UsageError for bad input, an option the
// test does not use, or input past a limit.
int run_stats(const StatsOptions& options, std::ostream& out, const InputSource& inputs);

}  // namespace warpsim::cli
