// stats/ad_continuous.hpp: the statistic by hand, the p-value's limit at the
// published percentage points, the false-positive rate under the null from
// n = 5 to 2,000 at three alphas, power against a shift and against a law
// whose tails are cut, and a draw where the law has no mass.
#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "stats/ad_continuous.hpp"
#include "stats/ks_continuous.hpp"

using namespace warpsim;

namespace {

double uniform_cdf(double x) { return std::clamp(x, 0.0, 1.0); }
double uniform_sf(double x) { return std::clamp(1 - x, 0.0, 1.0); }

// Rejections of `reps` null samples at alpha are Binomial(reps, alpha): a
// calibrated test lands within 4.9 sigma of reps x alpha (both sides: too
// many is a false alarm, too few a test weaker than stated).
void expect_rate(int rejected, int reps, double alpha, const char* what) {
  const double mean = reps * alpha, sd = std::sqrt(reps * alpha * (1 - alpha));
  EXPECT_LE(rejected, mean + 4.9 * sd) << what << ": " << rejected << " of " << reps << " at alpha " << alpha;
  EXPECT_GE(rejected, mean - 4.9 * sd) << what << ": " << rejected << " of " << reps << " at alpha " << alpha;
}

}  // namespace

TEST(AdContinuous, StatisticByHand) {
  // {0.1, 0.5, 0.9} against U(0, 1): A^2 = -3 - (1/3)[1 (ln 0.1 + ln 0.1) + 3 (ln 0.5 + ln 0.5) + 5 (ln 0.9 + ln 0.9)].
  const std::vector<double> x = {0.5, 0.9, 0.1};
  const double expected = -3 - (2 * std::log(0.1) + 6 * std::log(0.5) + 10 * std::log(0.9)) / 3;
  const auto r = stats::ad_continuous_test(x, uniform_cdf, uniform_sf);
  EXPECT_NEAR(r.statistic, expected, 1e-12);
  EXPECT_NEAR(r.statistic, 0.2725526, 1e-6);
  EXPECT_EQ(r.sample_size, 3u);
  EXPECT_THROW(stats::ad_continuous_test(std::vector<double>{0.5, NAN}, uniform_cdf), std::invalid_argument);
  EXPECT_THROW(stats::ad_continuous_test(std::vector<double>{}, uniform_cdf), std::invalid_argument);
  EXPECT_THROW(stats::ad_continuous_test(x, uniform_cdf, uniform_sf, {.alpha = 0}), std::invalid_argument);
}

// The limit's upper percentage points for a fully specified law (Lewis
// 1961's table of the limiting law): 1.933 (10%), 2.492 (5%), 3.070
// (2.5%), 3.878 (1%), 5.974 (0.1%), given to three decimals.
TEST(AdContinuous, TheLimitAtItsPublishedPercentagePoints) {
  EXPECT_NEAR(stats::anderson_darling_limit_cdf(1.933), 0.90, 5e-4);
  EXPECT_NEAR(stats::anderson_darling_limit_cdf(2.492), 0.95, 5e-4);
  EXPECT_NEAR(stats::anderson_darling_limit_cdf(3.070), 0.975, 5e-4);
  EXPECT_NEAR(stats::anderson_darling_limit_cdf(3.878), 0.99, 2e-4);
  EXPECT_NEAR(stats::anderson_darling_limit_cdf(5.974), 0.999, 1e-4);
  EXPECT_EQ(stats::anderson_darling_limit_cdf(0), 0);
  // the finite-n correction is small and vanishes with n
  EXPECT_NEAR(stats::anderson_darling_cdf(1000000, 2.492), stats::anderson_darling_limit_cdf(2.492), 1e-6);
  EXPECT_LT(std::abs(stats::anderson_darling_cdf(5, 2.492) - 0.95), 0.01);
  // the p-value is the complement, and keeps the far tail
  EXPECT_NEAR(stats::anderson_darling_sf(300, 2.492) + stats::anderson_darling_cdf(300, 2.492), 1.0, 1e-12);
  // past z = 8 the limit's asymptote sqrt(3) erfc(sqrt(z)), continuous with the fit
  EXPECT_NEAR(stats::anderson_darling_sf(1000000, 7.999) / stats::anderson_darling_sf(1000000, 8.0), 1.0, 0.02);
  EXPECT_NEAR(stats::anderson_darling_sf(1000, 22.76), std::sqrt(3.0) * std::erfc(std::sqrt(22.76)), 1e-20);
  EXPECT_GT(stats::anderson_darling_sf(1000, 22.76), 1e-11);
}

