// Exact binomial tests per category, with multiple-testing control, and the
// combination of many p-values into one verdict (a warp draws from thousands
// of distributions at once and each deserves one).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "stats/test_result.hpp"

namespace warpsim::stats {

// Two-sided exact binomial test of k successes in n trials against p: the
// probability of every outcome no more likely than k (the definition SciPy's
// binomtest uses, with its relative tolerance 1e-7 for "no more likely").
double binomial_two_sided_p_value(std::uint64_t k, std::uint64_t n, double p);

// The counts k in [lo, hi] whose two-sided p-value exceeds `level`: the test
// accepts exactly those (the p-value falls as k moves away from the mean on
// either side). For deciding many samples at one level without a p-value each
// (the calibration harness).
struct BinomialAcceptance {
  std::uint64_t lo = 0, hi = 0;
};
BinomialAcceptance binomial_acceptance(std::uint64_t n, double p, double level);

// Adjusted p-values (same order as the input).
std::vector<double> holm_adjust(std::span<const double> p_values);
std::vector<double> benjamini_hochberg_adjust(std::span<const double> p_values);

enum class Correction { Holm, BenjaminiHochberg };

struct CategoryVerdicts {
  std::vector<double> p_values;   // raw, per category
  std::vector<double> adjusted;   // after the correction
  std::vector<std::size_t> rejected;  // categories whose adjusted p-value <= alpha
  TestResult summary;             // smallest adjusted p-value as the overall p-value
};

// One exact binomial test per category (count in category i vs all others).
CategoryVerdicts per_category_binomial(std::span<const double> observed, std::span<const double> probabilities,
                                       double alpha = 0.05, Correction correction = Correction::Holm,
                                       double power = 0.9);

// Combining independent p-values: Fisher (-2 sum ln p ~ chi-square(2k)) and
// Stouffer (sum Phi^-1(1 - p) / sqrt(k) ~ N(0, 1), one-sided).
TestResult fisher_combination(std::span<const double> p_values, double alpha = 0.05);
TestResult stouffer_combination(std::span<const double> p_values, double alpha = 0.05);

// The second level of two-level testing (TestU01, NIST SP 800-22): the
// p-values of many independent runs should be uniform on [0, 1]. Pearson
// chi-square on `bins` equal bins (10 by default, as NIST does), its p-value
// exact (the bins' counts are multinomial; a dynamic program over the bins)
// where that takes at most 5e7 steps (e.g. 20 p-values in 4 bins, 40 in 10),
// else a Monte Carlo one. The p-values must be continuous and uniform under
// the null: p-values of discrete statistics are not (they pile up at 1 and
// on a grid), and this test rejects them at any sample size. Make them so
// first: stats/two_level.hpp does, with randomised Monte Carlo p-values.
TestResult p_value_uniformity(std::span<const double> p_values, double alpha = 0.05, int bins = 10);

}  // namespace warpsim::stats
