#include "cli/stats_command.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "cli/input/number_file.hpp"
#include "cli/report_json.hpp"
#include "cli/errors.hpp"
#include "cli/input/real_range.hpp"
#include "stats/input_checks.hpp"
#include "stats/stats.hpp"

namespace warpsim::cli {

namespace {

std::string to_text(const stats::TestResult& r) {
  std::ostringstream s;
  s.precision(6);
  s << r.test << ": statistic " << r.statistic;
  if (r.df) s << ", df " << *r.df;
  s << ", p-value " << r.p_value;
  if (r.p_value_standard_error) s << " (standard error " << *r.p_value_standard_error << ")";
  s << ", n = " << r.sample_size << "\n";
  s << (r.reject ? "REJECTED" : "not rejected") << " at alpha = " << r.alpha << "\n";
  const auto& d = r.detectable;
  s << "a pass rules out, with power " << d.power << ":";
  bool any = false;
  if (d.total_variation) s << (any ? ";" : "") << " any bias of total-variation distance >= " << *d.total_variation, any = true;
  if (d.max_relative_error) s << (any ? ";" : "") << " a relative error >= " << *d.max_relative_error << " in any one category", any = true;
  if (d.kolmogorov_distance) s << (any ? ";" : "") << " any bias of Kolmogorov distance >= " << *d.kolmogorov_distance, any = true;
  if (d.mean_shift) s << (any ? ";" : "") << " a shift of the mean >= " << *d.mean_shift, any = true;
  if (!any) s << " nothing";
  s << "\n  (" << d.basis << ")\n";
  for (const auto& n : r.notes) s << "note: " << n << "\n";
  return s.str();
}

bool one_sample(const std::string& test) { return test != "homogeneity" && test != "ks-two-sample"; }

// Every option given must be one the test uses: an ignored option is a
// mistake the user should hear about.
void check_options_apply(const StatsOptions& o) {
  auto refuse = [&](const std::string& option, const std::string& which) {
    throw UsageError(option + " does not apply to " + o.test + " (it is for " + which + ")");
  };
  if (one_sample(o.test)) {
    if (!o.observed2.empty()) refuse("--observed2", "the two-sample tests homogeneity and ks-two-sample");
  } else {
    if (!o.probabilities.empty()) refuse("--probabilities", "the one-sample tests");
    if (o.normalize) refuse("--normalize", "the one-sample tests, which take --probabilities");
  }
  if (o.correction && o.test != "binomial") refuse("--correction", "binomial");
  if (o.target_tv && o.test != "chi-square" && o.test != "g-test") refuse("--target-tv", "chi-square and g-test");
}

// A count of draws as text: exact while it fits 2^53, else in exponent form.
std::string draws_text(double draws) {
  if (draws <= 9007199254740992.0) return std::to_string(static_cast<std::uint64_t>(draws));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", draws);
  return buf;
}

std::vector<double> probabilities(const StatsOptions& o, const InputSource& inputs, std::size_t expected_size) {
  if (o.probabilities.empty()) throw UsageError("--probabilities FILE is required for " + o.test);
  auto p = read_numbers(inputs, o.probabilities, {.max_count = stats_max_categories(o.test)});
  if (p.size() != expected_size) {
    throw UsageError("--probabilities holds " + std::to_string(p.size()) + " numbers, --observed " +
                     std::to_string(expected_size) + ": they must match");
  }
  double total = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!std::isfinite(p[i]) || p[i] < 0) {
      throw UsageError("probability " + std::to_string(i) + " is " + stats::number_text(p[i]) + ": not finite and non-negative");
    }
    total += p[i];
  }
  if (std::abs(total - 1) > 1e-9) {
    if (!o.normalize) {
      throw UsageError("the probabilities sum to " + stats::number_text(total) + ", not 1; pass --normalize to divide by the sum");
    }
    if (total <= 0) throw UsageError("the probabilities are all zero: nothing to normalise");
    if (!std::isfinite(total)) throw UsageError("the probabilities sum to more than the largest double: nothing to normalise");
    for (auto& x : p) x /= total;
  }
  return p;
}

}  // namespace

std::size_t stats_max_categories(const std::string& test) {
  if (test == "binomial") return 1'000'000;  // an exact two-sided binomial test per category
  return 10'000'000;
}

namespace {

std::string stats_limits() {
  const NumberLimits files;
  return "Limits: counts are whole numbers from 0 to 2^53 and so is each sample's total (two samples: both "
         "together); at most " +
         std::to_string(stats_max_categories("chi-square")) + " categories (binomial: " +
         std::to_string(stats_max_categories("binomial")) + "); an input file holds at most " +
         std::to_string(files.max_bytes) + " bytes and tokens of at most " + std::to_string(files.max_token_chars) +
         " characters. ks-discrete computes the exact p-value where that takes at most 2e8 steps, else a Monte-Carlo "
         "one (1,000 to 10,000 replicates, 2e7 binomial draws at most), else the conservative DKW-Massart bound; "
         "ks-two-sample is exact up to 2e8 steps, else asymptotic.";
}

}  // namespace

