// Bad input gets a clear message, never a number.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "stats/stats.hpp"

using namespace warpsim::stats;

namespace {

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Input, RejectsWhatCannotBeCounts) {
  const std::vector<double> p{0.5, 0.5};
  EXPECT_NE(message_of([&] { chi_square_test(std::vector<double>{1, -1}, p); }).find("entry 1"), std::string::npos);
  EXPECT_NE(message_of([&] { chi_square_test(std::vector<double>{1.5, 2}, p); }).find("whole number"), std::string::npos);
  EXPECT_NE(message_of([&] { chi_square_test(std::vector<double>{0, 0}, p); }).find("all zero"), std::string::npos);
  EXPECT_NE(message_of([&] { chi_square_test(std::vector<double>{}, std::vector<double>{}); }).find("empty"), std::string::npos);
  EXPECT_NE(message_of([&] { chi_square_test(std::vector<double>{NAN, 1}, p); }).find("entry 0"), std::string::npos);
}

TEST(Input, RejectsWhatCannotBeProbabilities) {
  const std::vector<double> o{5, 5};
  EXPECT_NE(message_of([&] { g_test(o, std::vector<double>{0.7, 0.7}); }).find("sum to 1.4"), std::string::npos);
  EXPECT_NE(message_of([&] { g_test(o, std::vector<double>{1.5, -0.5}); }).find("not finite and non-negative"), std::string::npos);
  EXPECT_NE(message_of([&] { g_test(o, std::vector<double>{NAN, 1}); }).find("entry 0"), std::string::npos);
  EXPECT_NE(message_of([&] { g_test(o, std::vector<double>{1.0}); }).find("differ in length"), std::string::npos);
  EXPECT_NE(message_of([&] { chi_square_test(o, std::vector<double>{0.5, 0.5}, {.alpha = 1.5}); }).find("alpha"), std::string::npos);
}

