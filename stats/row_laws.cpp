#include "stats/row_laws.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "stats/binomial.hpp"
#include "stats/input_checks.hpp"
#include "stats/ks_discrete.hpp"
#include "stats/monte_carlo.hpp"

namespace warpsim::stats {

RowLaw::RowLaw(std::span<const double> w) : p_(w.size()), before_index_(w.size()), before_heavier_(w.size()) {
  const long double total = checked_weights_total(w, "a row's weights");
  long double run = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    p_[i] = static_cast<double>(w[i] / total);
    before_index_[i] = static_cast<double>(run);
    run += w[i] / total;
  }
  std::vector<std::uint32_t> order(w.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return w[a] > w[b]; });
  run = 0;
  for (auto i : order) {
    before_heavier_[i] = static_cast<double>(run);
    run += w[i] / total;
  }
}

std::size_t RowLaw::inverse(double u) const {
  auto i = static_cast<std::size_t>(std::upper_bound(before_index_.begin(), before_index_.end(), u) - before_index_.begin());
  i = i == 0 ? 0 : i - 1;
  while (p_[i] == 0 && i > 0) --i;  // a category of width 0 holds nothing (rounding at the top)
  return i;
}

double randomised_pit(const RowLaw& law, std::size_t x, double v, PitOrder order) {
  const double before = order == PitOrder::Index ? law.before_index(x) : law.before_heavier(x);
  return std::clamp(before + v * law.p(x), 0.0, std::nextafter(1.0, 0.0));
}

PitHistogram::PitHistogram(int bins) {
  if (bins < 2) throw std::invalid_argument("a PIT histogram needs at least 2 bins");
  index_.assign(static_cast<std::size_t>(bins), 0.0);
  heaviest_.assign(static_cast<std::size_t>(bins), 0.0);
}

void PitHistogram::add(const RowLaw& law, std::size_t x, double v) {
  const double b = static_cast<double>(index_.size());
  const auto bin = [&](double u) { return std::min(index_.size() - 1, static_cast<std::size_t>(u * b)); };
  index_[bin(randomised_pit(law, x, v, PitOrder::Index))] += 1;
  heaviest_[bin(randomised_pit(law, x, v, PitOrder::Heaviest))] += 1;
  ++draws_;
}

TestResult pit_uniformity_test(std::span<const double> bin_counts, double alpha) {
  const std::vector<double> equal(bin_counts.size(), 1.0 / static_cast<double>(bin_counts.size()));
  KsOptions o;
  o.alpha = alpha;
  TestResult r = ks_discrete_test(bin_counts, equal, o);
  r.test = "pit-uniformity";
  return r;
}

namespace {

// z with P(Z > z) = q for a standard normal Z.
double normal_upper_quantile(double q) {
  return boost::math::quantile(boost::math::complement(boost::math::normal_distribution<double>(), q));
}

// One row's part of the summed chi-square: sum over its drawn categories of
// O^2 / (S p) - S, the categories in increasing order (one function for the
// observed and the simulated, so that they compare like with like).
enum class RowStatistic { ChiSquare, Score };

double row_statistic(RowStatistic kind, const RowLaw& law, std::span<const std::pair<std::uint32_t, double>> sorted, double s) {
  double t = 0;
  for (const auto& [i, c] : sorted) {
    if (law.p(i) == 0) return std::numeric_limits<double>::infinity();
    t += kind == RowStatistic::ChiSquare ? c * c / (s * law.p(i)) : c * std::log(law.p(i));
  }
  return kind == RowStatistic::ChiSquare ? t - s : t;
}

}  // namespace

