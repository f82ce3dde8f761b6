#include "stats/goodness_of_fit.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "stats/input_checks.hpp"
#include "stats/pooling.hpp"
#include "stats/power.hpp"

namespace warpsim::stats {

namespace {

enum class Statistic { Pearson, G };

TestResult gof(Statistic kind, std::span<const double> observed, std::span<const double> probabilities,
               const GofOptions& o) {
  const double n = check_counts(observed);
  check_probabilities(probabilities);
  check_alpha(o.alpha);
  if (observed.size() != probabilities.size()) {
    throw std::invalid_argument("observed counts (" + std::to_string(observed.size()) + ") and probabilities (" +
                                std::to_string(probabilities.size()) + ") differ in length");
  }
  TestResult r;
  r.test = kind == Statistic::Pearson ? "chi-square" : "g-test";
  r.alpha = o.alpha;
  r.sample_size = static_cast<std::size_t>(n);
  const PooledCounts pc = pool_small_expected(observed, probabilities, o.min_expected);
  if (pc.pooled_categories) {
    r.notes.push_back(pooling_note(pc.pooled_categories, o.min_expected));
  }
  if (pc.dropped_zero_probability) {
    r.notes.push_back(std::to_string(pc.dropped_zero_probability) + " categories of probability 0 left out");
  }
  const double df = static_cast<double>(pc.observed.size()) - 1;
  r.df = df;
  std::vector<double> tested_p(pc.expected.size());
  for (std::size_t i = 0; i < tested_p.size(); ++i) tested_p[i] = pc.expected[i] / n;
  r.detectable = chi_square_detectable(tested_p, n, df, o.alpha, o.power);
  if (pc.observed_in_impossible > 0) {
    r.statistic = std::numeric_limits<double>::infinity();
    r.p_value = 0;
    r.reject = true;
    r.notes.push_back(std::to_string(pc.observed_in_impossible) +
                      " observations fall in categories of probability 0: impossible under the null");
    return r;
  }
  if (df < 1) {
    r.statistic = 0;
    r.p_value = 1;
    r.notes.push_back("fewer than two categories left after pooling: nothing to test");
    return r;
  }
  double s = 0;
  for (std::size_t i = 0; i < pc.observed.size(); ++i) {
    const double o_i = pc.observed[i], e_i = pc.expected[i];
    if (kind == Statistic::Pearson) {
      s += (o_i - e_i) * (o_i - e_i) / e_i;
    } else if (o_i > 0) {
      s += o_i * std::log(o_i / e_i);
    }
  }
  if (kind == Statistic::G) s *= 2;
  r.statistic = s;
  r.p_value = chi_square_p_value(df, s);
  r.reject = r.p_value <= o.alpha;
  return r;
}

}  // namespace

TestResult chi_square_test(std::span<const double> observed, std::span<const double> probabilities, const GofOptions& o) {
  return gof(Statistic::Pearson, observed, probabilities, o);
}

TestResult g_test(std::span<const double> observed, std::span<const double> probabilities, const GofOptions& o) {
  return gof(Statistic::G, observed, probabilities, o);
}

}  // namespace warpsim::stats