TEST(Input, RejectsWhatCannotBeWeightsOfARowOrAMultinomial) {
  EXPECT_NE(message_of([] { RowLaw(std::vector<double>{1, -1}); }).find("a row's weights: entry 1 (-1)"), std::string::npos);
  EXPECT_NE(message_of([] { RowLaw(std::vector<double>{0, 0}); }).find("sum to 0"), std::string::npos);
  EXPECT_NE(message_of([] { MultinomialSampler(std::vector<double>{INFINITY, 1}); }).find("multinomial: the probabilities: entry 0"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(static_cast<double>(checked_weights_total(std::vector<double>{0.5, 0, 2}, "w")), 2.5);
}

TEST(Input, AnObservationInAnImpossibleCategoryRejectsOutright) {
  const auto r = chi_square_test(std::vector<double>{10, 10, 1}, std::vector<double>{0.5, 0.5, 0.0});
  EXPECT_TRUE(r.reject);
  EXPECT_EQ(r.p_value, 0);
  EXPECT_TRUE(std::isinf(r.statistic));
}

TEST(Input, PoolingIsReportedAndFollowsTheRule) {
  // expected counts 50, 30, 12, 4, 2, 1, 1: the last four (8) are pooled, and
  // the pool (8 >= 5) stands alone.
  const std::vector<double> p{0.50, 0.30, 0.12, 0.04, 0.02, 0.01, 0.01};
  const std::vector<double> o{48, 31, 12, 5, 2, 1, 1};
  const auto pc = pool_small_expected(o, p);
  ASSERT_EQ(pc.expected.size(), 4u);
  EXPECT_NEAR(pc.expected.back(), 8, 1e-9);
  EXPECT_EQ(pc.observed.back(), 9);
  EXPECT_EQ(pc.pooled_categories, 4u);
  const auto r = chi_square_test(o, p);
  EXPECT_EQ(*r.df, 3);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("4 categories"), std::string::npos);
}

TEST(Input, AnUndersizedPoolJoinsTheSmallestCategory) {
  // expected 60, 36, 3, 1: the pool (4) is below 5 and takes the 36.
  const std::vector<double> p{0.60, 0.36, 0.03, 0.01};
  const auto pc = pool_small_expected(std::vector<double>{60, 36, 3, 1}, p);
  ASSERT_EQ(pc.expected.size(), 2u);
  EXPECT_NEAR(pc.expected.back(), 40, 1e-9);
}

TEST(Input, BinomialArguments) {
  EXPECT_THROW(binomial_two_sided_p_value(5, 4, 0.5), std::invalid_argument);
  EXPECT_THROW(binomial_two_sided_p_value(1, 4, 1.5), std::invalid_argument);
  EXPECT_THROW(holm_adjust(std::vector<double>{0.5, 1.5}), std::invalid_argument);
  EXPECT_EQ(binomial_two_sided_p_value(3, 4, 0.0), 0.0);
  EXPECT_EQ(binomial_two_sided_p_value(0, 4, 0.0), 1.0);
}

// The supported range of counts: every count and total in [0, 2^53].
TEST(Input, CountsAndTotalsLieWithin2To53) {
  const std::vector<double> p{0.5, 0.5};
  EXPECT_NO_THROW(chi_square_test(std::vector<double>{kMaxCount / 2, kMaxCount / 2}, p));
  EXPECT_NO_THROW(chi_square_test(std::vector<double>{kMaxCount, 0}, p));
  EXPECT_NE(message_of([&] { chi_square_test(std::vector<double>{kMaxCount, 1}, p); }).find("passes 2^53"), std::string::npos);
  EXPECT_NE(message_of([&] { chi_square_test(std::vector<double>{1e20, 1}, p); }).find("(1e+20)"), std::string::npos);
  // Two samples: the pooled total too.
  const std::vector<double> half{kMaxCount / 2 + 1, 0};
  EXPECT_NE(message_of([&] { ks_two_sample_test(half, half); }).find("more than 2^53"), std::string::npos);
  EXPECT_NE(message_of([&] { chi_square_homogeneity(half, half); }).find("more than 2^53"), std::string::npos);
  EXPECT_NE(message_of([&] { ks_two_sample_exact_p_value(std::vector<double>{1, 1e20}, std::vector<double>{1, 0}, 0.5); })
                .find("passes 2^53"),
            std::string::npos);
}

TEST(Input, KsDiscreteNear2To53FinishesByMonteCarlo) {
  // 2^52 draws in one of two equally likely categories: D = 1/2. The exact
  // program is far past its limit; Monte Carlo with Boost's binomial runs in
  // constant time per draw (libstdc++'s never returned near 2^60).
  const auto r = ks_discrete_test(std::vector<double>{kMaxCount / 2, 0}, std::vector<double>{0.5, 0.5});
  EXPECT_TRUE(r.reject);
  ASSERT_TRUE(r.p_value_standard_error.has_value());
  EXPECT_LT(r.p_value, 1e-3);
}

TEST(Input, KsDiscreteBoundsItsWorkAndSaysHow) {
  // Many categories and many draws: replicates shrink to fit the Monte-Carlo
  // work limit, and past that the DKW-Massart bound is used.
  std::vector<double> counts, p;
  for (int i = 0; i < 5000; ++i) counts.push_back(i % 2 ? 150 : 50), p.push_back(1.0 / 5000);
  KsOptions o;
  o.max_exact_work = 1e4;
  o.max_monte_carlo_work = 5e6;
  const auto mc = ks_discrete_test(counts, p, o);
  ASSERT_TRUE(mc.p_value_standard_error.has_value());
  // Sequential: at most the 1000 replicates the limit allows, fewer where 10 reach D.
  const auto from = mc.notes[0].find("from ");
  ASSERT_NE(from, std::string::npos) << mc.notes[0];
  EXPECT_LE(std::stoi(mc.notes[0].substr(from + 5)), 1000) << mc.notes[0];
  o.max_monte_carlo_work = 4e6;  // < 1000 replicates x 5000 categories
  const auto bound = ks_discrete_test(counts, p, o);
  EXPECT_FALSE(bound.p_value_standard_error.has_value());
  EXPECT_NE(bound.notes[0].find("Dvoretzky-Kiefer-Wolfowitz-Massart"), std::string::npos);
  EXPECT_DOUBLE_EQ(bound.p_value, std::min(1.0, 2 * std::exp(-2 * 500000.0 * std::pow(bound.statistic - 1e-12, 2))));
  // The bound is conservative: never below the Monte-Carlo estimate by more than its noise.
  EXPECT_GE(bound.p_value, mc.p_value - 4 * *mc.p_value_standard_error);
}

TEST(Input, AlphaNotBelowPowerMakesTheStatementVacuousNotAnError) {
  const std::vector<double> o{10, 20, 30, 40}, p{0.1, 0.2, 0.3, 0.4};
  const auto r = chi_square_test(o, p, {.alpha = 0.95});
  EXPECT_FALSE(r.detectable.total_variation.has_value());
  EXPECT_NE(r.detectable.basis.find("is not below the power"), std::string::npos);
  EXPECT_THROW(sample_size_for_total_variation(3, 0.95, 0.9, 0.1), std::invalid_argument);
  // Just below the power it still works.
  EXPECT_TRUE(chi_square_test(o, p, {.alpha = 0.89}).detectable.total_variation.has_value());
}

TEST(Input, ChiSquarePValueOfAnInfiniteStatisticIsZeroAndNaNIsABug) {
  EXPECT_EQ(chi_square_p_value(3, std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_THROW(chi_square_p_value(3, std::nan("")), std::logic_error);
}

TEST(Input, GTestTrustsItsLimitOnlyWhereCellsExpectEnough) {
  // 500 equal categories; the work limit set so that the wanted replicates do
  // not fit. At 5 draws a cell (< sqrt(499)) the limit is biased: G is
  // simulated with what fits (200 replicates), or refused where that cannot
  // resolve alpha; at 100 draws a cell the limit is used.
  const std::vector<double> p(500, 1.0 / 500);
  GofOptions o;
  o.max_monte_carlo_work = 1e5;
  const auto few = g_test(std::vector<double>(500, 5.0), p, o);
  EXPECT_EQ(few.p_value_method.rfind("Monte Carlo", 0), 0u) << few.p_value_method;
  EXPECT_EQ(g_test(std::vector<double>(500, 100.0), p, o).p_value_method, "chi-square limit");
  EXPECT_EQ(chi_square_test(std::vector<double>(500, 5.0), p, o).p_value_method, "chi-square limit");
  o.max_monte_carlo_work = 1e4;  // 20 replicates: cannot resolve alpha 0.05
  EXPECT_NE(message_of([&] { g_test(std::vector<double>(500, 5.0), p, o); }).find("use the chi-square test"), std::string::npos);
}
