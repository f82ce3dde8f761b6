// `warpsim validate`: tell a kernel author whether a sampler is right, from a
// file of draws, a plugin, a built-in, or the seeded-bug catalogue
// (cli/validate/: files.hpp, samplers.hpp, plugin.hpp; docs/validate.md).
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "cli/input/sources.hpp"
#include "cli/validate/values.hpp"

namespace CLI {
class App;
}

namespace warpsim::cli {

struct ValidateOptions {
  std::string weights, row_seeds;
  // --draws D...: one file, or several read as one (shards, in order); --uniforms likewise
  std::vector<std::string> draws, uniforms;
  // --logits and the sampling that makes each row's law (instead of --weights)
  std::string logits;
  std::optional<std::string> logit_type;
  std::optional<float> temperature, top_p, min_p;
  std::optional<std::int64_t> top_k;
  std::string values, law;    // a continuous law's draws and the law
  std::optional<std::string> rounded_to;  // --values: the precision they were rounded to
  validate::ClampOptions clamp;           // --clamp-low, --clamp-high
  std::string plugin, sampler;
  std::string builtin;
  bool mutants = false;
  std::string only;           // --mutants: one mutant
  std::string on = "auto";    // built-ins and mutants: gpu | oracle | auto
  bool list = false;
  std::string format = "text";
  double alpha = 1e-3;
  std::optional<double> target_tv;
  std::optional<std::uint64_t> draws_count;
  // Empty where not given (the defaults below), so that a way in that does not
  // use one can refuse it.
  std::optional<int> tests;            // 100
  std::optional<std::uint64_t> seed;   // 1
  std::optional<int> max_rows;         // 70
  std::optional<int> max_cols;         // 150
  std::optional<std::string> dtype;
  std::optional<std::string> counterexample;  // warpsim-counterexample.txt
  std::string progress = "auto";  // auto | always | never
  bool adds_in_order = false;
  int row_draws = 0;  // --row-draws S (0: not given)
  std::optional<double> time_limit;  // --time-limit: a plugin's worker's seconds
};

// A plugin's worker's time limit where --time-limit is not given (seconds).
inline constexpr double kDefaultTimeLimit = 600;

CLI::App* add_validate_command(CLI::App& app, ValidateOptions& o);

// 0 consistent, 1 inconsistent; throws UsageError for bad input or usage.
// `progress`: where the progress line goes (null: nowhere).
int run_validate(const ValidateOptions& o, std::ostream& out, const InputSource& inputs, std::ostream* progress);

}  // namespace warpsim::cli
