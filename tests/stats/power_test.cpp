// Each test catches biased samplers at the rate its power statement predicts.
#include <gtest/gtest.h>

#include <random>

#include "sampling.hpp"
#include "stats/stats.hpp"

using namespace warpsim::stats;
using warpsim::stats_testing::binomial_interval;
using warpsim::stats_testing::kReps;
using warpsim::stats_testing::multinomial;

namespace {

std::vector<double> uniform(int k) { return std::vector<double>(static_cast<std::size_t>(k), 1.0 / k); }

// The least detectable alternative at total-variation distance delta: mass
// delta moves from half the categories to the other half in proportion to p
// (Cauchy-Schwarz is tight there), so lambda = 4 n delta^2 exactly.
std::vector<double> worst_case_alternative(std::vector<double> p, double delta) {
  const std::size_t k = p.size();
  for (std::size_t i = 0; i < k; ++i) p[i] *= (i < k / 2 ? 1 + 2 * delta : 1 - 2 * delta);
  return p;
}

}  // namespace

TEST(Power, ChiSquareDetectsTheStatedTotalVariationAtTheStatedRate) {
  const int k = 10;
  const std::uint64_t n = 4000;
  const auto p = uniform(k);
  const auto probe = chi_square_test(std::vector<double>(k, static_cast<double>(n) / k), p);
  const double delta = *probe.detectable.total_variation;
  const auto q = worst_case_alternative(p, delta);
  std::mt19937_64 rng(21);
  int r = 0;
  for (int rep = 0; rep < kReps; ++rep) r += chi_square_test(multinomial(rng, n, q), p).reject;
  const auto iv = binomial_interval(kReps, probe.detectable.power);
  EXPECT_GE(r, iv.lo) << "delta " << delta;
  EXPECT_LE(r, iv.hi) << "delta " << delta;
}

TEST(Power, ChiSquareDetectsTheStatedSingleCategoryError) {
  const int k = 8;
  const std::uint64_t n = 5000;
  const auto p = uniform(k);
  const auto probe = chi_square_test(std::vector<double>(k, static_cast<double>(n) / k), p);
  const double e = *probe.detectable.max_relative_error;  // all categories alike here
  std::vector<double> q = p;
  q[0] *= 1 + e;
  for (int i = 1; i < k; ++i) q[static_cast<std::size_t>(i)] *= 1 - e * p[0] / (1 - p[0]);
  std::mt19937_64 rng(22);
  int r = 0;
  for (int rep = 0; rep < kReps; ++rep) r += chi_square_test(multinomial(rng, n, q), p).reject;
  const auto iv = binomial_interval(kReps, 0.9);
  EXPECT_GE(r, iv.lo) << "relative error " << e;
  EXPECT_LE(r, iv.hi) << "relative error " << e;
}

TEST(Power, GTestMatchesThePearsonPowerStatement) {
  const int k = 10;
  const std::uint64_t n = 4000;
  const auto p = uniform(k);
  const auto probe = g_test(std::vector<double>(k, static_cast<double>(n) / k), p);
  const double delta = *probe.detectable.total_variation;
  const auto q = worst_case_alternative(p, delta);
  std::mt19937_64 rng(23);
  int r = 0;
  for (int rep = 0; rep < kReps; ++rep) r += g_test(multinomial(rng, n, q), p).reject;
  const auto iv = binomial_interval(kReps, 0.9);
  EXPECT_GE(r, iv.lo);
  EXPECT_LE(r, iv.hi);
}

TEST(Power, DiscreteKsDetectsAtLeastTheStatedKolmogorovDistance) {
  // The DKW statement is a finite-sample guarantee: at least the stated power.
  const int k = 10;
  const std::uint64_t n = 800;
  const auto p = uniform(k);
  const auto probe = ks_discrete_test(std::vector<double>(k, static_cast<double>(n) / k), p);
  const double delta = *probe.detectable.kolmogorov_distance;
  std::vector<double> q = p;  // shift mass delta from the last category to the first
  q[0] += delta;
  q[static_cast<std::size_t>(k - 1)] -= delta;
  ASSERT_GT(q[static_cast<std::size_t>(k - 1)], 0);
  std::mt19937_64 rng(24);
  int r = 0;
  for (int rep = 0; rep < 300; ++rep) r += ks_discrete_test(multinomial(rng, n, q), p).reject;
  EXPECT_GE(r, binomial_interval(300, 0.9).lo);
}

TEST(Power, SampleSizeForAGivenBias) {
  // Draws needed for total variation 0.01 with 31 degrees of freedom, and the
  // round trip through the detectable-bias statement.
  const double n = sample_size_for_total_variation(31, 0.05, 0.9, 0.01);
  EXPECT_GT(n, 10000);
  std::vector<double> p(32, 1.0 / 32);
  const auto d = chi_square_detectable(p, n, 31, 0.05, 0.9);
  EXPECT_NEAR(*d.total_variation, 0.01, 1e-4);
  EXPECT_NEAR(chi_square_power(31, 0.05, 4 * n * 0.01 * 0.01), 0.9, 1e-3);
}
