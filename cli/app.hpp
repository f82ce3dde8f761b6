// The `warpsim` command line as a function: parse the arguments, run the
// subcommand, map every outcome to an exit code (cli/errors.hpp). main()
// calls it with the file system; tests and fuzz targets call it in-process
// with inputs held in memory.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/input/sources.hpp"

namespace warpsim::cli {

// The longest single argument accepted (a path is at most 4096 bytes on Linux).
inline constexpr std::size_t kMaxArgumentChars = 4096;

// `args` are the arguments after the program's name. Never throws: bad input
// is exit 2 with a message on `err`, an unexpected exception exit 3.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const InputSource& inputs);

}  // namespace warpsim::cli
