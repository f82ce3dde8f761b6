// The per-row tests (stats/row_laws.hpp): the PIT is exactly uniform under
// the null at any size (so its tests reject at their level), the rows'
// summed chi-square is calibrated at tiny expected counts, and both see a
// row drawn from its neighbour's law.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sampling.hpp"
#include "stats/stats.hpp"

using namespace warpsim::stats;
using warpsim::stats_testing::binomial_interval;
using warpsim::stats_testing::kReps;

namespace {

// M rows of K categories: softmax of N(0, sigma^2) logits, a few at -30 (tiny).
std::vector<RowLaw> rows(std::mt19937_64& rng, int m, int k, double sigma) {
  std::normal_distribution<double> z(0, sigma);
  std::vector<RowLaw> out;
  for (int r = 0; r < m; ++r) {
    std::vector<double> w(static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i) w[static_cast<std::size_t>(i)] = std::exp(i % 7 == 3 ? -30.0 : z(rng));
    out.emplace_back(w);
  }
  return out;
}

}  // namespace

TEST(RowLaws, TheLawsOrdersAndInverse) {
  const RowLaw law(std::vector<double>{1, 0, 3, 4});
  EXPECT_DOUBLE_EQ(law.p(2), 0.375);
  EXPECT_DOUBLE_EQ(law.before_index(2), 0.125);
  EXPECT_DOUBLE_EQ(law.before_heavier(3), 0.0);  // the heaviest first
  EXPECT_DOUBLE_EQ(law.before_heavier(2), 0.5);
  EXPECT_DOUBLE_EQ(law.before_heavier(0), 0.875);
  EXPECT_EQ(law.inverse(0.0), 0u);
  EXPECT_EQ(law.inverse(0.124), 0u);
  EXPECT_EQ(law.inverse(0.125), 2u);  // category 1 has width 0
  EXPECT_EQ(law.inverse(0.99999999), 3u);
  EXPECT_EQ(RowLaw(std::vector<double>{1, 0}).inverse(std::nextafter(1.0, 0.0)), 0u);
}

TEST(RowLaws, PitRejectsCorrectDrawsAtItsLevel) {
  // One draw a row from 300 rows of 50 categories (a seventh of them tiny):
  // both orders' PITs in 20 bins, 1000 repetitions at 0.05.
  std::mt19937_64 rng(21);
  const auto laws = rows(rng, 300, 50, 2.0);
  int by_index = 0, by_heaviest = 0;
  std::uniform_real_distribution<double> u(0, 1);
  for (int rep = 0; rep < kReps; ++rep) {
    PitHistogram h(20);
    for (const auto& law : laws) h.add(law, law.inverse(u(rng)), u(rng));
    by_index += pit_uniformity_test(h.counts(PitOrder::Index), 0.05).reject;
    by_heaviest += pit_uniformity_test(h.counts(PitOrder::Heaviest), 0.05).reject;
  }
  // an exact test of a discrete statistic: at most its level
  EXPECT_LE(by_index, binomial_interval(kReps, 0.05).hi);
  EXPECT_LE(by_heaviest, binomial_interval(kReps, 0.05).hi);
  EXPECT_GT(by_index + by_heaviest, 0);
}

TEST(RowLaws, RowsChiSquareIsCalibratedAtTinyExpectedCounts) {
  // 20 rows of 30 categories, 3 draws a row: a tenth of a draw a category.
  std::mt19937_64 rng(22);
  const auto laws = rows(rng, 20, 30, 1.0);
  std::uniform_real_distribution<double> u(0, 1);
  int rejected = 0;
  for (int rep = 0; rep < kReps; ++rep) {
    std::vector<RowCounts> counts(laws.size());
    for (std::size_t r = 0; r < laws.size(); ++r) {
      std::vector<double> c(laws[r].size(), 0.0);
      for (int d = 0; d < 3; ++d) c[laws[r].inverse(u(rng))] += 1;
      for (std::size_t i = 0; i < c.size(); ++i)
        if (c[i] > 0) counts[r].drawn.emplace_back(static_cast<std::uint32_t>(i), c[i]);
    }
    rejected += rows_chi_square_test(laws, counts, 0.05).reject;
  }
  const auto iv = binomial_interval(kReps, 0.05);
  EXPECT_GE(rejected, iv.lo);
  EXPECT_LE(rejected, iv.hi);
}