namespace {

// The rows' chi-square or score, its null simulated from the rows' laws.
TestResult rows_simulated_test(RowStatistic kind, std::span<const RowLaw> laws, std::span<const RowCounts> counts, double alpha,
                               std::optional<std::uint64_t> seed, double max_work) {
  check_alpha(alpha);
  if (laws.size() != counts.size()) throw std::invalid_argument("rows' chi-square: laws and counts differ in length");
  TestResult r;
  r.test = kind == RowStatistic::ChiSquare ? "rows-chi-square" : "rows-score";
  r.alpha = alpha;
  struct Row {
    std::size_t row;
    std::vector<std::pair<std::uint32_t, double>> sorted;
    double s;
  };
  std::vector<Row> rows;  // the rows with draws
  std::vector<double> fingerprint;
  double df = 0, draws = 0;
  const double most_draws = max_work * alpha / 2;  // 2 / alpha replicates of them fit max_work
  std::size_t left_out = 0;
  for (std::size_t row = 0; row < laws.size(); ++row) {
    if (counts[row].drawn.empty()) continue;
    double in_row = 0;
    for (const auto& d : counts[row].drawn) in_row += d.second;
    if (!rows.empty() && draws + in_row > most_draws) {
      ++left_out;
      continue;
    }
    auto sorted = counts[row].drawn;
    std::sort(sorted.begin(), sorted.end());
    double total = 0;
    for (const auto& [i, c] : sorted) {
      if (i >= laws[row].size()) throw std::invalid_argument("rows' chi-square: row " + std::to_string(row) + " counts a category past its law");
      if (!(c >= 1) || c != std::floor(c)) throw std::invalid_argument("rows' chi-square: counts must be whole and positive");
      total += c;
      fingerprint.push_back(static_cast<double>(i));
      fingerprint.push_back(c);
    }
    std::size_t positive = 0;
    for (std::size_t i = 0; i < laws[row].size(); ++i) positive += laws[row].p(i) > 0;
    df += static_cast<double>(positive) - 1;
    draws += total;
    rows.push_back({row, std::move(sorted), total});
  }
  r.sample_size = static_cast<std::size_t>(draws);
  if (kind == RowStatistic::ChiSquare) r.df = df;
  if (left_out) {
    r.notes.push_back("the first " + std::to_string(rows.size()) + " rows with draws judged (" + number_text(draws) + " draws; " +
                      std::to_string(left_out) + " more left out: their simulation would pass the work limit)");
  }
  if (rows.empty() || df < 1) {
    r.notes.push_back("no row with two categories of positive probability: nothing to test");
    return r;
  }
  // the score's expectation: sum over the rows of S_r sum_i p_i log p_i
  // and its variance, sum of S_r Var_r(log p(X)): the scale of the power
  // statement
  double expected = 0, variance = 0;
  if (kind == RowStatistic::Score) {
    for (const auto& row : rows) {
      double mu = 0, second = 0;
      for (std::size_t i = 0; i < laws[row.row].size(); ++i) {
        const double p = laws[row.row].p(i);
        if (p > 0) mu += p * std::log(p), second += p * std::log(p) * std::log(p);
      }
      expected += row.s * mu;
      variance += row.s * std::max(0.0, second - mu * mu);
    }
  }
  const auto finish = [&](double total) { return kind == RowStatistic::ChiSquare ? total : std::abs(total - expected); };
  double t = 0;
  for (const auto& row : rows) t += row_statistic(kind, laws[row.row], row.sorted, row.s);
  t = finish(t);
  r.statistic = t;
  if (std::isinf(t)) {
    r.p_value = 0;
    r.reject = true;
    r.p_value_method = "exact";
    r.notes.push_back("a draw of a category of probability 0: impossible under the null");
    return r;
  }
  const auto affordable = static_cast<std::uint64_t>(max_work / draws);
  const auto at_least = static_cast<std::uint64_t>(std::ceil(2 / alpha));
  const std::uint64_t replicates = std::min(replicates_to_resolve(alpha), std::max(affordable, at_least));
  std::vector<std::pair<std::uint32_t, double>> drawn;
  std::vector<std::uint32_t> idx;
  const auto mc = sequential_p_value(
      t,
      [&](std::mt19937_64& rng) {
        double total = 0;
        for (const auto& row : rows) {
          const auto& law = laws[row.row];
          idx.resize(static_cast<std::size_t>(row.s));
          for (auto& x : idx) x = static_cast<std::uint32_t>(law.inverse(unit_uniform(rng)));
          std::sort(idx.begin(), idx.end());
          drawn.clear();
          for (std::size_t a = 0; a < idx.size();) {
            std::size_t b = a;
            while (b < idx.size() && idx[b] == idx[a]) ++b;
            drawn.emplace_back(idx[a], static_cast<double>(b - a));
            a = b;
          }
          total += row_statistic(kind, law, drawn, row.s);
        }
        return finish(total);
      },
      {.max_replicates = replicates, .stop_after = 10, .seed = seed.value_or(seed_from_counts(fingerprint, 4))});
  r.p_value = mc.p_value;
  r.p_value_method = "Monte Carlo, " + std::to_string(mc.replicates) + " samples";
  r.p_value_standard_error = std::sqrt(mc.p_value * (1 - mc.p_value) / static_cast<double>(mc.replicates));
  r.reject = r.p_value <= alpha;
  if (kind == RowStatistic::Score) {
    // two-sided at alpha, power 0.9: a mean shifted by (z_{1-alpha/2} + z_0.9) sd
    r.detectable.mean_shift = (normal_upper_quantile(alpha / 2) + normal_upper_quantile(0.1)) * std::sqrt(variance) / draws;
    r.detectable.basis = "the score's normal limit: draws whose mean log-probability under their rows is off its expectation by at least this (nats a draw)";
  } else {
    r.detectable.basis = "no power statement: its power against faults is measured in docs/validate.md";
  }
  return r;
}

}  // namespace