// The false-positive rate, measured: 4,000 null samples at each n, at
// alpha 0.05, 0.01 and 0.001, the rejections within 4.9 sigma of alpha's
// share on both sides. Uniform draws: every continuous law's test is this
// one after F (the p-value does not depend on the law).
TEST(AdContinuous, FalsePositiveRateUnderTheNullFrom5To2000Draws) {
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  constexpr int kReps = 4000;
  for (int n : {5, 8, 20, 200, 2000}) {
    int rejected[3] = {};
    for (int rep = 0; rep < kReps; ++rep) {
      std::vector<double> x(static_cast<std::size_t>(n));
      for (auto& v : x) v = u(gen);
      const double p = stats::ad_continuous_test(x, uniform_cdf, uniform_sf).p_value;
      rejected[0] += p < 0.05;
      rejected[1] += p < 0.01;
      rejected[2] += p < 0.001;
    }
    std::printf("n = %d: rejected %d, %d, %d of %d at alpha 0.05, 0.01, 0.001\n", n, rejected[0], rejected[1], rejected[2], kReps);
    const std::string what = "n = " + std::to_string(n);
    expect_rate(rejected[0], kReps, 0.05, what.c_str());
    expect_rate(rejected[1], kReps, 0.01, what.c_str());
    expect_rate(rejected[2], kReps, 0.001, what.c_str());
  }
}

// The same through a law's own CDF and survival function: normal draws by
// the inverse CDF, 2,000 samples of 300.
TEST(AdContinuous, FalsePositiveRateThroughANormalsCdf) {
  const boost::math::normal_distribution<double> nd(1.5, 2.0);
  std::mt19937_64 gen(23);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int rejected = 0;
  constexpr int kReps = 2000;
  for (int rep = 0; rep < kReps; ++rep) {
    std::vector<double> x(300);
    for (auto& v : x) v = boost::math::quantile(nd, std::max(u(gen), 1e-300));
    rejected += stats::ad_continuous_test(
                    x, [&](double v) { return boost::math::cdf(nd, v); }, [&](double v) { return boost::math::cdf(boost::math::complement(nd, v)); },
                    {.alpha = 0.05})
                    .reject;
  }
  expect_rate(rejected, kReps, 0.05, "normal (1.5, 2), n = 300");
}

// Power: a normal whose tails beyond 2 sigma are cut (4.6% of its mass
// moved inward; Kolmogorov distance 0.023, under KS's 0.028 at 5,000 draws
// and alpha 0.001) is seen by Anderson-Darling at 5,000 draws nearly
// always (A^2 about 14 on average against 5.97), by KS far less often; a
// shift of 0.1 sigma at 2,000 draws by Anderson-Darling.
TEST(AdContinuous, SeesCutTailsThatKsMisses) {
  const boost::math::normal_distribution<double> nd(0.0, 1.0);
  const auto cdf = [&](double v) { return boost::math::cdf(nd, v); };
  const auto sf = [&](double v) { return boost::math::cdf(boost::math::complement(nd, v)); };
  std::mt19937_64 gen(29);
  std::normal_distribution<double> z(0.0, 1.0);
  int ad_cut = 0, ks_cut = 0, ad_shift = 0;
  constexpr int kReps = 40;
  for (int rep = 0; rep < kReps; ++rep) {
    std::vector<double> cut(5000);
    for (auto& v : cut) {
      do v = z(gen);
      while (std::abs(v) > 2);
    }
    ad_cut += stats::ad_continuous_test(cut, cdf, sf, {.alpha = 0.001}).reject;
    ks_cut += stats::ks_continuous_test(cut, cdf, {.alpha = 0.001}).reject;
    std::vector<double> shifted(2000);
    for (auto& v : shifted) v = z(gen) + 0.1;
    ad_shift += stats::ad_continuous_test(shifted, cdf, sf, {.alpha = 0.001}).reject;
  }
  std::printf("cut tails: AD %d, KS %d of %d; shift 0.1 sigma: AD %d of %d\n", ad_cut, ks_cut, kReps, ad_shift, kReps);
  EXPECT_GE(ad_cut, 36);
  EXPECT_LT(ks_cut, ad_cut);
  EXPECT_GE(ad_shift, 30);
}

