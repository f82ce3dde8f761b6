#include "cli/validate/values.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <numeric>
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
#include "properties/value_mutants.hpp"
#include "stats/continuous_law.hpp"
#include "stats/continuous_verdict.hpp"
#include "stats/tail_test.hpp"

namespace warpsim::cli::validate {

namespace {

std::string number(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

// --clamp-low / --clamp-high: a number, or min-normal (the stored format's
// least normal number: 2^-126 for float32, PyTorch's clamp).
std::optional<double> clamp_value(const std::optional<std::string>& text, const char* option, stats::Stored stored) {
  if (!text) return std::nullopt;
  if (*text == "min-normal") return std::ldexp(1.0, stats::format_of(stored).emin);
  char* end = nullptr;
  const double v = std::strtod(text->c_str(), &end);
  if (text->empty() || end != text->c_str() + text->size() || !std::isfinite(v)) {
    throw UsageError(std::string(option) + ": a finite number or min-normal (" + printable(*text) + " given)");
  }
  return v;
}

stats::Clamp clamp_of(const ClampOptions& c, stats::Stored stored, const stats::ContinuousLaw& law) {
  stats::Clamp clamp;
  if (const auto v = clamp_value(c.low, "--clamp-low", stored)) clamp.below = *v;
  if (const auto v = clamp_value(c.high, "--clamp-high", stored)) clamp.above = *v;
  if (!(clamp.below < clamp.above)) throw UsageError("--clamp-low must lie below --clamp-high");
  if ((c.low && clamp.below < law.lower) || (c.high && clamp.above > law.upper)) {
    throw UsageError("--clamp-low and --clamp-high lie within the law's support [" + number(law.lower) + ", " + number(law.upper) + "]");
  }
  return clamp;
}

// The checks every way in that has values makes (the header's list).
void judge_values(std::vector<double>& x, const stats::ContinuousLaw& law, stats::Stored stored, const stats::Clamp& clamp, const std::string& dtype,
                  double alpha_all, Report& report) {
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
    for (const char* name : {"in_support", "kolmogorov_smirnov", "anderson_darling", "tails", "reach", "two_level"})
      report.checks.push_back({name, Outcome::Skipped, "not run: a value is not finite", std::nullopt});
    return;
  }
  // The law's support, within the clamps where the sampler clamps.
  const double lower = std::max(law.lower, clamp.below), upper = std::min(law.upper, clamp.above);
  const std::string range = "[" + number(lower) + ", " + number(upper) + "]" + (clamp.any() ? " (the law's support within the clamps)" : "");
  std::uint64_t outside = 0, first_outside = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] < lower || x[i] > upper) {
      if (outside++ == 0) first_outside = i;
    }
  }
  report.checks.push_back({"in_support", outside ? Outcome::Fail : Outcome::Pass,
                           outside ? std::to_string(outside) + " values outside " + range + ", the first value " + std::to_string(first_outside) + " (" +
                                         number(x[first_outside]) + ")"
                                   : "every value in " + range,
                           std::nullopt});
  const auto v = stats::judge_continuous(x, law, {.alpha = alpha_all, .stored = stored, .clamp = clamp});
  const std::string each = " at alpha / 5 = " + number(v.alpha_each);
  std::sort(x.begin(), x.end());
  std::uint64_t ties = 0;
  for (std::size_t i = 1; i < x.size(); ++i) ties += x[i] == x[i - 1];
  if (ties) {
    report.notes.push_back(std::to_string(ties) + " values equal the one before them (sorted): the law has no ties, so these come from rounding (" + dtype +
                           ")" + (clamp.any() ? " or the clamp" : "") + ", each value standing for the reals that round to it");
  }
  for (const auto& [mass, side] : {std::pair{v.clamped_below, "below"}, std::pair{v.clamped_above, "above"}}) {
    if (!mass) continue;
    const double n = static_cast<double>(x.size());
    report.notes.push_back(std::string("the clamp ") + side + ": " + std::to_string(mass->count) + " values (" + number(static_cast<double>(mass->count) / n) +
                           ") at " + number(mass->at) + ", each standing for every draw " + side + " it; the law's mass there " + number(mass->law_mass) +
                           " (" + number(mass->law_mass * n) + " values expected); judged as one point mass by the tests");
  }
  // Without a clamp, a pile of equal values at the smallest value where the
  // law has more mass below: the mark of a clamping sampler.
  if (!clamp.any() && (v.ks.reject || v.ad.reject)) {
    std::size_t pile = 1;
    while (pile < x.size() && x[pile] == x[0]) ++pile;
    if (pile >= 10 && pile * 100 >= x.size() && x[0] > law.lower) {
      report.notes.push_back(std::to_string(pile) + " values equal the least, " + number(x[0]) + ", where the law puts " +
                             number(law.cdf(stats::stored_interval(x[0], stored).second)) +
                             " of its mass at or below it: if the sampler raises draws below it to it (a clamp), say --clamp-low " + number(x[0]) +
                             (x[0] == std::ldexp(1.0, stats::format_of(stored).emin) ? " (or min-normal)" : ""));
    }
  }
  report.checks.push_back({"kolmogorov_smirnov", v.ks.reject ? Outcome::Fail : Outcome::Pass,
                           "D = " + number(v.ks.statistic) + ", p = " + number(v.ks.p_value) + each +
                               " (the largest gap between the values' CDF and the law's); a pass rules out a Kolmogorov distance of " +
                               number(*v.ks.detectable.kolmogorov_distance) + " with power 0.9",
                           v.ks});
  report.checks.push_back({"anderson_darling", v.ad.reject ? Outcome::Fail : Outcome::Pass,
                           "A^2 = " + number(v.ad.statistic) + ", p = " + number(v.ad.p_value) + each + " (the gap weighted toward the tails)" +
                               (v.ad.notes.empty() ? "" : "; " + v.ad.notes.front()),
                           v.ad});
  if (v.tails) {
    report.checks.push_back({"tails", v.tails->reject ? Outcome::Fail : Outcome::Pass,
                             "chi-square = " + number(v.tails->statistic) + " on " + number(v.tails->df.value_or(0)) + " df, p = " + number(v.tails->p_value) +
                                 each + " (each decade of each tail's mass, down to " +
                                 number(std::pow(10.0, -stats::tail_decades(x.size()))) + ", against the law's)" +
                                 (v.tails->detectable.max_relative_error ? "; a pass rules out a relative error of " +
                                                                               number(*v.tails->detectable.max_relative_error) + " in any one bin with power 0.9"
                                                                         : ""),
                             *v.tails});
  } else {
    report.checks.push_back({"tails", Outcome::Skipped, "not run: fewer than 50 values fill no tail bin with 5 expected", std::nullopt});
  }
  if (v.reach) {
    report.checks.push_back({"reach", v.reach->reject ? Outcome::Fail : Outcome::Pass,
                             v.reach->notes.front() + ", p = " + number(v.reach->p_value) + each + ": a sampler that never draws below " +
                                 number(*v.lower_edge) + " or never above " + number(*v.upper_edge) + " (the law's tails of mass " + number(*v.reach_tail) +
                                 ") fails with certainty; a tail of less than " + number(*v.invisible_tail) +
                                 " (ln(1 / alpha) / n) no sample of this size can show missing",
                             *v.reach});
  } else {
    report.checks.push_back({"reach", Outcome::Skipped, "not run: too few values for any tail region to be expected to hold one", std::nullopt});
  }
  if (v.two_level) {
    report.checks.push_back({"two_level", v.two_level->reject ? Outcome::Fail : Outcome::Pass,
                             "A^2 = " + number(v.two_level->statistic) + " over the blocks' p-values, p = " + number(v.two_level->p_value) + each + " (" +
                                 v.two_level->notes.front() + "): each block of the stream against the law, so a law that changes along the stream but averages out is seen",
                             *v.two_level});
  } else {
    report.checks.push_back({"two_level", Outcome::Skipped, "not run: fewer than 1,000 values make no 10 blocks of 100", std::nullopt});
  }
}

