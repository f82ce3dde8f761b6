// oracle/token/token_law.hpp and rng/exp.hpp: the token law's definition,
// step by step, at the rows where implementations differ (ties at every
// threshold, -inf, one token holding the mass, extreme temperatures).
#include "oracle/token/token_law.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

#include "rng/exp.hpp"
#include "stats/stats.hpp"

namespace tok = warpsim::oracle::token;
using tok::Sampling;

namespace {

std::vector<double> kept(const std::vector<double>& logits, const Sampling& s) {
  auto w = tok::weights(logits, s);
  std::vector<double> out;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w[i] > 0) out.push_back(static_cast<double>(i));
  return out;
}

}  // namespace

TEST(SharedExp, WithinOneUlpOfLongDoubleAndExactAtZero) {
  std::mt19937_64 g(1);
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = i % 2 ? std::uniform_real_distribution<double>(-745, 709)(g) : std::uniform_real_distribution<double>(-40, 0)(g);
    const long double ref = std::exp(static_cast<long double>(x));
    if (ref < DBL_MIN) continue;
    const double ulp = std::nextafter(static_cast<double>(ref), INFINITY) - static_cast<double>(ref);
    worst = std::max(worst, static_cast<double>(std::fabs(static_cast<long double>(warpsim::rng::exp(x)) - ref) / ulp));
  }
  EXPECT_LT(worst, 1.0);
  EXPECT_EQ(warpsim::rng::exp(0.0), 1.0);
  EXPECT_EQ(warpsim::rng::exp(-INFINITY), 0.0);
  EXPECT_EQ(warpsim::rng::exp(-1000.0), 0.0);
  EXPECT_EQ(warpsim::rng::exp(800.0), INFINITY);
  EXPECT_TRUE(std::isnan(warpsim::rng::exp(NAN)));
  EXPECT_GT(warpsim::rng::exp(-745.0), 0.0);  // a subnormal, not 0
}

TEST(TokenLaw, LogitTypesReadExactly) {
  EXPECT_EQ(tok::logit_value(0x3f80, tok::LogitType::BF16), 1.0);
  EXPECT_EQ(tok::logit_value(0xc040, tok::LogitType::BF16), -3.0);
  EXPECT_EQ(tok::logit_value(0x3c00, tok::LogitType::F16), 1.0);
  EXPECT_EQ(tok::logit_value(0x0001, tok::LogitType::F16), std::ldexp(1.0, -24));  // the least subnormal
  EXPECT_EQ(tok::logit_value(0xfbff, tok::LogitType::F16), -65504.0);
  EXPECT_EQ(tok::logit_value(0xfc00, tok::LogitType::F16), -INFINITY);
}

TEST(TokenLaw, SoftmaxUntruncatedAndGreedy) {
  const std::vector<double> x = {1.0, 3.0, 2.0, 3.0};
  const auto p = tok::probabilities(x, {});
  const double z = std::exp(-2.0) + 1 + std::exp(-1.0) + 1;
  EXPECT_NEAR(p[0], std::exp(-2.0) / z, 1e-15);
  EXPECT_NEAR(p[1], 1 / z, 1e-15);
  EXPECT_EQ(tok::weights(x, {})[1], 1.0);  // the largest weight exactly 1
  EXPECT_EQ(kept(x, {.temperature = 0}), (std::vector<double>{1}));  // greedy: the first of the tied maxima
  EXPECT_EQ(kept(x, {.temperature = 1e-310}), (std::vector<double>{1}));  // x / T overflows: as T = 0
  EXPECT_EQ(kept(x, {.temperature = 1e-3}), (std::vector<double>{1, 3}));  // the limit: both maxima
  const auto hot = tok::probabilities(x, {.temperature = 1e300});
  for (double q : hot) EXPECT_NEAR(q, 0.25, 1e-12);  // huge T: uniform
}

TEST(TokenLaw, MinusInfinityNeverDrawnAndBadLogitsRefused) {
  const std::vector<double> x = {-INFINITY, 0.0, -INFINITY};
  EXPECT_EQ(tok::probabilities(x, {}), (std::vector<double>{0, 1, 0}));
  EXPECT_THROW(tok::weights(std::vector<double>{0.0, NAN}, {}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<double>{0.0, INFINITY}, {}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<double>{-INFINITY, -INFINITY}, {}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<double>{}, {}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<double>{1.0}, {.temperature = -1}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<double>{1.0}, {.top_p = 0}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<double>{1.0}, {.min_p = 1.5}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<double>{1.0}, {.top_k = -1}), std::invalid_argument);
}

