#include "cli/validate/law.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "stats/input_checks.hpp"
#include "stats/stats.hpp"

namespace warpsim::cli::validate {

namespace {

// Binomial draws a chi-square's simulated null may take (cells x replicates):
// where a sampler fails every replicate runs, about 6 s of one core (a
// correct sampler's run stops after a few dozen replicates).
constexpr double kMonteCarloWork = 1e8;

}  // namespace

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "pass";
    case Outcome::Fail: return "fail";
    case Outcome::Skipped: return "skipped";
  }
  return "?";
}

LawCounter::LawCounter(std::uint64_t categories) { d_.counts.assign(static_cast<std::size_t>(categories), 0.0); }

LawCounter::LawCounter(std::span<const double> probabilities) : LawCounter(probabilities.size()) {
  d_.batched = true;
  d_.cell_of = stats::group_in_index_order(probabilities, kTwoLevelCells);
  d_.cells = d_.cell_of.empty() ? 0 : static_cast<int>(d_.cell_of.back()) + 1;
  d_.batch_counts.assign(static_cast<std::size_t>(kBatches) * static_cast<std::size_t>(d_.cells), 0.0);
}

void LawCounter::add_counts(std::span<const std::uint64_t> counts) {
  for (std::size_t i = 0; i < counts.size() && i < d_.counts.size(); ++i) {
    d_.counts[i] += static_cast<double>(counts[i]);
    d_.draws += counts[i];
  }
  d_.batched = false;
  d_.batch_counts.clear();
}

void LawCounter::add_batched_counts(std::span<const std::uint64_t> counts, std::span<const std::uint64_t> batch_counts) {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < counts.size() && i < d_.counts.size(); ++i) {
    d_.counts[i] += static_cast<double>(counts[i]);
    n += counts[i];
  }
  for (std::size_t i = 0; i < batch_counts.size() && i < d_.batch_counts.size(); ++i) d_.batch_counts[i] += static_cast<double>(batch_counts[i]);
  d_.draws += n;
  batch_ = (batch_ + n) % kBatches;
}

std::vector<double> probabilities_of(std::span<const double> weights) {
  long double total = 0;
  for (double w : weights) total += w;
  std::vector<double> p(weights.size());
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) sum += p[i] = static_cast<double>(static_cast<long double>(weights[i]) / total);
  for (double& x : p) x /= sum;
  return p;
}

int law_check_count(bool batched) { return batched ? 4 : 3; }