TEST(RowLaws, ARowDrawnFromItsNeighboursLawFails) {
  // 200 rows of 40 categories, each row drawn from the next row's law.
  std::mt19937_64 rng(23);
  const auto laws = rows(rng, 201, 40, 2.0);
  std::uniform_real_distribution<double> u(0, 1);
  PitHistogram one(100);
  std::vector<RowCounts> counts(200);
  for (std::size_t r = 0; r < 200; ++r) {
    one.add(laws[r], laws[r + 1].inverse(u(rng)), u(rng));
    std::vector<double> c(40, 0.0);
    for (int d = 0; d < 4; ++d) c[laws[r + 1].inverse(u(rng))] += 1;
    for (std::uint32_t i = 0; i < 40; ++i)
      if (c[i] > 0) counts[r].drawn.emplace_back(i, c[i]);
  }
  EXPECT_TRUE(pit_uniformity_test(one.counts(PitOrder::Heaviest), 0.001).reject);
  EXPECT_TRUE(rows_chi_square_test(std::span<const RowLaw>(laws).first(200), counts, 0.001).reject);
}

TEST(RowLaws, RowsIndependenceSeesASharedUniformAndPassesIndependentRows) {
  std::mt19937_64 rng(24);
  const auto laws = rows(rng, 400, 64, 2.0);
  std::uniform_real_distribution<double> u(0, 1);
  int rejected = 0;
  for (int rep = 0; rep < 200; ++rep) {
    std::vector<double> d;
    for (std::size_t r = 0; r + 1 < laws.size(); r += 2) {
      const double a = randomised_pit(laws[r], laws[r].inverse(u(rng)), u(rng), PitOrder::Index);
      const double b = randomised_pit(laws[r + 1], laws[r + 1].inverse(u(rng)), u(rng), PitOrder::Index);
      d.push_back((a - b) * (a - b));
    }
    rejected += rows_independence_test(d, 0.05).reject;
  }
  EXPECT_LE(rejected, warpsim::stats_testing::binomial_interval(200, 0.05).hi);
  // both rows of a pair drawn with one uniform: a seed shared
  std::vector<double> d;
  for (std::size_t r = 0; r + 1 < laws.size(); r += 2) {
    const double w = u(rng);
    const double a = randomised_pit(laws[r], laws[r].inverse(w), u(rng), PitOrder::Index);
    const double b = randomised_pit(laws[r + 1], laws[r + 1].inverse(w), u(rng), PitOrder::Index);
    d.push_back((a - b) * (a - b));
  }
  EXPECT_TRUE(rows_independence_test(d, 0.001).reject);
}

TEST(RowLaws, RowsIndependenceDetectsTheShiftItSaysAPassRulesOut) {
  // Pairs whose mean squared PIT difference is off 1/6 by 1.1 times the
  // stated shift (a fraction q of the pairs sharing a uniform: d = 0) are
  // rejected in at least 90% of runs.
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(0, 1);
  constexpr int kPairs = 1000, kRuns = 40;
  const double alpha = 0.01;
  auto pairs = [&](double q) {
    std::vector<double> d(kPairs);
    for (auto& x : d) {
      const double a = u(rng), b = u(rng);
      x = u(rng) < q ? 0.0 : (a - b) * (a - b);
    }
    return d;
  };
  const auto stated = rows_independence_test(pairs(0), alpha).detectable.mean_shift;
  ASSERT_TRUE(stated.has_value());
  EXPECT_NEAR(*stated, (2.5758 + 1.2816) * std::sqrt(7.0 / 180.0 / kPairs), 1e-4);
  int rejected = 0;
  for (int run = 0; run < kRuns; ++run) rejected += rows_independence_test(pairs(6 * 1.1 * *stated), alpha).reject;
  EXPECT_GE(rejected, binomial_interval(kRuns, 0.9).lo);
}

