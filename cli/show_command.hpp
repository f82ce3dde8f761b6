// `warpsim show ALGORITHM`: lane/register layouts step by step.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "cli/errors.hpp"
#include "cli/input/sources.hpp"

namespace CLI {
class App;
}

namespace warpsim::cli {

struct ShowOptions {
  std::string algorithm;            // butterfly | butterfly-search | transpose | prefix | pprime | sum-tree | alias | alias-sample | rejection
  int lanes = 16;                   // W
  std::optional<int> k;             // K (default W)
  std::optional<std::string> variant;  // butterfly views: standard (default) | addsub
  std::string step = "final";       // N | all | final
  std::optional<int> highlight;     // a lane whose cells to mark
  std::string format = "text";      // text | svg | html | json
  std::string weights_file;         // numeric values from a file ...
  std::optional<unsigned> seed;     // ... or from a generator; else symbolic
  std::string colour_when = "auto";  // --color: auto | always | never
  bool colour = false;              // text: each cell on its owner lane's colour (ANSI); resolved from colour_when
  std::optional<std::string> method;  // alias: walker | vose | sweep (default) | psa | psa+
  std::optional<std::size_t> splits;  // alias, psa and psa+: sections
  std::optional<std::size_t> group;   // alias, psa+: greedy group size
  std::optional<std::size_t> section_rows;  // alias-sample: sectioned sampling's section size (absent: the baseline)
  std::optional<std::uint64_t> draws;       // alias-sample, sectioned: the batch's draws
  bool cached = false;                      // rejection: seed 004's pre-cached loop
  std::optional<int> calls;                 // rejection: the warp's calls
};

// Limits, stated in --help: K, and the cells drawn at once (steps x rows x
// lanes), which bounds time and memory (an HTML page of every step of
// `prefix --lanes 64 --k 4096` would be 10^9 cells).
inline constexpr int kShowMaxK = 4096;
inline constexpr int kShowMaxCells = 1 << 20;

// Adds `show` and its options to the command line, writing into `o`.
CLI::App* add_show_command(CLI::App& app, ShowOptions& o);

// Throws UsageError for options that do not fit together or input it refuses.
int run_show(const ShowOptions& options, std::ostream& out, const InputSource& inputs);

}  // namespace warpsim::cli