CLI::App* add_stats_command(CLI::App& app, StatsOptions& o) {
  auto* stats_cmd = app.add_subcommand("stats", "Test observed category counts against a law, or two samples against each other");
  stats_cmd->footer(stats_limits());
  stats_cmd->add_option("test", o.test, "chi-square | g-test | ks-discrete | binomial | homogeneity | ks-two-sample")
      ->required()
      ->check(CLI::IsMember({"chi-square", "g-test", "ks-discrete", "binomial", "homogeneity", "ks-two-sample"}));
  stats_cmd->add_option("--observed", o.observed, "counts per category (CSV or one a line; - for stdin)")->required();
  stats_cmd->add_option("--probabilities", o.probabilities, "one-sample tests: the law's probabilities, one per category");
  stats_cmd->add_option("--observed2", o.observed2, "two-sample tests: the second sample's counts");
  stats_cmd->add_option("--alpha", o.alpha, "significance level")->check(real_range(1e-12, 1.0 - 1e-12, "", "1 - 1e-12"))->capture_default_str();
  stats_cmd->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  stats_cmd->add_flag("--normalize", o.normalize, "one-sample tests: divide the probabilities by their sum instead of refusing them");
  stats_cmd->add_option("--correction", o.correction, "binomial: multiple-testing correction, holm (default) or bh")
      ->check(CLI::IsMember({"holm", "bh"}));
  stats_cmd->add_option("--target-tv", o.target_tv,
                        "chi-square, g-test: also say how many draws detect this total-variation bias, in (0, 1]");
  return stats_cmd;
}

int run_stats(const StatsOptions& o, std::ostream& out, const InputSource& inputs) {
  check_options_apply(o);
  if (o.observed == "-" && (o.probabilities == "-" || o.observed2 == "-")) {
    throw UsageError("only one input can come from standard input");
  }
  if (o.target_tv && !(*o.target_tv > 0 && *o.target_tv <= 1)) throw UsageError("--target-tv must lie in (0, 1]");
  const NumberLimits limits{.max_count = stats_max_categories(o.test)};
  const auto observed = read_numbers(inputs, o.observed, limits);
  stats::TestResult r;
  std::vector<std::size_t> rejected_categories;
  std::optional<stats::CategoryVerdicts> per_category;
  try {
    if (o.test == "chi-square" || o.test == "g-test") {
      const auto p = probabilities(o, inputs, observed.size());
      stats::GofOptions g;
      g.alpha = o.alpha;
      r = o.test == "chi-square" ? stats::chi_square_test(observed, p, g) : stats::g_test(observed, p, g);
    } else if (o.test == "ks-discrete") {
      const auto p = probabilities(o, inputs, observed.size());
      stats::KsOptions k;
      k.alpha = o.alpha;
      r = stats::ks_discrete_test(observed, p, k);
    } else if (o.test == "binomial") {
      const auto p = probabilities(o, inputs, observed.size());
      auto v = stats::per_category_binomial(observed, p, o.alpha,
                                            o.correction.value_or("holm") == "bh" ? stats::Correction::BenjaminiHochberg : stats::Correction::Holm);
      r = v.summary;
      rejected_categories = v.rejected;
      per_category = std::move(v);
    } else {
      if (o.observed2.empty()) throw UsageError("--observed2 FILE is required for " + o.test);
      const auto second = read_numbers(inputs, o.observed2, limits);
      if (second.size() != observed.size()) throw UsageError("--observed and --observed2 differ in length");
      stats::KsOptions k;
      k.alpha = o.alpha;
      r = o.test == "homogeneity" ? stats::chi_square_homogeneity(observed, second, o.alpha) : stats::ks_two_sample_test(observed, second, k);
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::optional<double> needed;
  if (o.target_tv) {
    if (!r.df || *r.df < 1) throw UsageError("--target-tv needs at least two categories left after pooling");
    try {
      needed = stats::sample_size_for_total_variation(*r.df, o.alpha, r.detectable.power, *o.target_tv);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--target-tv: ") + e.what());
    }
  }
  if (o.format == "json") {
    auto j = to_json(r);
    if (needed) j["sample_size_for_target_tv"] = {{"target_tv", *o.target_tv}, {"draws", *needed}};
    if (o.test == "binomial") {
      j["rejected_categories"] = rejected_categories;
      // Per category: the raw p-value of its own test and the adjusted one.
      nlohmann::json cats = nlohmann::json::array();
      for (std::size_t i = 0; i < per_category->p_values.size(); ++i) {
        cats.push_back({{"index", i}, {"p_raw", per_category->p_values[i]}, {"p_adjusted", per_category->adjusted[i]}});
      }
      j["categories"] = cats;
    }
    out << j.dump(2) << "\n";
  } else {
    out << to_text(r);
    if (needed) {
      out << "draws needed to detect total-variation distance " << *o.target_tv << " with power " << r.detectable.power
          << ": " << draws_text(*needed) << "\n";
    }
    if (!rejected_categories.empty()) {
      out << "rejected categories:";
      for (auto c : rejected_categories) out << ' ' << c;
      out << "\n";
    }
  }
  return r.reject ? 1 : 0;
}

}  // namespace warpsim::cli
