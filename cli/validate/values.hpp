// Way in 4: a file of values drawn from a continuous law (a normal, gamma or
// exponential kernel's output), against the law the user names.
//
//   values  the draws: .npy float32/float64 (any shape, read in order) or
//           text, one or more numbers a line
//   law     NAME:PARAMETERS (stats/continuous_law.hpp: uniform, normal,
//           exponential, gamma, beta, truncated-normal)
//
// Checks: every value finite (a NaN or infinity is the sampler's failure,
// exit 1, with its index); every value in the law's support; then the
// one-sample Kolmogorov-Smirnov and Anderson-Darling tests, each at alpha / 2
// (Bonferroni: the report's false-positive rate is at most alpha). KS states
// the Kolmogorov distance a pass rules out; Anderson-Darling weighs the
// tails, where a sampler's shortcuts (24-bit uniforms, a Ziggurat's tail)
// show first. Values rounded to fp32 tie where the law has none: the report
// says how many.
#pragma once

#include <cstdint>
#include <string>

#include "cli/input/sources.hpp"
#include "cli/validate/progress.hpp"
#include "cli/validate/report.hpp"

namespace warpsim::cli::validate {

struct ValuesOptions {
  std::string values;
  std::string law;
  double alpha = 1e-3;
};

// The most values one file may hold (they are held in memory and sorted).
inline constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 28;

// Throws UsageError for anything malformed (nothing is reported then).
Report check_values(const InputSource& inputs, const ValuesOptions& options, Progress& progress);

}  // namespace warpsim::cli::validate
