// stats/tail_test.hpp and the verdict's statements about tails
// (stats/continuous_verdict.hpp): the bins' decades, what a pass of the
// tails' chi-square rules out, and the least tail mass the draws can show.
#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "stats/continuous_law.hpp"
#include "stats/continuous_verdict.hpp"
#include "stats/tail_test.hpp"

using namespace warpsim;

namespace {

namespace bm = boost::math;

// n normals from the quantile function, but none in either tail beyond mass
// `cut` (a sampler that cannot reach them: 24-bit uniforms, a table's end).
std::vector<double> normals_without_tails(std::size_t n, double cut, std::mt19937_64& gen) {
  const bm::normal_distribution<double> z(0, 1);
  std::uniform_real_distribution<double> u(cut, 1 - cut);
  std::vector<double> x(n);
  for (auto& v : x) {
    double w;
    do w = u(gen);
    while (w <= 0);
    v = bm::quantile(z, w);
  }
  return x;
}

}  // namespace

TEST(TailTest, DecadesFillFiveExpectedEach) {
  EXPECT_EQ(stats::tail_decades(49), 0);
  EXPECT_EQ(stats::tail_decades(50), 1);
  EXPECT_EQ(stats::tail_decades(499), 1);
  EXPECT_EQ(stats::tail_decades(500), 2);
  EXPECT_EQ(stats::tail_decades(1000000), 5);
  EXPECT_FALSE(stats::tail_test(std::vector<double>(49, 0.5), [](double x) { return x; }, {}).has_value());
  EXPECT_NEAR(stats::smallest_visible_tail(1000000, 1e-3), std::log(1000.0) / 1e6, 1e-15);
}

TEST(TailTest, QuantilesInvertTheLaw) {
  const auto normal = stats::continuous_law("normal:0,1");
  EXPECT_NEAR(stats::lower_quantile(normal, 0.025), -1.959963984540054, 1e-12);
  EXPECT_NEAR(stats::upper_quantile(normal, 1e-10), 6.361340902404056, 1e-9);
  const auto gamma = stats::continuous_law("gamma:0.5,2");
  EXPECT_NEAR(gamma.cdf(stats::lower_quantile(gamma, 1e-6)), 1e-6, 1e-15);
  EXPECT_NEAR(gamma.sf(stats::upper_quantile(gamma, 1e-6)), 1e-6, 1e-15);
  const auto uniform = stats::continuous_law("uniform:2,3");
  EXPECT_NEAR(stats::lower_quantile(uniform, 0.25), 2.25, 1e-15);
  // every form's closed-form quantiles invert its CDF and survival function
  // in each tail to within one ulp of x (near a finite end of the support x
  // cannot resolve more: 3 - 4e-12 is 3 to within 1e-4 of that tail's mass),
  // and to within the digits F and S keep (a truncated normal's are a
  // difference of the normal's: an absolute 2^-52 or so)
  auto laws = std::vector<stats::ContinuousLaw>{};
  for (const char* spec : {"uniform:-1,3", "normal:1,2", "exponential:3", "gamma:0.2,2", "gamma:30,1", "beta:0.5,0.5", "beta:3,0.7",
                           "truncated-normal:0,1,-1,2", "truncated-normal:0,1,3,9", "truncated-normal:0,1,-9,-3"})
    laws.push_back(stats::continuous_law(spec));
  laws.push_back(stats::tabulated_law({0, 1, 1.5, 4}, {0, 0.25, 0.25, 1}, "t"));
  for (const auto& law : laws) {
    ASSERT_TRUE(law.quantile && law.upper_tail_quantile) << law.describe();
    for (double p : {1e-12, 1e-6, 0.3, 0.7}) {
      const double x = law.quantile(p), y = law.upper_tail_quantile(p), inf = std::numeric_limits<double>::infinity();
      const double tol = 1e-8 + 4e-16 / p;
      EXPECT_LE(law.cdf(std::nextafter(x, -inf)), p * (1 + tol)) << law.describe() << " p = " << p;
      EXPECT_GE(law.cdf(std::nextafter(x, inf)), p * (1 - tol)) << law.describe() << " p = " << p;
      EXPECT_LE(law.sf(std::nextafter(y, inf)), p * (1 + tol)) << law.describe() << " q = " << p;
      EXPECT_GE(law.sf(std::nextafter(y, -inf)), p * (1 - tol)) << law.describe() << " q = " << p;
    }
  }
}

