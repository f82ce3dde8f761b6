#include "cli/validate/law.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "stats/input_checks.hpp"
#include "stats/stats.hpp"

namespace warpsim::cli::validate {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "pass";
    case Outcome::Fail: return "fail";
    case Outcome::Skipped: return "skipped";
  }
  return "?";
}

LawCounter::LawCounter(std::uint64_t categories, bool two_level)
    : k_(static_cast<std::size_t>(categories)), two_level_(two_level && categories <= kTwoLevelMaxCategories), counts_(k_, 0.0) {
  if (two_level_) batch_counts_.assign(k_ * kBatches, 0.0);
}

void LawCounter::add_counts(std::span<const std::uint64_t> counts) {
  for (std::size_t i = 0; i < counts.size() && i < k_; ++i) {
    counts_[i] += static_cast<double>(counts[i]);
    draws_ += counts[i];
  }
  two_level_ = false;
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

int law_check_count(bool two_level) { return two_level ? 3 : 2; }

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
  } else {
    s << "nothing (" << d.basis << ")";
  }
  return s.str();
}

}  // namespace

void law_checks(const LawCounter& counter, std::span<const double> p, double alpha, const std::string& label, bool rows_differ,
                Report& report) {
  Law law;
  law.label = label;
  law.draws = counter.draws();
  const auto& counts = counter.counts();
  const std::string n_text = std::to_string(counter.draws()) + " draws over " + std::to_string(p.size()) + " categories";
  const std::string conservative = rows_differ ? " (rows differ: conservative)" : "";

  stats::GofOptions gof;
  gof.alpha = alpha;
  const auto chi = stats::chi_square_test(counts, p, gof);
  report.checks.push_back({"chi_square", chi.reject ? Outcome::Fail : Outcome::Pass,
                           label + ": " + n_text + ", Pearson chi-square p = " + g4(chi.p_value) + " at alpha " + g4(alpha) +
                               conservative + "; " + rules_out(chi),
                           chi});

  law.categories.resize(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) law.categories[i] = {i, counts[i], p[i] * static_cast<double>(counter.draws()), 1, 1, false};
  if (p.size() <= 1'000'000) {
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

  if (counter.two_level()) {
    if (counter.draws() >= 200) {
      law.batches = kBatches;
      for (int b = 0; b < kBatches; ++b) {
        const auto batch = counter.batch(b);
        double total = 0;
        for (double c : batch) total += c;
        law.batch_p_values.push_back(total > 0 ? stats::chi_square_test(batch, p, gof).p_value : 1.0);
      }
      const auto u = stats::p_value_uniformity(law.batch_p_values, alpha, 4);
      report.checks.push_back({"two_level", u.reject ? Outcome::Fail : Outcome::Pass,
                               label + ": the chi-square p-values of " + std::to_string(kBatches) +
                                   " interleaved batches against the uniform law (4 bins), p = " + g4(u.p_value),
                               u});
    } else {
      report.checks.push_back({"two_level", Outcome::Skipped, label + ": fewer than 200 draws", std::nullopt});
    }
  } else if (rows_differ) {
    report.checks.push_back({"two_level", Outcome::Skipped, label + ": the rows differ, so the batches have different laws", std::nullopt});
  }
  report.laws.push_back(std::move(law));
}

}  // namespace warpsim::cli::validate
