// `warpsim rejection --lanes K --p P [--cached] [--format text|json|svg]`:
// the cost of a rejection loop on a warp (seed 004; oracle/rejection/loop_model.hpp).
#pragma once

#include <ostream>
#include <string>

namespace CLI {
class App;
}

namespace warpsim::cli {

struct RejectionOptions {
  int lanes = 32;
  double p = 0;
  bool cached = false;
  std::string format = "text";
};

// Adds `rejection` and its options to the command line, writing into `o`.
CLI::App* add_rejection_command(CLI::App& app, RejectionOptions& o);

// The least p taken: below it a loop's mean iterations (about H_K / p) near
// the largest double.
inline constexpr double kRejectionMinP = 1e-300;

// 0, or throws UsageError (exit 2) for lanes outside 1..64 or p outside
// [kRejectionMinP, 1]. Every accepted input ends in seconds: the means are
// solved exactly, the laws stepped through at most 2^16 iterations.
int run_rejection(const RejectionOptions& o, std::ostream& out);

}  // namespace warpsim::cli
