#include "stats/goodness_of_fit.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "stats/input_checks.hpp"
#include "stats/monte_carlo.hpp"
#include "stats/pooling.hpp"
#include "stats/power.hpp"

namespace warpsim::stats {

namespace {

enum class Statistic { Pearson, G };

// The statistic of pooled counts: one function for the observed counts and
// the simulated ones, so that a Monte Carlo p-value compares like with like.
double statistic(Statistic kind, std::span<const double> observed, std::span<const double> expected) {
  double s = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double o_i = observed[i], e_i = expected[i];
    if (kind == Statistic::Pearson) {
      s += (o_i - e_i) * (o_i - e_i) / e_i;
    } else if (o_i > 0) {
      s += o_i * std::log(o_i / e_i);
    }
  }
  return kind == Statistic::G ? 2 * s : s;
}

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
  // Steps 1-2 of the pooling; the cells decide whether the null is simulated,
  // and the chi-square limit alone needs step 3 (stats/pooling.hpp).
  PooledCounts pc = pool_small_expected(observed, probabilities, o.min_expected, false);
  const auto cells = static_cast<double>(pc.expected.size());
  std::uint64_t replicates = replicates_to_resolve(o.alpha);
  const bool fits = cells * static_cast<double>(replicates) <= o.max_monte_carlo_work;
  if (o.method == PValueMethod::MonteCarlo && !fits) {
    throw std::invalid_argument("a Monte Carlo p-value here would take more than " + number_text(o.max_monte_carlo_work) + " binomial draws");
  }
  bool simulate = o.method == PValueMethod::MonteCarlo || (o.method == PValueMethod::Auto && fits);
  if (!simulate) {
    PooledCounts topped = pool_small_expected(observed, probabilities, o.min_expected, true);
    if (o.method == PValueMethod::Auto && kind == Statistic::G && !topped.expected.empty()) {
      // G's limit is biased by about df / (6 E): at 65,536 cells of 15 draws
      // it rejected 669 of 1,000 correct samples at 0.05 (Pearson's, whose
      // mean is exact, 49). It is trusted where every cell expects at least
      // sqrt(df) draws; elsewhere the p-value is simulated with the
      // replicates that fit the work limit, if they can resolve alpha.
      const double smallest = *std::min_element(topped.expected.begin(), topped.expected.end());
      if (smallest < std::max(o.min_expected, std::sqrt(static_cast<double>(topped.expected.size()) - 1))) {
        replicates = static_cast<std::uint64_t>(o.max_monte_carlo_work / cells);
        if (static_cast<double>(replicates) < std::ceil(2 / o.alpha)) {
          throw std::invalid_argument("the G-test of " + std::to_string(pc.expected.size()) + " cells has no valid p-value within " +
                                      number_text(o.max_monte_carlo_work) + " binomial draws at alpha " + number_text(o.alpha) +
                                      " (its chi-square limit is biased where cells expect few draws): use the chi-square test");
        }
        simulate = true;
      }
    }
    if (!simulate) pc = std::move(topped);
  }
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
  const double s = statistic(kind, pc.observed, pc.expected);
  r.statistic = s;
  if (simulate) {
    const MultinomialSampler null(pc.expected);
    std::vector<double> counts(pc.expected.size());
    const auto total = static_cast<std::uint64_t>(n);
    const auto mc = sequential_p_value(
        s, [&](std::mt19937_64& rng) {
          null.draw(rng, total, counts);
          return statistic(kind, counts, pc.expected);
        },
        {.max_replicates = replicates, .stop_after = 10, .seed = o.seed.value_or(seed_from_counts(observed, 1))});
    r.p_value = mc.p_value;
    r.p_value_method = "Monte Carlo, " + std::to_string(mc.replicates) + " samples";
    r.p_value_standard_error = std::sqrt(mc.p_value * (1 - mc.p_value) / static_cast<double>(mc.replicates));
    r.notes.push_back("Monte Carlo p-value: " + std::to_string(mc.replicates) + " simulated samples of the pooled cells, " +
                      std::to_string(mc.exceedances) + " as extreme" + (mc.stopped_early ? " (stopped there, Besag-Clifford)" : ""));
  } else {
    r.p_value = chi_square_p_value(df, s);
    r.p_value_method = "chi-square limit";
    r.notes.push_back(o.method == PValueMethod::Asymptotic
                          ? "p-value from the chi-square limit"
                          : "p-value from the chi-square limit: simulating " + std::to_string(pc.expected.size()) + " cells " +
                                std::to_string(replicates) + " times would pass the work limit");
  }
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