TestResult rows_chi_square_test(std::span<const RowLaw> laws, std::span<const RowCounts> counts, double alpha, std::optional<std::uint64_t> seed,
                                double max_work) {
  return rows_simulated_test(RowStatistic::ChiSquare, laws, counts, alpha, seed, max_work);
}

TestResult rows_score_test(std::span<const RowLaw> laws, std::span<const RowCounts> counts, double alpha, std::optional<std::uint64_t> seed,
                           double max_work) {
  return rows_simulated_test(RowStatistic::Score, laws, counts, alpha, seed, max_work);
}

TestResult rows_binomial_test(std::span<const RowLaw> laws, std::span<const RowCounts> counts, double alpha, std::vector<RowCell>* worst,
                              std::size_t keep) {
  check_alpha(alpha);
  if (laws.size() != counts.size()) throw std::invalid_argument("rows' binomial tests: laws and counts differ in length");
  TestResult r;
  r.test = "rows-binomial";
  r.alpha = alpha;
  r.p_value_method = "exact";
  double cells = 0, draws = 0;
  for (std::size_t row = 0; row < laws.size(); ++row) {
    if (counts[row].drawn.empty()) continue;
    cells += static_cast<double>(laws[row].size());
    for (const auto& d : counts[row].drawn) draws += d.second;
  }
  r.sample_size = static_cast<std::size_t>(draws);
  if (cells == 0) {
    r.notes.push_back("no row with draws: nothing to test");
    return r;
  }
  // A cell's p-value is at least its own pmf: where that exceeds the
  // Bonferroni level the cell cannot reject, and is not computed.
  const double level = alpha / cells, log_level = std::log(level);
  std::vector<RowCell> found;
  double smallest = 1;
  std::size_t computed = 0;
  std::vector<double> count_of;
  for (std::size_t row = 0; row < laws.size(); ++row) {
    if (counts[row].drawn.empty()) continue;
    const auto& law = laws[row];
    double s = 0;
    count_of.assign(law.size(), 0.0);
    for (const auto& [i, c] : counts[row].drawn) count_of[i] = c, s += c;
    const double lg_s = std::lgamma(s + 1);
    for (std::size_t i = 0; i < law.size(); ++i) {
      const double p = law.p(i), c = count_of[i];
      double log_pmf;
      if (p == 0) log_pmf = c == 0 ? 0.0 : -INFINITY;
      else if (p >= 1) log_pmf = c == s ? 0.0 : -INFINITY;
      else log_pmf = lg_s - std::lgamma(c + 1) - std::lgamma(s - c + 1) + c * std::log(p) + (s - c) * std::log1p(-p);
      if (log_pmf > log_level + 1e-9) continue;  // cannot reach the level (a margin for the rounding of log-gamma)
      ++computed;
      const double pv = binomial_two_sided_p_value(static_cast<std::uint64_t>(c), static_cast<std::uint64_t>(s), p);
      smallest = std::min(smallest, pv);
      found.push_back({row, static_cast<std::uint32_t>(i), c, s * p, pv});
    }
  }
  std::sort(found.begin(), found.end(), [](const RowCell& a, const RowCell& b) { return a.p_value < b.p_value; });
  if (worst) {
    worst->clear();
    for (const auto& f : found) {
      if (worst->size() >= keep) break;
      if (std::none_of(worst->begin(), worst->end(), [&](const RowCell& w) { return w.row == f.row; })) worst->push_back(f);
    }
  }
  r.statistic = static_cast<double>(std::count_if(found.begin(), found.end(), [&](const RowCell& f) { return f.p_value <= level; }));
  r.p_value = std::min(1.0, smallest * cells);
  r.reject = r.p_value <= alpha;
  r.notes.push_back(number_text(cells) + " cells, " + std::to_string(computed) + " near the level computed; " + number_text(r.statistic) +
                    " rejected at alpha / cells");
  return r;
}

