// stats/ks_continuous.hpp: the statistic by hand, the p-value against the
// Kolmogorov series, the false-positive rate under the null and the power
// statement under an alternative at the stated distance.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "stats/ks_continuous.hpp"

using namespace warpsim;

namespace {

double exp_cdf(double x) { return x <= 0 ? 0 : 1 - std::exp(-x); }

// P(sqrt(n) D > t) in the limit: 2 sum_k (-1)^(k-1) exp(-2 k^2 t^2).
double kolmogorov_tail(double t) {
  double s = 0;
  for (int k = 1; k < 100; ++k) s += (k % 2 ? 2 : -2) * std::exp(-2.0 * k * k * t * t);
  return s;
}

}  // namespace

TEST(KsContinuous, StatisticAndPValue) {
  // Three points against the uniform law: F(x) = x; D = max(1/3 - 0.1, 2/3 - 0.5, 0.9 - 2/3, 1 - 0.9, ...) = 0.2333...
  const std::vector<double> x = {0.5, 0.1, 0.9};
  const auto r = stats::ks_continuous_test(x, [](double v) { return std::clamp(v, 0.0, 1.0); });
  EXPECT_NEAR(r.statistic, 0.9 - 2.0 / 3.0, 1e-15);
  // 400 exponential draws: the p-value is the series' tail at sqrt(n) D.
  std::mt19937_64 gen(5);
  std::exponential_distribution<double> e(1.0);
  std::vector<double> y(400);
  for (auto& v : y) v = e(gen);
  const auto s = stats::ks_continuous_test(y, exp_cdf);
  EXPECT_NEAR(s.p_value, kolmogorov_tail(std::sqrt(400.0) * s.statistic), 2e-3);
  EXPECT_THROW(stats::ks_continuous_test(std::vector<double>{1.0, NAN}, exp_cdf), std::invalid_argument);
  EXPECT_THROW(stats::ks_continuous_test(std::vector<double>{}, exp_cdf), std::invalid_argument);
}

// 2,000 null samples of 500 at alpha 0.05: the rejections are Binomial(2000,
// <= 0.05); more than 136 (0.05 + 4.9 sigma) would mean a miscalibrated test.
TEST(KsContinuous, FalsePositiveRateUnderTheNull) {
  std::mt19937_64 gen(11);
  std::exponential_distribution<double> e(1.0);
  int rejected = 0;
  for (int rep = 0; rep < 2000; ++rep) {
    std::vector<double> y(500);
    for (auto& v : y) v = e(gen);
    rejected += stats::ks_continuous_test(y, exp_cdf, {.alpha = 0.05}).reject ? 1 : 0;
  }
  EXPECT_LE(rejected, 136);
  EXPECT_GE(rejected, 50) << "not absurdly conservative either";
}

// An alternative at the stated detectable distance is rejected in at least
// 90% of 400 samples: N(mu, 1) against N(0, 1), mu set so that the CDFs'
// largest gap, erf(mu / (2 sqrt 2)), equals the statement for n = 2000 at
// alpha 1e-3. (The statement is conservative: the observed rate is higher.)
TEST(KsContinuous, PowerStatementHolds) {
  const std::size_t n = 2000;
  const double alpha = 1e-3, d = stats::ks_continuous_detectable(n, alpha, 0.9);
  const double mu = 2 * std::sqrt(2.0) * boost::math::erf_inv(d);
  std::mt19937_64 gen(13);
  std::normal_distribution<double> z(mu, 1.0);
  const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  int rejected = 0;
  for (int rep = 0; rep < 400; ++rep) {
    std::vector<double> y(n);
    for (auto& v : y) v = z(gen);
    const auto r = stats::ks_continuous_test(y, phi, {.alpha = alpha});
    EXPECT_NEAR(*r.detectable.kolmogorov_distance, d, 1e-15);
    rejected += r.reject ? 1 : 0;
  }
  EXPECT_GE(rejected, 360);
}
