// warpsim: inspect the warp model and validate sampling kernels.
#include <iostream>

#include "cli/app.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return warpsim::cli::run_cli(args, std::cout, std::cerr, warpsim::cli::FileInputs{});
}
