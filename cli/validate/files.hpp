// Way in 1: a file of draws from any sampler (PyTorch, JAX, CuPy, a user's
// CUDA program) against the weights it drew from.
//
//   weights  K weights (one distribution) or an M x K matrix (one per row);
//            or logits with a sampling (temperature, top-k, top-p, min-p):
//            each row's law the token law's (docs/tokens.md)
//   draws    one distribution: S indices, any shape; a matrix: M indices
//            (one a row) or M x S (S a row); text: one row a line
//   uniforms (optional) the u each draw used, shaped as the draws: then each
//            draw is checked against the scalar definition and its rounding
//            bound (properties/checks.hpp, ScalarRow), not only in law
//
// The draws and uniforms stream (constant memory); the weights are held.
// Checks: every index in [0, K); none of weight 0 (both the sampler's
// failure, exit 1, reported with the first such draw); the scalar definition
// (with uniforms); the law (cli/validate/law.hpp); where the rows differ,
// every draw by its own row's law (cli/validate/rows.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/input/sources.hpp"
#include "cli/input/weights.hpp"
#include "oracle/token/token_law.hpp"
#include "cli/validate/progress.hpp"
#include "cli/validate/report.hpp"

namespace warpsim::cli::validate {

struct FileOptions {
  std::string weights;
  // One file, or several read as one in the order given (a sharded dataset's
  // shards, blocks of rows: cli/input/arrays.hpp, open_arrays): the report
  // is the one of a file holding them all.
  std::vector<std::string> draws;
  std::vector<std::string> uniforms;  // empty if none; shards as the draws' may be
  std::optional<std::string> dtype;  // "f32" | "f64": the weights' precision where the file does not say (text, integers)
  double alpha = 1e-3;
  // The sampler adds each row's weights in index order (as the scalar
  // definition does): with uniforms, each draw must equal the definition
  // exactly, not only within its rounding bound.
  bool adds_in_order = false;
  // One seed a row (rows that differ): rows_independent leaves out pairs of
  // equal seeds, which may repeat each other's draws. "" if none.
  std::string row_seeds;
  // Instead of weights: logits and the sampling that makes each row's law.
  std::string logits;
  std::optional<std::string> logit_type;
  oracle::token::Sampling sampling;
};

// The most draws one file may hold.
inline constexpr std::uint64_t kMaxDraws = std::uint64_t{1} << 40;

// Throws UsageError for anything malformed (nothing is reported then).
Report check_files(const InputSource& inputs, const FileOptions& options, Progress& progress);

}  // namespace warpsim::cli::validate
