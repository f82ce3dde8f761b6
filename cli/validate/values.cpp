#include "cli/validate/values.hpp"

#include <algorithm>
#include <iterator>
#include <utility>
#include <cstring>
#include <optional>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cli/errors.hpp"
#include "cli/input/arrays.hpp"
#include "cli/validate/plugin.hpp"
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

// The checks every way in that has values makes (the header's list).
void judge_values(std::vector<double>& x, const stats::ContinuousLaw& law, stats::Stored stored, const std::string& dtype, double alpha_all, Report& report) {
  const std::uint64_t first_bad = [&] {
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!std::isfinite(x[i])) return static_cast<std::uint64_t>(i);
    return static_cast<std::uint64_t>(x.size());
  }();
  const bool bad = first_bad < x.size();
  const double bad_value = bad ? x[first_bad] : 0;
  report.checks.push_back({"finite", bad ? Outcome::Fail : Outcome::Pass,
                           bad ? "value " + std::to_string(first_bad) + " is " + number(bad_value) : "every value is a finite number", std::nullopt});
  if (bad) {
    report.checks.push_back({"in_support", Outcome::Skipped, "not checked: a value is not finite", std::nullopt});
    report.checks.push_back({"kolmogorov_smirnov", Outcome::Skipped, "not run: a value is not finite", std::nullopt});
    report.checks.push_back({"anderson_darling", Outcome::Skipped, "not run: a value is not finite", std::nullopt});
    return;
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
  const double alpha = alpha_all / 2;
  auto ks = stats::ks_continuous_test(x, law.cdf, {.alpha = alpha, .stored = stored});
  std::sort(x.begin(), x.end());
  std::uint64_t ties = 0;
  for (std::size_t i = 1; i < x.size(); ++i) ties += x[i] == x[i - 1];
  if (ties) {
    report.notes.push_back(std::to_string(ties) + " values equal the one before them (sorted): the law has no ties, so these come from rounding (" + dtype +
                           "), each value standing for the reals that round to it");
  }
  report.checks.push_back({"kolmogorov_smirnov", ks.reject ? Outcome::Fail : Outcome::Pass,
                           "D = " + number(ks.statistic) + ", p = " + number(ks.p_value) + " at alpha / 2 = " + number(alpha) +
                               " (the largest gap between the values' CDF and the law's); a pass rules out a Kolmogorov distance of " +
                               number(*ks.detectable.kolmogorov_distance) + " with power 0.9",
                           ks});
  auto ad = stats::ad_continuous_test(x, law.cdf, law.sf, {.alpha = alpha, .stored = stored});
  report.checks.push_back({"anderson_darling", ad.reject ? Outcome::Fail : Outcome::Pass,
                           "A^2 = " + number(ad.statistic) + ", p = " + number(ad.p_value) + " at alpha / 2 = " + number(alpha) +
                               " (the gap weighted toward the tails)" + (ad.notes.empty() ? "" : "; " + ad.notes.front()),
                           ad});
}

stats::ContinuousLaw law_of(const std::string& spec) {
  try {
    return stats::continuous_law(spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--law: ") + e.what());
  }
}

}  // namespace

Report check_values(const InputSource& inputs, const ValuesOptions& o, Progress& progress) {
  const stats::ContinuousLaw law = law_of(o.law);
  const auto reader = open_array(inputs, o.values, ArrayLimits{kMaxValues});
  const ArrayInfo& info = reader->info();
  if (info.kind == ElementKind::Signed || info.kind == ElementKind::Unsigned) {
    throw UsageError("--values " + info.quoted + " holds integers (" + info.dtype() + "): a continuous law's draws are floats (indices go with --draws)");
  }
  std::vector<double> x;
  std::vector<double> chunk(1 << 16);
  std::vector<std::uint64_t> rows(chunk.size());
  progress.start("values", info.npy && !info.shape.empty() ? std::optional<std::uint64_t>(info.shape[0] * std::max<std::uint64_t>(info.columns, 1)) : std::nullopt);
  while (const std::size_t n = reader->read(chunk, rows)) {
    x.insert(x.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
    progress.update(x.size());
  }
  progress.finish();
  if (x.empty()) throw UsageError("--values " + info.quoted + " holds no values");

  Report report;
  report.kind = "values";
  report.alpha = o.alpha;
  // A value stands for the reals that round to it in the file's precision
  // (text: float64, its digits taken as given), or in --rounded-to's.
  stats::Stored stored = info.npy && info.bytes == 4 ? stats::Stored::Float32 : stats::Stored::Float64;
  std::string precision = info.dtype();
  if (o.rounded_to) {
    constexpr std::pair<const char*, stats::Stored> formats[] = {
        {"bf16", stats::Stored::BFloat16}, {"f16", stats::Stored::Float16}, {"f32", stats::Stored::Float32}, {"f64", stats::Stored::Float64}};
    const auto* f = std::find_if(std::begin(formats), std::end(formats), [&](const auto& g) { return *o.rounded_to == g.first; });
    if (f == std::end(formats)) throw UsageError("--rounded-to: bf16, f16, f32 or f64 (" + printable(*o.rounded_to) + " given)");
    if (stored == stats::Stored::Float32 && f->second == stats::Stored::Float64) {
      throw UsageError("--rounded-to f64: the values in " + info.quoted + " are float32, and carry no more than float32's precision");
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::isfinite(x[i]) && stats::round_to(x[i], f->second) != x[i]) {
        throw UsageError("--rounded-to " + *o.rounded_to + ": value " + std::to_string(i) + " (" + number(x[i]) + ") is not a " + *o.rounded_to +
                         " value; give the precision the sampler rounded its values to");
      }
    }
    stored = f->second;
    precision = *o.rounded_to + " in " + info.dtype();
  }
  report.subject = std::to_string(x.size()) + " values in '" + printable(o.values, 200) + "' (" + precision + ") against the " + law.describe() + " law";
  judge_values(x, law, stored, precision, o.alpha, report);
  return report;
}

