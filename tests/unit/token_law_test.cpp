// oracle/token/token_law.hpp and rng/exp.hpp: the token law's definition,
// step by step, at the rows where implementations differ (ties at every
// threshold, -inf, one token holding the mass, extreme temperatures).
#include "oracle/token/token_law.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <vector>

#include "rng/exp.hpp"
#include "stats/stats.hpp"

namespace tok = warpsim::oracle::token;
using tok::Sampling;

namespace {

constexpr std::uint64_t kOne = std::uint64_t{1} << tok::kQuantumBits;

std::vector<double> kept(const std::vector<float>& logits, const Sampling& s) {
  auto w = tok::weights(logits, s);
  std::vector<double> out;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w[i] > 0) out.push_back(static_cast<double>(i));
  return out;
}

}  // namespace

TEST(SharedExp, WithinTwoUlpOfDoubleAndExactAtZero) {
  std::mt19937_64 g(1);
  double worst = 0;
  for (int i = 0; i < 400000; ++i) {
    const float x = i % 2 ? std::uniform_real_distribution<float>(-87, 88)(g) : std::uniform_real_distribution<float>(-30, 0)(g);
    const double ref = std::exp(static_cast<double>(x));
    if (ref < FLT_MIN) continue;
    const float r = static_cast<float>(ref);
    const double ulp = static_cast<double>(std::nextafter(r, INFINITY)) - static_cast<double>(r);
    worst = std::max(worst, std::fabs(static_cast<double>(warpsim::rng::exp_f32(x)) - ref) / ulp);
  }
  EXPECT_LT(worst, 2.0);
  RecordProperty("worst_ulp", std::to_string(worst));
  EXPECT_EQ(warpsim::rng::exp_f32(0.0f), 1.0f);
  EXPECT_EQ(warpsim::rng::exp_f32(-INFINITY), 0.0f);
  EXPECT_EQ(warpsim::rng::exp_f32(-88.0f), 0.0f);
  EXPECT_EQ(warpsim::rng::exp_f32(89.0f), INFINITY);
  EXPECT_TRUE(std::isnan(warpsim::rng::exp_f32(NAN)));
  EXPECT_GT(warpsim::rng::exp_f32(-87.0f), 0.0f);  // a subnormal, not 0
}

TEST(SharedExp, TheNonPositiveFormIsTheSameFunction) {
  std::mt19937_64 g(2);
  for (int i = 0; i < 200000; ++i) {
    const float x = -std::uniform_real_distribution<float>(0, 100)(g);
    ASSERT_EQ(warpsim::rng::exp_f32_nonpositive(x), warpsim::rng::exp_f32(x)) << x;
  }
  for (float x : {0.0f, -0.0f, -87.0f, -87.00001f, -1e30f, -INFINITY, -FLT_MIN})
    EXPECT_EQ(warpsim::rng::exp_f32_nonpositive(x), warpsim::rng::exp_f32(x)) << x;
}

TEST(TokenLaw, LogitTypesReadExactly) {
  EXPECT_EQ(tok::logit_value(0x3f80, tok::LogitType::BF16), 1.0f);
  EXPECT_EQ(tok::logit_value(0xc040, tok::LogitType::BF16), -3.0f);
  EXPECT_EQ(tok::logit_value(0x3c00, tok::LogitType::F16), 1.0f);
  EXPECT_EQ(tok::logit_value(0x0001, tok::LogitType::F16), std::ldexp(1.0f, -24));  // the least subnormal
  EXPECT_EQ(tok::logit_value(0xfbff, tok::LogitType::F16), -65504.0f);
  EXPECT_EQ(tok::logit_value(0xfc00, tok::LogitType::F16), -INFINITY);
}

TEST(TokenLaw, QuantaAndExactCeiling) {
  EXPECT_EQ(tok::quantum(1.0f), kOne);
  EXPECT_EQ(tok::quantum(0.0f), 0u);
  EXPECT_EQ(tok::quantum(std::ldexp(1.0f, -44)), 0u);  // half a quantum: to even, 0
  EXPECT_EQ(tok::quantum(std::ldexp(1.5f, -44)), 1u);
  EXPECT_EQ(tok::quantum(std::ldexp(1.0f, -43)), 1u);
  EXPECT_EQ(tok::ceil_mul(0.5f, 3), 2u);
  EXPECT_EQ(tok::ceil_mul(0.5f, 4), 2u);
  EXPECT_EQ(tok::ceil_mul(1.0f, 12345), 12345u);
  EXPECT_EQ(tok::ceil_mul(0.1f, 10), 2u);  // 0.1f is 0.100000001490116...: 10 p > 1
  EXPECT_EQ(tok::ceil_mul(0.75f, ~std::uint64_t{0}), 0xC000000000000000u);  // 0.75 (2^64 - 1) = 2^63 + 2^62 - 0.75
  EXPECT_EQ(tok::ceil_mul(1e-40f, 1), 1u);  // a subnormal p
}