// A normal missing its tails beyond 3.5 sigma (2.3e-4 a side): at 10^5 draws
// the deepest bins expect 10 and 23 draws there and hold none; KS cannot see
// it (a Kolmogorov distance of 2.3e-4) and Anderson-Darling barely.
// (the reach region is 9.7e-5 a side: the reach test fails it every time).
TEST(TailTest, ASamplerMissingItsTailsFailsWhereTheDrawsReach) {
  const double cut = bm::cdf(bm::normal_distribution<double>(0, 1), -3.5);
  std::mt19937_64 gen(5);
  const auto law = stats::continuous_law("normal:0,1");
  int reach = 0, ks = 0, tails = 0;
  for (int rep = 0; rep < 20; ++rep) {
    const auto v = stats::judge_continuous(normals_without_tails(100000, cut, gen), law, {.alpha = 1e-3});
    reach += v.reach->reject;
    tails += v.tails->reject;
    ks += v.ks.reject;
    EXPECT_TRUE(v.reject());
  }
  EXPECT_EQ(reach, 20);
  EXPECT_LE(ks, 2);
  std::printf("of 20 samples: the reach test failed %d, the decades' chi-square %d, KS %d\n", reach, tails, ks);
}

// The verdict's statements about tails: a sampler that never draws into
// either tail region of mass r (reach_tail) fails every time; one missing
// less than ln(1 / alpha) / n (invisible_tail) a side fails about as often as
// a correct one.
TEST(TailTest, TheReachIsWhatTheVerdictSays) {
  const auto law = stats::continuous_law("normal:0,1");
  const std::size_t n = 20000;
  const double alpha = 0.05;
  std::mt19937_64 gen(9);
  const auto probe = stats::judge_continuous(normals_without_tails(n, 0.0, gen), law, {.alpha = alpha});
  ASSERT_TRUE(probe.reach_tail && probe.invisible_tail && probe.lower_edge && probe.upper_edge);
  const double r = *probe.reach_tail, p = *probe.invisible_tail;
  EXPECT_NEAR(r, std::log(4 / (alpha / 5)) / n, 1e-15);
  EXPECT_NEAR(p, std::log(1 / (alpha / 5)) / n, 1e-15);
  EXPECT_NEAR(law.cdf(*probe.lower_edge), r, 1e-12);
  EXPECT_NEAR(law.sf(*probe.upper_edge), r, 1e-12);
  int small = 0, at_reach = 0;
  const int reps = 200;
  for (int rep = 0; rep < reps; ++rep) {
    small += stats::judge_continuous(normals_without_tails(n, p / 10, gen), law, {.alpha = alpha}).reject();
    at_reach += stats::judge_continuous(normals_without_tails(n, r, gen), law, {.alpha = alpha}).reach->reject;
  }
  EXPECT_LE(small, reps * alpha + 4.9 * std::sqrt(reps * alpha * (1 - alpha))) << "missing p / 10";
  EXPECT_EQ(at_reach, reps) << "missing r";
}

// PyTorch's fp32 gamma raises draws below 2^-126 to it: at shape 0.01 that
// is 42% of them. Judged as values that stand for themselves it fails every
// test; with the clamp named, the pile is one point mass and passes.
TEST(TailTest, AClampIsOnePointMass) {
  const auto law = stats::continuous_law("gamma:0.01,1");
  const double floor = std::ldexp(1.0, -126);
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> x(20000);
  const double f_floor = law.cdf(floor);
  EXPECT_NEAR(f_floor, 0.42, 0.01);
  for (auto& v : x) {
    const double w = u(gen);
    v = w <= f_floor ? floor : stats::round_to(stats::lower_quantile(law, w), stats::Stored::Float32);
  }
  const auto as_is = stats::judge_continuous(x, law, {.alpha = 1e-3, .stored = stats::Stored::Float32});
  // (and the reach test: read as given, no value lies below 2^-126, where the law has 42%)
  EXPECT_TRUE(as_is.ks.reject && as_is.ad.reject && as_is.tails->reject && as_is.reach->reject);
  stats::ContinuousVerdictOptions clamped{.alpha = 1e-3, .stored = stats::Stored::Float32};
  clamped.clamp.below = floor;
  const auto v = stats::judge_continuous(x, law, clamped);
  EXPECT_FALSE(v.reject());
  ASSERT_TRUE(v.clamped_below);
  EXPECT_NEAR(static_cast<double>(v.clamped_below->count) / 20000, f_floor, 0.02);
  EXPECT_NEAR(v.clamped_below->law_mass, f_floor, 1e-6);
}
