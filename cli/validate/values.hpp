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
// five tests of stats/continuous_verdict.hpp, each at alpha / 5
// (Bonferroni: the report's false-positive rate is at most alpha): one-sample
// Kolmogorov-Smirnov (states the Kolmogorov distance a pass rules out),
// Anderson-Darling (weighs the tails, where a sampler's shortcuts -- 24-bit
// uniforms, a Ziggurat's tail -- show first), a chi-square over each decade
// of each tail, the reach of each tail (a region of mass ln(4 / alpha) / n
// left empty fails), and the two-level test of the stream's blocks. Each
// value stands for the reals that round to it in its precision (the file's,
// or --rounded-to's): rounding alone never fails. A clamping sampler's
// clamped values (--clamp-low, --clamp-high) stand for the law's mass beyond
// the clamp, one point mass; without the option, a pile at the least value
// is named in the report with the option that would say so.
// Values tie where the law has none: the report says how many.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>
#include <optional>
#include <string>

#include "cli/input/sources.hpp"
#include "cli/validate/progress.hpp"
#include "cli/validate/report.hpp"
#include "stats/stored.hpp"
#include "warpsim/plugin.h"

namespace warpsim::cli::validate {

// A sampler that clamps its draws: values at --clamp-low stand for every
// draw at or below it (PyTorch's gamma: min-normal, 2^-126 in float32),
// values at --clamp-high for every draw at or above it.
struct ClampOptions {
  std::optional<std::string> low, high;  // a number, or min-normal
};

struct ValuesOptions {
  std::string values;
  std::string law;
  double alpha = 1e-3;
  // The precision the values were rounded to before they were stored, where
  // coarser than the file's (a bf16 kernel's output saved as float32):
  // "bf16", "f16", "f32" or "f64". Every value must be one of that format's.
  std::optional<std::string> rounded_to;
  ClampOptions clamp{};
};

// The most values one file may hold (they are held in memory and sorted).
inline constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 28;

// Throws UsageError for anything malformed (nothing is reported then).
Report check_values(const InputSource& inputs, const ValuesOptions& options, Progress& progress);

// A plugin's sampler of a continuous law (ABI version 3, draw_values),
// against `law` (its name must be the sampler's law): two properties --
// the same seed gives the same values, bit for bit; values from first_draw
// on continue the stream (the values first .. of one call are those of a
// call from 0) -- then n values (default 10^6), drawn in calls of 2^22 from
// the seed's stream, judged as a file's are. In the widest type the sampler
// writes: fp64, else fp32, else bf16, else fp16 (each value standing for the
// reals that round to it there).
struct PluginValuesOptions {
  std::string law;
  std::uint64_t draws = 1000000;
  std::uint64_t seed = 1;
  double alpha = 1e-3;
  ClampOptions clamp{};
};
class Plugin;
Report check_plugin_values(Plugin& plugin, const warpsim_sampler& sampler, const PluginValuesOptions& options, Progress& progress);

// Any sampler of values: the plugin's above, or a built-in's
// (properties/value_samplers.hpp), checked the same way.
struct ValueSource {
  std::string kind;     // "plugin" | "builtin"
  std::string subject;  // what it is, in words
  std::string law;      // the law family its values follow ("gamma")
  stats::Stored stored = stats::Stored::Float64;  // what it writes: Float64, Float32, BFloat16 or Float16
  std::function<std::vector<double>(const std::vector<double>& params, std::uint64_t n, std::uint64_t seed, std::uint64_t first)> draw;
  // A built-in's declared clamp (properties::ValueSampler::clamp_below):
  // judged as --clamp-low at that value where the user gave none.
  std::function<double(const std::vector<double>& params)> clamp_below;
};
Report check_value_source(const ValueSource& source, const PluginValuesOptions& options, Progress& progress);

// The seeded-bug catalogue's samplers of values (properties/value_mutants.hpp):
// each judged at each of its laws until a check fails (killed). The
// unmutated sampler of each family is judged first: UsageError if it fails.
// `only`: that mutant alone (empty: all; a name not among them: none).
std::vector<MutantLine> value_mutant_lines(const std::string& only, std::uint64_t seed, double alpha, Progress& progress);

}  // namespace warpsim::cli::validate