TEST(TokenLaw, SoftmaxUntruncatedAndGreedy) {
  const std::vector<float> x = {1.0f, 3.0f, 2.0f, 3.0f};
  const auto p = tok::probabilities(x, {});
  const double z = std::exp(-2.0) + 1 + std::exp(-1.0) + 1;
  EXPECT_NEAR(p[0], std::exp(-2.0) / z, 1e-7);
  EXPECT_NEAR(p[1], 1 / z, 1e-7);
  EXPECT_EQ(tok::weights(x, {})[1], kOne);  // the largest quantum exactly 2^43
  EXPECT_EQ(kept(x, {.temperature = 0}), (std::vector<double>{1}));  // greedy: the first of the tied maxima
  EXPECT_EQ(kept(x, {.temperature = 1e-45f}), (std::vector<double>{1}));  // x / T overflows: as T = 0
  EXPECT_EQ(kept({-1.0f, -0.5f, -3.0f}, {.temperature = 1e-45f}), (std::vector<double>{1}));  // 1 / T overflows: as T = 0
  EXPECT_EQ(kept({-1.0f, 0.0f, -3.0f}, {.temperature = 1e-45f}), (std::vector<double>{1}));  // (0 x inf: no NaN)
  EXPECT_EQ(kept({-1.0f, -0.5f, -3.0f}, {.temperature = 1e-30f}), (std::vector<double>{1}));  // x / T to -inf: as T = 0
  EXPECT_EQ(kept(x, {.temperature = 1e-3f}), (std::vector<double>{1, 3}));  // the limit: both maxima
  const auto hot = tok::probabilities(x, {.temperature = 1e30f});
  for (double q : hot) EXPECT_NEAR(q, 0.25, 1e-12);  // huge T: uniform
}

// Per token, the law is softmax(x / T) within the bound docs/tokens.md
// states: |p_i - softmax_i| <= (8 max|x / T| + 8) 2^-24 softmax_i + 2^-43
// (1 / T, x r, the max and the difference each rounded once, the exp within 2 ulp,
// all twice through the normalisation; then the quantum).
TEST(TokenLaw, WithinItsBoundOfSoftmax) {
  std::mt19937_64 g(3);
  double worst = 0;
  for (int row = 0; row < 200; ++row) {
    const int k = 2 + static_cast<int>(g() % 3000);
    std::vector<float> x(static_cast<std::size_t>(k));
    for (auto& v : x) v = std::normal_distribution<float>(0, 4)(g);
    const float t = std::uniform_real_distribution<float>(0.3f, 2.0f)(g);
    const auto p = tok::probabilities(x, {.temperature = t});
    const long double m = *std::max_element(x.begin(), x.end());
    long double z = 0;
    double largest = 0;
    for (float v : x) {
      z += std::exp((static_cast<long double>(v) - m) / t);
      largest = std::max(largest, static_cast<double>(std::fabs(v / t)));
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      const auto exact = static_cast<double>(std::exp((static_cast<long double>(x[i]) - m) / t) / z);
      const double bound = (8 * largest + 8) * 0x1p-24 * exact + 0x1p-43;
      worst = std::max(worst, std::fabs(p[i] - exact) / bound);
    }
  }
  EXPECT_LE(worst, 1.0);
  RecordProperty("worst_share_of_bound", std::to_string(worst));
  std::printf("worst share of the bound: %.3f\n", worst);
}

TEST(TokenLaw, MinusInfinityNeverDrawnAndBadLogitsRefused) {
  const std::vector<float> x = {-INFINITY, 0.0f, -INFINITY};
  EXPECT_EQ(tok::probabilities(x, {}), (std::vector<double>{0, 1, 0}));
  EXPECT_THROW(tok::weights(std::vector<float>{0.0f, NAN}, {}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<float>{0.0f, INFINITY}, {}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<float>{-INFINITY, -INFINITY}, {}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<float>{}, {}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<float>{1.0f}, {.temperature = -1}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<float>{1.0f}, {.temperature = INFINITY}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<float>{1.0f}, {.top_p = 0}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<float>{1.0f}, {.min_p = 1.5f}), std::invalid_argument);
  EXPECT_THROW(tok::weights(std::vector<float>{1.0f}, {.top_k = -1}), std::invalid_argument);
}

