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

// 0, or throws UsageError (exit 2) for lanes outside 1..64 or p outside (0, 1].
int run_rejection(const RejectionOptions& o, std::ostream& out);

}  // namespace warpsim::cli