stats::ContinuousLaw law_of(const std::string& spec) {
  try {
    return stats::continuous_law(spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--law: ") + e.what());
  }
}

}  // namespace

// --law table:FILE: rows "x F(x)" (blank lines and # comments skipped).
stats::ContinuousLaw table_law(const InputSource& inputs, const std::string& path) {
  constexpr std::size_t kMaxRows = 1 << 20;
  const std::string quoted = "'" + printable(path, 200) + "'";
  auto in = inputs.open(path);
  std::vector<double> x, f;
  std::string line;
  for (std::size_t row = 1; std::getline(*in, line); ++row) {
    if (line.size() > 4096) throw UsageError("--law table:" + quoted + ", line " + std::to_string(row) + ": longer than 4096 characters");
    const auto hash = line.find('#');
    std::istringstream fields(line.substr(0, hash));
    std::string a, b, extra;
    if (!(fields >> a)) continue;
    if (!(fields >> b) || (fields >> extra)) throw UsageError("--law table:" + quoted + ", line " + std::to_string(row) + ": two numbers, x and F(x)");
    double v[2];
    for (int k = 0; k < 2; ++k) {
      const std::string& t = k ? b : a;
      char* end = nullptr;
      v[k] = std::strtod(t.c_str(), &end);
      if (end != t.c_str() + t.size()) throw UsageError("--law table:" + quoted + ", line " + std::to_string(row) + ": '" + printable(t, 40) + "' is not a number");
    }
    x.push_back(v[0]);
    f.push_back(v[1]);
    if (x.size() > kMaxRows) throw UsageError("--law table:" + quoted + ": more than 2^20 rows");
  }
  try {
    return stats::tabulated_law(x, f, quoted);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--law table:") + e.what());
  }
}

