// `warpsim demo`: the model's built-in demonstration, a register transpose
// (seed 000, Fig. 2) on a small warp shown pass by pass.
#pragma once

#include <ostream>
#include <string>

namespace CLI {
class App;
}

namespace warpsim::cli {

struct DemoOptions {
  int lanes = 8;
  std::string format = "text";  // text | json
  bool trace = false;           // also list every instruction
};

// Adds `demo` and its options to the command line, writing into `o`.
CLI::App* add_demo_command(CLI::App& app, DemoOptions& o);

int run_demo(const DemoOptions& options, std::ostream& out);

}  // namespace warpsim::cli