namespace {

// Four significant digits in prose; the exact values are in the JSON's tests.
std::string g4(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string rules_out(const stats::TestResult& r) {
  std::ostringstream s;
  const auto& d = r.detectable;
  s << "a pass rules out, with power " << d.power << ", ";
  if (d.total_variation && d.max_relative_error) {
    s << "any bias of total-variation distance >= " << g4(*d.total_variation) << " and a relative error >= " << g4(*d.max_relative_error)
      << " in any one category";
  } else if (d.total_variation) {
    s << "any bias of total-variation distance >= " << g4(*d.total_variation);
  } else if (d.kolmogorov_distance) {
    s << "any law whose CDF (in index order) is >= " << g4(*d.kolmogorov_distance) << " from this one's";
  } else {
    s << "nothing (" << d.basis << ")";
  }
  return s.str();
}

// "p = 0.31 (exact)": the p-value and how it was found.
std::string p_text(const stats::TestResult& r) {
  return "p = " + g4(r.p_value) + (r.p_value_method.empty() ? "" : " (" + r.p_value_method + ")");
}

Outcome verdict(const stats::TestResult& r) { return r.reject ? Outcome::Fail : Outcome::Pass; }

}  // namespace

void law_checks(const LawCounts& counter, std::span<const double> p, const LawCheckOptions& o, Report& report) {
  const double alpha = o.alpha_each;
  const std::string& label = o.label;
  Law law;
  law.label = label;
  law.draws = counter.draws;
  const auto& counts = counter.counts;
  const std::string n_text = std::to_string(counter.draws) + " draws over " + std::to_string(p.size()) + " categories";
  const std::string conservative = o.rows_differ ? " (rows differ: conservative)" : "";
  std::size_t positive = 0;
  for (double v : p) positive += v > 0;

  // The chi-square's p-value is always simulated (valid at any expected
  // count). Its work is cells x replicates: past kMonteCarloWork, categories
  // are grouped in index order into as many cells as the work allows (the
  // binomial and KS checks still see each category).
  stats::GofOptions gof;
  gof.alpha = alpha;
  gof.seed = o.seed;
  gof.method = stats::PValueMethod::MonteCarlo;
  gof.max_monte_carlo_work = kMonteCarloWork;
  const auto max_cells = static_cast<std::size_t>(kMonteCarloWork / static_cast<double>(stats::replicates_to_resolve(alpha)));
  std::vector<double> grouped_counts, grouped_p;
  std::string grouped;
  if (positive > max_cells) {
    const auto group = stats::group_in_index_order(p, static_cast<int>(max_cells - 1));
    grouped_counts.assign(group.back() + 1, 0.0);
    grouped_p.assign(group.back() + 1, 0.0);
    for (std::size_t i = 0; i < p.size(); ++i) {
      grouped_counts[group[i]] += counts[i];
      grouped_p[group[i]] += p[i];
    }
    grouped = " over " + std::to_string(grouped_p.size()) + " groups of neighbouring categories (the simulation's limit)";
  }
  const auto chi = grouped.empty() ? stats::chi_square_test(counts, p, gof) : stats::chi_square_test(grouped_counts, grouped_p, gof);
  if (chi.df && *chi.df < 1 && !chi.reject) {
    report.checks.push_back({"chi_square", Outcome::Skipped,
                             label + ": " + n_text + "; " +
                                 (positive < 2 ? "one category of positive probability" : "every category expects fewer than 5 draws, so all pool into one cell") +
                                 ": nothing to test",
                             chi});
  } else {
    report.checks.push_back({"chi_square", verdict(chi),
                             label + ": " + n_text + ", Pearson chi-square" + grouped + " " + p_text(chi) + " at alpha " + g4(alpha) +
                                 conservative + "; " + rules_out(chi),
                             chi});
  }

  law.categories.resize(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) law.categories[i] = {i, counts[i], p[i] * static_cast<double>(counter.draws), 1, 1, false};
  if (!o.binomial) {
  } else if (p.size() <= 1'000'000) {
    const auto bin = stats::per_category_binomial(counts, p, alpha, stats::Correction::Holm);
    for (std::size_t i = 0; i < p.size(); ++i) {
      law.categories[i].p_raw = bin.p_values[i];
      law.categories[i].p_adjusted = bin.adjusted[i];
    }
    for (auto c : bin.rejected) law.categories[c].rejected = true;
    std::string detail = label + ": an exact binomial test per category, Holm-adjusted; smallest adjusted p = " +
                         g4(bin.summary.p_value) + conservative;
    if (!bin.rejected.empty()) {
      const auto& c = law.categories[bin.rejected.front()];
      detail += "; " + std::to_string(bin.rejected.size()) + " categories rejected, first " + std::to_string(c.index) + ": observed " +
                g4(c.observed) + ", expected " + g4(c.expected);
    }
    report.checks.push_back({"per_category_binomial", bin.rejected.empty() ? Outcome::Pass : Outcome::Fail, detail, bin.summary});
  } else {
    report.checks.push_back({"per_category_binomial", Outcome::Skipped, label + ": more than 10^6 categories", std::nullopt});
  }

  if (!o.ks) {
  } else if (positive < 2) {
    report.checks.push_back({"ks_discrete", Outcome::Skipped, label + ": one category of positive probability: nothing to test", std::nullopt});
  } else {
    stats::KsOptions ks;
    ks.alpha = alpha;
    ks.seed = o.seed;
    const auto d = stats::ks_discrete_test(counts, p, ks);
    report.checks.push_back({"ks_discrete", verdict(d),
                             label + ": Kolmogorov-Smirnov in index order, D = " + g4(d.statistic) + ", " + p_text(d) +
                                 conservative + "; " + rules_out(d),
                             d});
  }

  if (counter.batched) {
    if (counter.draws < 10 * kBatches) {
      report.checks.push_back({"two_level", Outcome::Skipped, label + ": fewer than 200 draws (10 a batch)", std::nullopt});
    } else {
      std::vector<double> cell_p(static_cast<std::size_t>(counter.cells), 0.0);
      for (std::size_t i = 0; i < p.size(); ++i) cell_p[counter.cell_of[i]] += p[i];
      stats::TwoLevelOptions t;
      t.alpha = alpha;
      t.seed = o.seed;
      const auto two = stats::two_level_test(counter.batch_counts, kBatches, cell_p, t);
      if (two.cells < 2 || two.nearly_fixed) {
        report.checks.push_back({"two_level", Outcome::Skipped, label + ": " + two.summary.notes.front(), two.summary});
      } else {
        law.batches = kBatches;
        law.batch_p_values = two.batch_p_values;
        report.checks.push_back({"two_level", verdict(two.summary),
                                 label + ": " + std::to_string(kBatches) + " interleaved batches, each batch's chi-square over " + std::to_string(two.cells) +
                                     " cells (randomised Monte Carlo p-values), against the uniform law in 4 bins: " + p_text(two.summary),
                                 two.summary});
      }
    }
  } else if (o.rows_differ) {
    report.checks.push_back({"two_level", Outcome::Skipped, label + ": the rows differ, so the batches have different laws", std::nullopt});
  } else {
    report.checks.push_back({"two_level", Outcome::Skipped, label + ": counted on the GPU, where the draws' order is not kept", std::nullopt});
  }
  report.laws.push_back(std::move(law));
}

}  // namespace warpsim::cli::validate
