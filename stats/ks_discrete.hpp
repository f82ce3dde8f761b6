// Kolmogorov-Smirnov tests for samples of category indices 0..K-1 (a
// discrete law, in index order).
//
// One sample: D = max_i |C_i / n - F_i| over the cumulative counts C_i and the
// null CDF F_i. The continuous-case p-value is conservative for a discrete
// null, so the exact one is computed: P(D >= d) = 1 - P(all i: |C_i - n F_i| <
// n d), by dynamic programming over the cumulative count, category after
// category (C_{i+1} - C_i given C_i is binomial), where the work fits; beyond,
// a sequential Monte-Carlo p-value (stats/monte_carlo.hpp: a few dozen
// replicates where p is large) with its standard error, with at most as many
// replicates as its work limit allows (one binomial draw per category and
// replicate) and at least enough to resolve alpha where that fits; where
// even the fewest replicates do not fit (very many categories), the
// Dvoretzky-Kiefer-Wolfowitz-Massart bound 2 exp(-2 n D^2), a conservative
// p-value for any law. Every path has bounded time and memory.
//
// Two samples: D = max_i |C1_i / n1 - C2_i / n2|. Exact p-value under the
// permutation null, ties included, by a lattice-path dynamic program that
// checks D only at the end of each block of tied values; beyond the work
// limit, the asymptotic Kolmogorov distribution (Boost), which is
// conservative with ties.
#pragma once

#include <cstdint>
#include <span>

#include "stats/test_result.hpp"

namespace warpsim::stats {

double ks_statistic(std::span<const double> observed, std::span<const double> probabilities);

// Exact P(D >= d) for n draws from `probabilities`; empty if the dynamic
// program would take more than `max_work` steps.
std::optional<double> ks_exact_p_value(std::span<const double> probabilities, std::uint64_t n, double d,
                                       double max_work = 2e8);

struct MonteCarloP {
  double p_value;         // (1 + hits) / (1 + replicates)
  double standard_error;  // sqrt(p (1 - p) / replicates)
  std::uint64_t replicates;
};

MonteCarloP ks_monte_carlo_p_value(std::span<const double> probabilities, std::uint64_t n, double d,
                                   std::uint64_t replicates, std::uint64_t seed);

struct KsOptions {
  double alpha = 0.05;
  double power = 0.9;
  double max_exact_work = 2e8;                  // dynamic-program steps
  std::uint64_t monte_carlo_replicates = 10000;  // wanted (more where alpha needs them) ...
  std::uint64_t min_monte_carlo_replicates = 1000;  // ... and the fewest worth running
  double max_monte_carlo_work = 2e7;             // binomial draws
  std::optional<std::uint64_t> seed{};  // the Monte Carlo p-value's (default: from the counts, stats/monte_carlo.hpp)
};

TestResult ks_discrete_test(std::span<const double> observed, std::span<const double> probabilities,
                            const KsOptions& options = {});

// Two samples given as counts per category (same categories, index order).
TestResult ks_two_sample_test(std::span<const double> counts1, std::span<const double> counts2,
                              const KsOptions& options = {});

// Exact two-sample p-value for raw values (ties allowed); empty past the work limit.
std::optional<double> ks_two_sample_exact_p_value(std::span<const double> counts1, std::span<const double> counts2,
                                                  double d, double max_work = 2e8);

// Upper bound on P(D >= d) for n draws from any law (DKW with Massart's constant).
double ks_dkw_p_value_bound(double n, double d);

// Kolmogorov distance detected with the given power by a level-alpha test on
// n draws (finite-sample, Dvoretzky-Kiefer-Wolfowitz with Massart's constant).
double ks_detectable_distance(double n, double alpha, double power);

}  // namespace warpsim::stats