Report check_values(const InputSource& inputs, const ValuesOptions& o, Progress& progress) {
  const stats::ContinuousLaw law = o.law.rfind("table:", 0) == 0 ? table_law(inputs, o.law.substr(6)) : law_of(o.law);
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
  judge_values(x, law, stored, clamp_of(o.clamp, stored, law), precision, o.alpha, report);
  return report;
}

Report check_plugin_values(Plugin& plugin, const warpsim_sampler& s, const PluginValuesOptions& o, Progress& progress) {
  const warpsim_sampler_v3& v3 = *plugin.v3_of(s);
  const std::string named = "plugin '" + printable(plugin.path(), 200) + "', sampler '" + s.name + "'";
  // the widest type it writes
  constexpr std::pair<warpsim_dtype, stats::Stored> widest[] = {
      {WARPSIM_F64, stats::Stored::Float64}, {WARPSIM_F32, stats::Stored::Float32}, {WARPSIM_BF16, stats::Stored::BFloat16}, {WARPSIM_F16, stats::Stored::Float16}};
  const auto* pick = std::find_if(std::begin(widest), std::end(widest), [&](const auto& w) { return (v3.value_dtypes & WARPSIM_DTYPE_BIT(w.first)) != 0; });
  ValueSource source;
  source.kind = "plugin";
  source.subject = named + " (" + plugin.describe(s) + ")";
  source.law = v3.law;
  source.stored = pick->second;
  const warpsim_dtype dtype = pick->first;
  source.draw = [&plugin, &s, dtype](const std::vector<double>& params, std::uint64_t n, std::uint64_t seed, std::uint64_t first) {
    return plugin.draw_values(s, params, n, seed, first, dtype);
  };
  return check_value_source(source, o, progress);
}

