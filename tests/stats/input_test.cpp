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
