#include "cli/validate/values.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cli/errors.hpp"
#include "cli/input/arrays.hpp"
#include "stats/ad_continuous.hpp"
#include "stats/continuous_law.hpp"
#include "stats/ks_continuous.hpp"

namespace warpsim::cli::validate {

namespace {

std::string number(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

}  // namespace

Report check_values(const InputSource& inputs, const ValuesOptions& o, Progress& progress) {
  stats::ContinuousLaw law;
  try {
    law = stats::continuous_law(o.law);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--law: ") + e.what());
  }
  const auto reader = open_array(inputs, o.values, ArrayLimits{kMaxValues});
  const ArrayInfo& info = reader->info();
  if (info.kind == ElementKind::Signed || info.kind == ElementKind::Unsigned) {
    throw UsageError("--values " + info.quoted + " holds integers (" + info.dtype() + "): a continuous law's draws are floats (indices go with --draws)");
  }
  std::vector<double> x;
  std::vector<double> chunk(1 << 16);
  std::vector<std::uint64_t> rows(chunk.size());
  progress.start("values", info.npy && !info.shape.empty() ? std::optional<std::uint64_t>(info.shape[0] * std::max<std::uint64_t>(info.columns, 1)) : std::nullopt);
  std::uint64_t first_bad = 0;
  double bad_value = 0;
  bool bad = false;
  while (const std::size_t n = reader->read(chunk, rows)) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!bad && !std::isfinite(chunk[i])) {
        bad = true;
        first_bad = x.size() + i;
        bad_value = chunk[i];
      }
    }
    x.insert(x.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
    progress.update(x.size());
  }
  progress.finish();
  if (x.empty()) throw UsageError("--values " + info.quoted + " holds no values");

  Report report;
  report.kind = "values";
  report.alpha = o.alpha;
  report.subject = std::to_string(x.size()) + " values in '" + printable(o.values, 200) + "' (" + info.dtype() + ") against the " + law.describe() + " law";
  report.checks.push_back({"finite", bad ? Outcome::Fail : Outcome::Pass,
                           bad ? "value " + std::to_string(first_bad) + " is " + number(bad_value) : "every value is a finite number", std::nullopt});
  if (bad) {
    report.checks.push_back({"in_support", Outcome::Skipped, "not checked: a value is not finite", std::nullopt});
    report.checks.push_back({"kolmogorov_smirnov", Outcome::Skipped, "not run: a value is not finite", std::nullopt});
    report.checks.push_back({"anderson_darling", Outcome::Skipped, "not run: a value is not finite", std::nullopt});
    return report;
  }
  std::uint64_t outside = 0, first_outside = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] < law.lower || x[i] > law.upper) {
      if (outside++ == 0) first_outside = i;
    }
  }
  report.checks.push_back({"in_support", outside ? Outcome::Fail : Outcome::Pass,
                           outside ? std::to_string(outside) + " values outside [" + number(law.lower) + ", " + number(law.upper) + "], the first value " +
                                         std::to_string(first_outside) + " (" + number(x[first_outside]) + ")"
                                   : "every value in [" + number(law.lower) + ", " + number(law.upper) + "]",
                           std::nullopt});
  const double alpha = o.alpha / 2;
  // A value stands for the reals that round to it in the file's precision
  // (text: float64, its digits taken as given).
  const auto stored = info.npy && info.bytes == 4 ? stats::Stored::Float32 : stats::Stored::Float64;
  auto ks = stats::ks_continuous_test(x, law.cdf, {.alpha = alpha, .stored = stored});
  std::sort(x.begin(), x.end());
  std::uint64_t ties = 0;
  for (std::size_t i = 1; i < x.size(); ++i) ties += x[i] == x[i - 1];
  if (ties) {
    report.notes.push_back(std::to_string(ties) + " values equal the one before them (sorted): the law has no ties, so these come from rounding (" + info.dtype() +
                           "), each value standing for the reals that round to it");
  }
  report.checks.push_back({"kolmogorov_smirnov", ks.reject ? Outcome::Fail : Outcome::Pass,
                           "D = " + number(ks.statistic) + ", p = " + number(ks.p_value) + " at alpha / 2 = " + number(alpha) +
                               " (the largest gap between the values' CDF and the law's); a pass rules out a Kolmogorov distance of " +
                               number(*ks.detectable.kolmogorov_distance) + " with power 0.9",
                           ks});
  // Anderson-Darling's weights assume distinct values: a block of ties (a
  // float32 gamma of small shape stores a third of its draws as 0) gives
  // each the weight of its block's end, and A^2 loses its meaning (it can
  // go below 0). Past 1% of values tied, KS, which takes ties as they are,
  // judges alone.
  if (static_cast<double>(ties) > 0.01 * static_cast<double>(x.size())) {
    report.checks.push_back({"anderson_darling", Outcome::Skipped,
                             "not run: " + std::to_string(ties) + " of the values tie (more than 1%); its weights assume distinct values", std::nullopt});
  } else {
    auto ad = stats::ad_continuous_test(x, law.cdf, law.sf, {.alpha = alpha, .stored = stored});
    report.checks.push_back({"anderson_darling", ad.reject ? Outcome::Fail : Outcome::Pass,
                             "A^2 = " + number(ad.statistic) + ", p = " + number(ad.p_value) + " at alpha / 2 = " + number(alpha) +
                                 " (the gap weighted toward the tails)" + (ad.notes.empty() ? "" : "; " + ad.notes.front()),
                             ad});
  }
  return report;
}

}  // namespace warpsim::cli::validate