Report check_plugin_values(Plugin& plugin, const warpsim_sampler& s, const PluginValuesOptions& o, Progress& progress) {
  const warpsim_sampler_v3& v3 = *plugin.v3_of(s);
  const std::string named = "plugin '" + printable(plugin.path(), 200) + "', sampler '" + s.name + "'";
  const bool f64 = v3.value_dtypes & WARPSIM_DTYPE_BIT(WARPSIM_F64), f32 = v3.value_dtypes & WARPSIM_DTYPE_BIT(WARPSIM_F32);
  if (!f64 && !f32) throw UsageError(named + " writes only bf16 or fp16 values: validate reads fp32 and fp64 values (16-bit ones come later)");
  ValueSource source;
  source.kind = "plugin";
  source.subject = named + " (" + plugin.describe(s) + ")";
  source.law = v3.law;
  source.f64 = f64;
  const warpsim_dtype dtype = f64 ? WARPSIM_F64 : WARPSIM_F32;
  source.draw = [&plugin, &s, dtype](const std::vector<double>& params, std::uint64_t n, std::uint64_t seed, std::uint64_t first) {
    return plugin.draw_values(s, params, n, seed, first, dtype);
  };
  return check_value_source(source, o, progress);
}

Report check_value_source(const ValueSource& src, const PluginValuesOptions& o, Progress& progress) {
  if (o.law.empty()) {
    throw UsageError(src.subject + ": it draws values of the " + src.law + " law: give --law " + src.law + ":PARAMETERS, the parameters to draw with (" +
                     stats::continuous_law_forms() + ")");
  }
  const stats::ContinuousLaw law = law_of(o.law);
  if (law.name != src.law) throw UsageError(src.subject + ": it draws values of the " + src.law + " law, not of " + law.name + " (--law " + o.law + ")");
  if (o.draws < 1 || o.draws > kMaxValues) throw UsageError("--draws-per-law: 1 to " + std::to_string(kMaxValues) + " values");
  const std::string dtype_name = src.f64 ? "float64" : "float32";
  const auto draw = [&](std::uint64_t n, std::uint64_t first) {
    try {
      return src.draw(law.parameters, n, o.seed, first);
    } catch (const std::invalid_argument& e) {
      throw UsageError(src.subject + ": --law " + o.law + ": " + e.what());
    }
  };

  Report report;
  report.kind = src.kind;
  report.alpha = o.alpha;
  report.subject = src.subject + ": " + std::to_string(o.draws) + " " + dtype_name + " values against the " + law.describe() + " law";
  // The properties: the same seed, the same values; a call from first_draw
  // continues the stream.
  constexpr std::uint64_t kProbe = 4096, kFrom = 1000;
  const auto a = draw(kProbe, 0);
  const auto b = draw(kProbe, 0);
  const auto c = draw(kProbe - kFrom, kFrom);
  const auto differs = [](const std::vector<double>& x, const std::vector<double>& y, std::size_t at) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < y.size(); ++i)
      if (std::memcmp(&x[at + i], &y[i], sizeof(double)) != 0) return i;
    return std::nullopt;
  };
  const auto same = differs(a, b, 0);
  report.checks.push_back({"same_seed_same_values", same ? Outcome::Fail : Outcome::Pass,
                           same ? "two calls with seed " + std::to_string(o.seed) + " differ at value " + std::to_string(*same) + ": " + number(a[*same]) + " and " +
                                      number(b[*same])
                                : "two calls of " + std::to_string(kProbe) + " values with one seed agree bit for bit",
                           std::nullopt});
  const auto cont = differs(a, c, kFrom);
  report.checks.push_back({"first_draw_continues_the_stream", cont ? Outcome::Fail : Outcome::Pass,
                           cont ? "values from first_draw " + std::to_string(kFrom) + " are not the stream's: value " + std::to_string(kFrom + *cont) + " is " +
                                      number(c[*cont]) + " there and " + number(a[kFrom + *cont]) + " from 0"
                                : "a call from first_draw " + std::to_string(kFrom) + " gives the stream's values " + std::to_string(kFrom) + " on",
                           std::nullopt});
  // The law: values 0 .. n - 1 of the seed's stream, in calls of 2^22.
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 22;
  std::vector<double> x;
  x.reserve(static_cast<std::size_t>(o.draws));
  progress.start("values", o.draws);
  for (std::uint64_t first = 0; first < o.draws; first += kChunk) {
    const auto part = draw(std::min(kChunk, o.draws - first), first);
    x.insert(x.end(), part.begin(), part.end());
    progress.update(x.size());
  }
  progress.finish();
  judge_values(x, law, src.f64 ? stats::Stored::Float64 : stats::Stored::Float32, dtype_name, o.alpha, report);
  return report;
}

}  // namespace warpsim::cli::validate