namespace {

// A sampler of Dirichlet vectors (dirichlet:a1,...,aK): each draw sums to 1;
// each component follows its marginal, Beta(a_i, a0 - a_i); and X1 / (X1 +
// X2) follows Beta(a1, a2) (a law of the joint draw the marginals do not
// fix). Each of those laws judged by stats::judge_continuous at alpha / (the
// laws judged).
Report check_dirichlet_source(const ValueSource& src, const PluginValuesOptions& o, Progress& progress) {
  const std::string spec = o.law;
  if (spec.rfind("dirichlet:", 0) != 0) throw UsageError(src.subject + ": it draws Dirichlet vectors: give --law dirichlet:a1,...,aK (2 to 1024 concentrations)");
  std::vector<double> alpha;
  std::stringstream in(spec.substr(10));
  for (std::string piece; std::getline(in, piece, ',');) {
    char* end = nullptr;
    const double v = std::strtod(piece.c_str(), &end);
    if (piece.empty() || end != piece.c_str() + piece.size() || !std::isfinite(v) || !(v > 0)) {
      throw UsageError("--law " + printable(spec, 200) + ": '" + printable(piece, 40) + "' is not a concentration (a finite number > 0)");
    }
    alpha.push_back(v);
  }
  const std::size_t k = alpha.size();
  if (k < 2 || k > 1024) throw UsageError("--law " + printable(spec, 200) + ": 2 to 1024 concentrations");
  if (o.draws < 1 || o.draws * k > kMaxValues) throw UsageError("--draws-per-law: 1 to " + std::to_string(kMaxValues / k) + " vectors of " + std::to_string(k));
  const auto draw = [&](std::uint64_t n, std::uint64_t first) {
    try {
      return src.draw(alpha, n, o.seed, first);
    } catch (const std::invalid_argument& e) {
      throw UsageError(src.subject + ": --law " + printable(spec, 200) + ": " + e.what());
    }
  };
  Report report;
  report.kind = src.kind;
  report.alpha = o.alpha;
  report.subject = src.subject + ": " + std::to_string(o.draws) + " float64 vectors against the Dirichlet law (" + spec.substr(10) + ")";
  constexpr std::uint64_t kProbe = 512, kFrom = 100;
  const auto a = draw(kProbe, 0), b = draw(kProbe, 0), c = draw(kProbe - kFrom, kFrom);
  const bool same = std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  report.checks.push_back({"same_seed_same_values", same ? Outcome::Pass : Outcome::Fail,
                           same ? "two calls of " + std::to_string(kProbe) + " vectors with one seed agree bit for bit" : "two calls with one seed differ", std::nullopt});
  const bool cont = std::memcmp(a.data() + kFrom * k, c.data(), c.size() * sizeof(double)) == 0;
  report.checks.push_back({"first_draw_continues_the_stream", cont ? Outcome::Pass : Outcome::Fail,
                           cont ? "a call from first_draw " + std::to_string(kFrom) + " gives the stream's vectors " + std::to_string(kFrom) + " on"
                                : "vectors from first_draw " + std::to_string(kFrom) + " are not the stream's",
                           std::nullopt});
  std::vector<double> x;
  x.reserve(static_cast<std::size_t>(o.draws * k));
  const std::uint64_t chunk = std::max<std::uint64_t>(1, (std::uint64_t{1} << 22) / k);
  progress.start("vectors", o.draws);
  for (std::uint64_t first = 0; first < o.draws; first += chunk) {
    const auto part = draw(std::min(chunk, o.draws - first), first);
    x.insert(x.end(), part.begin(), part.end());
    progress.update(x.size() / k);
  }
  progress.finish();
  // Each draw's sum: K quotients, each within half an ulp, added in order.
  double worst = 0;
  std::uint64_t worst_at = 0, bad = 0;
  for (std::uint64_t d = 0; d < o.draws; ++d) {
    double sum = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const double v = x[d * k + i];
      if (!std::isfinite(v) || v < 0 || v > 1) ++bad;
      sum += v;
    }
    if (!(std::fabs(sum - 1) <= worst)) worst = std::fabs(sum - 1), worst_at = d;
  }
  const double bound = 2.0 * static_cast<double>(k) * 0x1p-53;
  report.checks.push_back({"in_simplex", bad == 0 && worst <= bound ? Outcome::Pass : Outcome::Fail,
                           bad ? std::to_string(bad) + " components outside [0, 1] or not finite"
                               : "each vector's components in [0, 1], their sum within " + number(worst) + " of 1 (at vector " + std::to_string(worst_at) +
                                     "; the bound K 2^-52 = " + number(bound) + ")",
                           std::nullopt});
  if (bad) return report;
  // The laws: every component's marginal (the first 16), and X1 / (X1 + X2).
  const double a0 = std::accumulate(alpha.begin(), alpha.end(), 0.0);
  const std::size_t judged = std::min<std::size_t>(k, 16);
  const double each = o.alpha / static_cast<double>(judged + 1);
  const auto judge = [&](const std::string& name, const std::vector<double>& values, double p, double q) {
    const auto law = stats::continuous_law("beta:" + number(p) + "," + number(q));
    const auto v = stats::judge_continuous(values, law, {.alpha = each, .stored = stats::Stored::Float64});
    std::string failed;
    for (const auto& [t, r] : {std::pair{"KS", v.ks.reject}, {"Anderson-Darling", v.ad.reject}, {"tails", v.tails && v.tails->reject}, {"reach", v.reach && v.reach->reject},
                                      {"two-level", v.two_level && v.two_level->reject}})
      if (r) failed += (failed.empty() ? "" : ", ") + std::string(t);
    report.checks.push_back({name, v.reject() ? Outcome::Fail : Outcome::Pass,
                             "against " + law.describe() + " at alpha " + number(each) + " (five tests at a fifth each): KS D = " + number(v.ks.statistic) +
                                 " (p " + number(v.ks.p_value) + "), A^2 = " + number(v.ad.statistic) + " (p " + number(v.ad.p_value) + ")" +
                                 (failed.empty() ? "" : "; fails " + failed),
                             v.ks});
  };
  std::vector<double> column(static_cast<std::size_t>(o.draws));
  for (std::size_t i = 0; i < judged; ++i) {
    for (std::uint64_t d = 0; d < o.draws; ++d) column[d] = x[d * k + i];
    judge("marginal " + std::to_string(i), column, alpha[i], a0 - alpha[i]);
  }
  for (std::uint64_t d = 0; d < o.draws; ++d) column[d] = x[d * k] / (x[d * k] + x[d * k + 1]);
  judge("ratio X0 / (X0 + X1)", column, alpha[0], alpha[1]);
  if (judged < k) report.notes.push_back("the marginals of components 16 to " + std::to_string(k - 1) + " are not judged (16 at most)");
  return report;
}

}  // namespace

