// A CLI11 check for a real-valued option in a closed range: NaN and
// infinities refused, and the range named the same way in --help and in the
// message, each bound in its shortest form. (CLI::Range lets NaN through
// and prints its bounds with %f: "Value 1e-13 not in range 0.000000 to
// 1.000000" for a range of [1e-12, 1 - 1e-12].)
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <string>

#include "stats/input_checks.hpp"  // number_text

namespace warpsim::cli {

// lo_text / hi_text: how the bounds are written (default: their shortest form).
inline CLI::Validator real_range(double lo, double hi, std::string lo_text = {}, std::string hi_text = {}) {
  if (lo_text.empty()) lo_text = stats::number_text(lo);
  if (hi_text.empty()) hi_text = stats::number_text(hi);
  const std::string range = "[" + lo_text + ", " + hi_text + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& input) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(input, v)) return "'" + input + "' is not a number; it must lie in " + range;
        if (std::isnan(v)) return "must be a number in " + range + ", got nan";
        if (!(v >= lo && v <= hi)) return "must lie in " + range + ", got " + stats::number_text(v);
        return {};
      },
      "REAL in " + range);
}

}  // namespace warpsim::cli
