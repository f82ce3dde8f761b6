// stats/two_level_continuous.hpp: what it sees that the pooled tests do not,
// and its false-positive rate at float64 and bfloat16.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "stats/continuous_law.hpp"
#include "stats/continuous_verdict.hpp"
#include "stats/stored.hpp"
#include "stats/two_level_continuous.hpp"

using namespace warpsim;

// The two-level test: a sampler whose blocks of the stream are shifted up
// and down by 0.05 sigma in turn (a per-call bias that averages out) fails
// it at 10^6 values, where the pooled tests see only a law 0.1% wider; a
// correct sampler's randomised PITs keep it at alpha, rounded to bf16 too.
TEST(TwoLevelContinuous, SeesALawThatChangesAlongTheStream) {
  const auto law = stats::continuous_law("normal:0,1");
  std::mt19937_64 gen(12);
  std::normal_distribution<double> z(0, 1);
  const std::size_t n = 1000000;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = z(gen) + ((i / 10000) % 2 ? 0.05 : -0.05);
  const auto v = stats::judge_continuous(x, law, {.alpha = 1e-3});
  ASSERT_TRUE(v.two_level);
  EXPECT_TRUE(v.two_level->reject) << v.two_level->p_value;
  EXPECT_FALSE(v.ks.reject);
  EXPECT_FALSE(v.ad.reject);
}

TEST(TwoLevelContinuous, HoldsAlphaAtEveryPrecision) {
  const auto law = stats::continuous_law("gamma:0.3,1");
  std::mt19937_64 gen(13);
  std::uniform_real_distribution<double> u(0, 1);
  const int reps = 300;
  const double alpha = 0.05;
  for (const auto stored : {stats::Stored::Float64, stats::Stored::BFloat16}) {
    int rejected = 0;
    for (int rep = 0; rep < reps; ++rep) {
      std::vector<double> x(2000);
      for (auto& v : x) {
        double w;
        do w = u(gen);
        while (w <= 0);
        v = stats::round_to(law.quantile(w), stored);
      }
      rejected += stats::two_level_continuous_test(x, law.cdf, {.alpha = alpha, .stored = stored})->reject;
    }
    EXPECT_LE(rejected, reps * alpha + 4.9 * std::sqrt(reps * alpha * (1 - alpha))) << static_cast<int>(stored);
    EXPECT_GE(rejected, 1);  // not vacuous: a test at 0.05 rejects now and then
  }
}