TEST(TokenLaw, TopKKeepsEveryTieAtItsThreshold) {
  const std::vector<double> x = {5, 1, 3, 3, 3, 0};
  EXPECT_EQ(kept(x, {.top_k = 1}), (std::vector<double>{0}));
  EXPECT_EQ(kept(x, {.top_k = 2}), (std::vector<double>{0, 2, 3, 4}));  // the 2nd largest is tied three ways
  EXPECT_EQ(kept(x, {.top_k = 4}), (std::vector<double>{0, 2, 3, 4}));
  EXPECT_EQ(kept(x, {.top_k = 5}), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(kept(x, {.top_k = 6}).size(), 6u);
  EXPECT_EQ(kept(x, {.top_k = 100}).size(), 6u);
}

TEST(TokenLaw, TopPKeepsTheLeastMostProbableSetAndItsTies) {
  // weights 1, 1/2, 1/4, 1/4 (logits in log 2 steps, exact): mass 2
  const double l = std::log(2.0);
  const std::vector<double> x = {0, -l, -2 * l, -2 * l};
  EXPECT_EQ(kept(x, {.top_p = 0.5}), (std::vector<double>{0}));             // 1 of 2 reaches 0.5 x 2
  EXPECT_EQ(kept(x, {.top_p = 0.51}), (std::vector<double>{0, 1}));
  EXPECT_EQ(kept(x, {.top_p = 0.75}), (std::vector<double>{0, 1}));         // 1.5 reaches 1.5
  EXPECT_EQ(kept(x, {.top_p = 0.76}), (std::vector<double>{0, 1, 2, 3}));  // the 1/4s tied: both kept
  EXPECT_EQ(kept(x, {.top_p = 1e-9}), (std::vector<double>{0}));
  // after top-k: p of the mass top-k kept
  EXPECT_EQ(kept(x, {.top_k = 2, .top_p = 0.6}), (std::vector<double>{0}));  // 1 of 1.5 reaches 0.9
  EXPECT_EQ(kept(x, {.top_k = 2, .top_p = 0.7}), (std::vector<double>{0, 1}));
}

TEST(TokenLaw, MinPAgainstTheLargestProbability) {
  const double l = std::log(2.0);
  const std::vector<double> x = {0, -l, -2 * l, -3 * l};  // weights 1, 1/2, 1/4, 1/8
  EXPECT_EQ(kept(x, {.min_p = 0.25}), (std::vector<double>{0, 1, 2}));  // 1/4 >= 0.25: kept
  EXPECT_EQ(kept(x, {.min_p = 0.26}), (std::vector<double>{0, 1}));
  EXPECT_EQ(kept(x, {.min_p = 1.0}), (std::vector<double>{0}));
  EXPECT_EQ(kept(x, {.top_k = 3, .top_p = 0.9, .min_p = 0.3}), (std::vector<double>{0, 1}));
  const std::vector<double> equal(7, 2.5);  // all logits equal: every truncation keeps all
  EXPECT_EQ(kept(equal, {.top_k = 1, .top_p = 0.1, .min_p = 1.0}).size(), 7u);
}

TEST(TokenLaw, DrawsFollowTheLawAndReplayBySeedAndOffset) {
  const std::vector<double> x = {2.0, 0.5, -1.0, 1.5, -INFINITY, 0.0};
  const Sampling s{.temperature = 0.7, .top_k = 4};
  const auto a = tok::draw(x, s, 42, 7, 200000);
  EXPECT_EQ(a, tok::draw(x, s, 42, 7, 200000));
  const auto b = tok::draw(x, s, 42, 8, 1);  // the next step: draw 1 of offset 7
  EXPECT_EQ(b[0], a[1]);
  const auto p = tok::probabilities(x, s);
  std::vector<double> counts(x.size(), 0.0);
  for (auto i : a) counts[static_cast<std::size_t>(i)] += 1;
  EXPECT_EQ(counts[4], 0);  // -inf
  EXPECT_EQ(counts[2], 0);  // cut by top-k
  std::vector<double> observed, expected;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] > 0) {
      observed.push_back(counts[i]);
      expected.push_back(p[i]);
    }
  }
  const auto t = warpsim::stats::chi_square_test(observed, expected, {.alpha = 1e-3});
  EXPECT_FALSE(t.reject) << "p = " << t.p_value;
}