// A draw where the law has no mass makes A^2 infinite and p 0, and says so.
TEST(AdContinuous, ADrawOutsideTheSupportRejects) {
  const std::vector<double> x = {0.2, 0.4, 1.5};
  const auto r = stats::ad_continuous_test(x, uniform_cdf, uniform_sf);
  EXPECT_TRUE(std::isinf(r.statistic));
  EXPECT_EQ(r.p_value, 0);
  EXPECT_TRUE(r.reject);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("no mass"), std::string::npos);
}

// A float32 sampler of beta(0.5, 0.5) stores 1.0f for draws within 3e-8 of
// 1, where S = 0: taken as exact, A^2 is infinite; told the values are
// float32, each value stands for the reals that round to it and the sample
// passes (stats/stored.hpp). The same for KS, whose D does not grow.
TEST(AdContinuous, AValueRoundedOntoTheSupportsEdgeIsNotAFalseAlarm) {
  const auto cdf = [](double x) { return x <= 0 ? 0.0 : x >= 1 ? 1.0 : 2 / M_PI * std::asin(std::sqrt(x)); };
  const auto sf = [&](double x) { return 1 - cdf(x); };
  std::mt19937_64 gen(31);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x(300);
  for (auto& v : x) v = static_cast<float>(std::pow(std::sin(M_PI / 2 * u(gen)), 2));
  x[17] = 1.0;  // as float32 rounding leaves a draw of 1 - 1e-8
  const auto exact = stats::ad_continuous_test(x, cdf, sf, {.alpha = 0.001});
  EXPECT_TRUE(std::isinf(exact.statistic));
  const auto f32 = stats::ad_continuous_test(x, cdf, sf, {.alpha = 0.001, .stored = stats::Stored::Float32});
  EXPECT_TRUE(std::isfinite(f32.statistic));
  EXPECT_FALSE(f32.reject) << "A^2 " << f32.statistic << ", p " << f32.p_value;
  EXPECT_FALSE(stats::ks_continuous_test(x, cdf, {.alpha = 0.001, .stored = stats::Stored::Float32}).reject);
  // a float64 0 (a gamma of shape 0.01 underflows there one draw in 1,700)
  // stands for the reals below the least subnormal, whose half is no double
  const auto [zlo, zhi] = stats::stored_interval(0.0, stats::Stored::Float64);
  EXPECT_EQ(zhi, std::ldexp(1.0, -1074));
  EXPECT_EQ(zlo, -std::ldexp(1.0, -1074));
  EXPECT_EQ(stats::stored_interval(1.0, stats::Stored::Float64).second, 1.0 + std::ldexp(1.0, -53));
  EXPECT_EQ(stats::stored_interval(1.0, stats::Stored::Float64).first, 1.0 - std::ldexp(1.0, -54));
  // the interval itself: float32's neighbours' midpoints around 1
  const auto [lo, hi] = stats::stored_interval(1.0, stats::Stored::Float32);
  EXPECT_EQ(lo, 1.0 - std::ldexp(1.0, -25));
  EXPECT_EQ(hi, 1.0 + std::ldexp(1.0, -24));
}