Report check_value_source(const ValueSource& src, const PluginValuesOptions& o, Progress& progress) {
  if (src.law == "dirichlet") {
    if (o.clamp.low || o.clamp.high) throw UsageError("--clamp-low and --clamp-high: not for Dirichlet vectors");
    return check_dirichlet_source(src, o, progress);
  }
  if (o.law.empty()) {
    throw UsageError(src.subject + ": it draws values of the " + src.law + " law: give --law " + src.law + ":PARAMETERS, the parameters to draw with (" +
                     stats::continuous_law_forms() + ")");
  }
  if (o.law.rfind("table:", 0) == 0) throw UsageError(src.subject + ": a sampler draws with a named law's parameters; a CDF table (--law table:FILE) goes with --values");
  const stats::ContinuousLaw law = law_of(o.law);
  if (law.name != src.law) throw UsageError(src.subject + ": it draws values of the " + src.law + " law, not of " + law.name + " (--law " + o.law + ")");
  if (o.draws < 1 || o.draws > kMaxValues) throw UsageError("--draws-per-law: 1 to " + std::to_string(kMaxValues) + " values");
  const std::string dtype_name = src.stored == stats::Stored::Float64        ? "float64"
                                 : src.stored == stats::Stored::BFloat16 ? "bfloat16"
                                 : src.stored == stats::Stored::Float16  ? "float16"
                                                                         : "float32";
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
  // A continuous law's float64 value is a float32 one with probability about
  // 2^-29: values that all are were computed or kept in float32 somewhere.
  if (src.stored == stats::Stored::Float64 && x.size() >= 64) {
    const bool all_f32 = std::all_of(x.begin(), x.end(), [](double v) { return !std::isfinite(v) || stats::round_to(v, stats::Stored::Float32) == v; });
    report.checks.push_back({"float64_precision", all_f32 ? Outcome::Fail : Outcome::Pass,
                             all_f32 ? "every one of the " + std::to_string(x.size()) +
                                           " float64 values is a float32 value: the sampler computes or keeps its values in float32 before it writes them "
                                           "(a correct float64 sampler's value is one with probability about 2^-29)"
                                     : "the values carry more than float32's 24 bits",
                             std::nullopt});
  }
  const stats::Stored stored = src.stored;
  stats::Clamp clamp = clamp_of(o.clamp, stored, law);
  if (!o.clamp.low && src.clamp_below) clamp.below = src.clamp_below(law.parameters);
  judge_values(x, law, stored, clamp, dtype_name, o.alpha, report);
  return report;
}

}  // namespace warpsim::cli::validate

