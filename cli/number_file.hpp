// Numbers from a file (or "-" for standard input): one a line, or separated by
// commas, semicolons or white space. Anything else is an error that names the
// file, line and text.
#pragma once

#include <string>
#include <vector>

namespace warpsim::cli {

std::vector<double> read_numbers(const std::string& path);

}  // namespace warpsim::cli
