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

// Two-level testing as TestU01 does it: the p-values of many independent runs
// should be uniform on [0, 1]. Pearson chi-square on `bins` equal bins (as
// NIST SP 800-22 does, 10 bins by default).
TestResult p_value_uniformity(std::span<const double> p_values, double alpha = 0.05, int bins = 10);

}  // namespace warpsim::stats
