// `warpsim show ALGORITHM`: lane/register layouts step by step.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace warpsim::cli {

struct ShowOptions {
  std::string algorithm;            // butterfly | butterfly-search | transpose | prefix
  int lanes = 16;                   // W
  std::optional<int> k;             // K (default W)
  std::string variant = "standard";  // standard | addsub
  std::string step = "final";       // N | all | final
  std::optional<int> highlight;     // a lane whose cells to mark
  std::string format = "text";      // text | svg | html | json
  std::string weights_file;         // numeric values from a file ...
  std::optional<unsigned> seed;     // ... or from a generator; else symbolic
};

// Thrown for options that are well-formed but do not fit together; the CLI
// turns it into exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int run_show(const ShowOptions& options, std::ostream& out);

}  // namespace warpsim::cli