TestResult rows_independence_test(std::span<const double> all, double alpha, std::optional<std::uint64_t> seed, double max_work) {
  check_alpha(alpha);
  TestResult r;
  r.test = "rows-independence";
  r.alpha = alpha;
  const auto most = static_cast<std::size_t>(std::max(1.0, max_work * alpha / 2));
  const std::span<const double> d = all.first(std::min(all.size(), most));
  if (d.size() < all.size()) {
    r.notes.push_back("the first " + std::to_string(d.size()) + " of " + std::to_string(all.size()) +
                      " pairs judged: more would pass the simulation's work limit");
  }
  r.sample_size = d.size();
  if (d.empty()) {
    r.notes.push_back("no pair of rows: nothing to test");
    return r;
  }
  const auto n = static_cast<double>(d.size());
  const auto statistic = [&](auto&& next) {
    double sum = 0;  // in order, the same way for the observed and the simulated
    for (std::size_t i = 0; i < d.size(); ++i) sum += next(i);
    return std::abs(sum / n - 1.0 / 6.0);
  };
  r.statistic = statistic([&](std::size_t i) { return d[i]; });
  const auto mc = sequential_p_value(
      r.statistic,
      [&](std::mt19937_64& rng) {
        return statistic([&](std::size_t) {
          const double a = unit_uniform(rng), b = unit_uniform(rng);
          return (a - b) * (a - b);
        });
      },
      {.max_replicates = std::min(replicates_to_resolve(alpha),
                                  std::max(static_cast<std::uint64_t>(std::ceil(2 / alpha)), static_cast<std::uint64_t>(max_work / n))),
       .stop_after = 10,
       .seed = seed.value_or(seed_from_counts(d, 5))});
  r.p_value = mc.p_value;
  r.p_value_method = "Monte Carlo, " + std::to_string(mc.replicates) + " samples";
  r.p_value_standard_error = std::sqrt(mc.p_value * (1 - mc.p_value) / static_cast<double>(mc.replicates));
  r.reject = r.p_value <= alpha;
  r.notes.push_back("mean squared difference of paired rows' PITs " + number_text(std::accumulate(d.begin(), d.end(), 0.0) / n) +
                    " (1/6 when independent)");
  // (U - U')^2 of independent uniforms: mean 1/6, variance 1/15 - 1/36 = 7/180
  r.detectable.mean_shift = (normal_upper_quantile(alpha / 2) + normal_upper_quantile(0.1)) * std::sqrt(7.0 / 180.0 / n);
  r.detectable.basis = "the normal limit of the pairs' mean: a mean squared PIT difference off 1/6 by at least this";
  return r;
}

}  // namespace warpsim::stats