TEST(TokenLaw, TopKKeepsEveryTieAtItsThreshold) {
  const std::vector<float> x = {5, 1, 3, 3, 3, 0};
  EXPECT_EQ(kept(x, {.top_k = 1}), (std::vector<double>{0}));
  EXPECT_EQ(kept(x, {.top_k = 2}), (std::vector<double>{0, 2, 3, 4}));  // the 2nd largest is tied three ways
  EXPECT_EQ(kept(x, {.top_k = 4}), (std::vector<double>{0, 2, 3, 4}));
  EXPECT_EQ(kept(x, {.top_k = 5}), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(kept(x, {.top_k = 6}).size(), 6u);
  EXPECT_EQ(kept(x, {.top_k = 100}).size(), 6u);
}

// Thresholds on quanta chosen to sit exactly at each rule's boundary.
TEST(TokenLaw, TopPKeepsTheLeastMostProbableSetAndItsTies) {
  const std::vector<std::uint64_t> q = {kOne, kOne / 2, kOne / 4, kOne / 4};  // mass 2
  EXPECT_EQ(tok::threshold(q, {.top_p = 0.5f}), kOne);  // 1 of 2 reaches 0.5 x 2
  EXPECT_EQ(tok::threshold(q, {.top_p = 0.51f}), kOne / 2);
  EXPECT_EQ(tok::threshold(q, {.top_p = 0.75f}), kOne / 2);  // 1.5 reaches 1.5
  EXPECT_EQ(tok::threshold(q, {.top_p = 0.76f}), kOne / 4);  // the quarters tied: both kept
  EXPECT_EQ(tok::threshold(q, {.top_p = 1e-9f}), kOne);
  // after top-k: p of the mass top-k kept
  EXPECT_EQ(tok::threshold(q, {.top_k = 2, .top_p = 0.6f}), kOne);  // 1 of 1.5 reaches 0.9
  EXPECT_EQ(tok::threshold(q, {.top_k = 2, .top_p = 0.7f}), kOne / 2);
  EXPECT_EQ(tok::threshold(q, {.top_k = 3, .top_p = 1.0f}), kOne / 4);  // top-k ties: all four
}

TEST(TokenLaw, MinPAgainstTheLargestProbability) {
  const std::vector<std::uint64_t> q = {kOne, kOne / 2, kOne / 4, kOne / 8};
  EXPECT_EQ(tok::threshold(q, {.min_p = 0.25f}), kOne / 4);  // 1/4 >= 0.25: kept
  EXPECT_EQ(tok::threshold(q, {.min_p = 0.26f}), static_cast<std::uint64_t>(std::ceil(0.26f * 0x1p43)));
  EXPECT_EQ(tok::threshold(q, {.min_p = 1.0f}), kOne);
  EXPECT_EQ(tok::threshold(q, {.top_k = 3, .top_p = 0.9f, .min_p = 0.3f}), static_cast<std::uint64_t>(std::ceil(0.3f * 0x1p43)));
  const std::vector<float> equal(7, 2.5f);  // all logits equal: every truncation keeps all
  EXPECT_EQ(kept(equal, {.top_k = 1, .top_p = 0.1f, .min_p = 1.0f}).size(), 7u);
}

TEST(TokenLaw, LocateIsTheExactInverseOfTheQuanta) {
  const std::vector<std::uint64_t> q = {1, 0, 3};  // total 4: t = floor(U 4 / 2^53)
  const std::uint64_t quarter = std::uint64_t{1} << 51;
  EXPECT_EQ(tok::locate(q, 4, 0), 0u);
  EXPECT_EQ(tok::locate(q, 4, quarter - 1), 0u);
  EXPECT_EQ(tok::locate(q, 4, quarter), 2u);  // never the zero
  EXPECT_EQ(tok::locate(q, 4, (std::uint64_t{1} << 53) - 1), 2u);
}

TEST(TokenLaw, DrawsFollowTheLawAndReplayBySeedAndOffset) {
  const std::vector<float> x = {2.0f, 0.5f, -1.0f, 1.5f, -INFINITY, 0.0f};
  const Sampling s{.temperature = 0.7f, .top_k = 4};
  const auto a = tok::draw(x, s, 42, 7, 200000);
  EXPECT_EQ(a, tok::draw(x, s, 42, 7, 200000));
  // the next step draws afresh: offset 8's draws are not offset 7's shifted
  const auto b = tok::draw(x, s, 42, 8, 64);
  EXPECT_NE(std::vector<std::int64_t>(a.begin() + 1, a.begin() + 65), b);
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

// A batch given one seed: row r is the request of rng::request_seed(s, r),
// SplitMix64's output r + 1 from s (its published first outputs from 0), and
// batches of nearby seeds share no request (s + r made row r + 1 of seed s
// row r of seed s + 1).
TEST(TokenLaw, BatchSeedsAreSplitMix64AndNearbyBatchesShareNoRequest) {
  EXPECT_EQ(warpsim::rng::request_seed(0, 0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(warpsim::rng::request_seed(0, 1), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(warpsim::rng::request_seed(0, 2), 0x06C45D188009454Full);
  std::set<std::uint64_t> seen;
  for (std::uint64_t s = 0; s < 64; ++s)
    for (std::uint64_t r = 0; r < 4096; ++r) EXPECT_TRUE(seen.insert(warpsim::rng::request_seed(s, r)).second) << "seed " << s << " row " << r;
}
