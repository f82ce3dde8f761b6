#include "cli/number_file.hpp"

#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/show.hpp"  // UsageError

namespace warpsim::cli {

std::vector<double> read_numbers(const std::string& path) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    file.open(path);
    if (!file) throw UsageError("cannot open '" + path + "'");
    in = &file;
  }
  std::vector<double> out;
  std::string line;
  int line_no = 0;
  while (std::getline(*in, line)) {
    ++line_no;
    for (char& c : line)
      if (c == ',' || c == ';' || c == '\t' || c == '\r') c = ' ';
    std::istringstream ss(line);
    std::string token;
    while (ss >> token) {
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(token, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != token.size()) {
        throw UsageError("'" + path + "', line " + std::to_string(line_no) + ": '" + token + "' is not a number");
      }
      out.push_back(v);
    }
  }
  if (out.empty()) throw UsageError("'" + path + "' holds no numbers");
  return out;
}

}  // namespace warpsim::cli