namespace warpsim::cli::validate {

std::vector<MutantLine> value_mutant_lines(const std::string& only, std::uint64_t seed, double alpha, Progress& progress) {
  const auto source_of = [](const std::string& name, const std::string& law, const properties::ValueSampler& s) {
    ValueSource src;
    src.kind = "mutant";
    src.subject = name;
    src.law = law;
    src.stored = stats::Stored::Float64;
    src.draw = s.draw;
    src.clamp_below = s.clamp_below;
    return src;
  };
  // The unmutated samplers first: a score against a broken base would mean nothing.
  std::vector<std::string> families;
  for (const auto& m : properties::value_mutants())
    if ((only.empty() || only == m.name) && std::find(families.begin(), families.end(), m.law) == families.end()) families.push_back(m.law);
  for (const auto& family : families) {
    const auto& base = properties::value_mutant_base(family);
    for (const auto& law : base.laws) {
      const Report r = check_value_source(source_of(family + " (unmutated)", family, base.sampler), {law, base.draws, seed, alpha, {}}, progress);
      for (const auto& c : r.checks) {
        if (c.outcome == Outcome::Fail) {
          throw UsageError("the unmutated " + family + " sampler fails " + c.name + " at " + law + " (seed " + std::to_string(seed) + "): " + c.detail);
        }
      }
    }
  }
  std::vector<MutantLine> lines;
  for (const auto& m : properties::value_mutants()) {
    if (!only.empty() && only != m.name) continue;
    const auto t0 = std::chrono::steady_clock::now();
    MutantLine line{m.name, "host", m.bug, "", false, 0, ""};
    for (const auto& law : m.laws) {
      const Report r = check_value_source(source_of(m.name, m.law, m.sampler), {law, m.draws, seed, alpha, {}}, progress);
      for (const auto& c : r.checks) {
        if (c.outcome != Outcome::Fail) continue;
        line.killed = true;
        line.property = c.name;
        line.counterexample = "--law " + law + ": " + c.detail;
        break;
      }
      if (line.killed) break;
    }
    line.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    lines.push_back(line);
  }
  return lines;
}

}  // namespace warpsim::cli::validate