TEST(RowLaws, RowsScoreStatesItsShiftFromTheScoresOwnSpread) {
  // The stated shift is (z_{1-alpha/2} + z_0.9) sd(T) / N: the sd of T =
  // sum log p_r(x_r) over correct draws, measured, agrees with it.
  std::mt19937_64 rng(32);
  const auto laws = rows(rng, 300, 40, 2.0);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<RowCounts> counts(laws.size());
  std::vector<double> t;
  for (int rep = 0; rep < 600; ++rep) {
    double sum = 0;
    for (std::size_t r = 0; r < laws.size(); ++r) {
      const auto x = laws[r].inverse(u(rng));
      sum += std::log(laws[r].p(x));
      counts[r].drawn = {{static_cast<std::uint32_t>(x), 1.0}};
    }
    t.push_back(sum);
  }
  double mean = 0, var = 0;
  for (double x : t) mean += x / static_cast<double>(t.size());
  for (double x : t) var += (x - mean) * (x - mean) / static_cast<double>(t.size() - 1);
  const auto r = rows_score_test(laws, counts, 0.001);
  ASSERT_TRUE(r.detectable.mean_shift.has_value());
  const double stated_sd = *r.detectable.mean_shift * static_cast<double>(laws.size()) / (3.2905 + 1.2816);
  EXPECT_NEAR(std::sqrt(var) / stated_sd, 1.0, 0.1) << std::sqrt(var) << " against " << stated_sd;
}

TEST(RowLaws, RowsBinomialIsConservativeAndSeesOneCellFarOff) {
  std::mt19937_64 rng(25);
  const auto laws = rows(rng, 50, 10, 1.5);
  std::uniform_real_distribution<double> u(0, 1);
  auto counts_of = [&](int s) {
    std::vector<RowCounts> counts(laws.size());
    for (std::size_t r = 0; r < laws.size(); ++r) {
      std::vector<double> c(laws[r].size(), 0.0);
      for (int d = 0; d < s; ++d) c[laws[r].inverse(u(rng))] += 1;
      for (std::size_t i = 0; i < c.size(); ++i)
        if (c[i] > 0) counts[r].drawn.emplace_back(static_cast<std::uint32_t>(i), c[i]);
    }
    return counts;
  };
  int rejected = 0;
  for (int rep = 0; rep < kReps; ++rep) rejected += rows_binomial_test(laws, counts_of(20), 0.05).reject;
  EXPECT_LE(rejected, binomial_interval(kReps, 0.05).hi);  // exact tests, Bonferroni: at most the level
  // one row's tiny category (probability e^-30 of the row) drawn once in 20
  auto counts = counts_of(20);
  auto& row = counts[7].drawn;
  row[0].second -= 1;
  if (row[0].second == 0) row.erase(row.begin());
  row.emplace_back(3u, 1.0);  // category 3 is one of the tiny ones (i % 7 == 3)
  std::vector<RowCell> worst;
  const auto t = rows_binomial_test(laws, counts, 0.001, &worst);
  EXPECT_TRUE(t.reject);
  ASSERT_FALSE(worst.empty());
  EXPECT_EQ(worst[0].row, 7u);
  EXPECT_EQ(worst[0].category, 3u);
}

TEST(TwoLevel, OneCellIsNothingToTest) {
  // a law of one category: one cell, every batch's chi-square 0
  const std::vector<double> counts(20, 50.0), p{1.0};
  const auto r = two_level_test(counts, 20, p);
  EXPECT_EQ(r.cells, 1);
  EXPECT_FALSE(r.summary.reject);
}
