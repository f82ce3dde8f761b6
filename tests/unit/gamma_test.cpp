// oracle/rejection/gamma.hpp: Marsaglia-Tsang's variates against Boost.Math's
// gamma CDF (KS, with the power each pass states), the attempts they take,
// the Dirichlet draws' beta marginals, and LDA's theta and phi from z.
#include <gtest/gtest.h>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "oracle/rejection/gamma.hpp"
#include "rng/ziggurat.hpp"
#include "stats/ad_continuous.hpp"
#include "stats/ks_continuous.hpp"

using namespace warpsim;
namespace rj = warpsim::oracle::rejection;

// 20,000 draws a shape, alpha 1e-6 each (six shapes: a false alarm with
// probability under 6e-6); each pass rules out a law at Kolmogorov distance
// 0.027 or more from the gamma law with power 0.9 (stats/ks_continuous.hpp).
TEST(Gamma, MarsagliaTsangFollowsTheGammaLaw) {
  for (const double a : {0.05, 0.3, 1.0, 2.5, 30.0, 1000.0}) {
    std::vector<double> x(20000);
    std::uint64_t attempts = 0;
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = rj::gamma_draw(a, 17, i, &attempts);
    const boost::math::gamma_distribution<double> law(a);
    const auto r = stats::ks_continuous_test(x, [&](double v) { return v <= 0 ? 0.0 : boost::math::cdf(law, v); }, {.alpha = 1e-6});
    EXPECT_FALSE(r.reject) << "shape " << a << ": D = " << r.statistic << ", p = " << r.p_value;
    EXPECT_LT(*r.detectable.kolmogorov_distance, 0.027);
    // Marsaglia and Tsang: at least 95% of attempts accepted for shapes >= 1
    // (the boosted ones included), of those the ziggurat passes (99.28%).
    EXPECT_LT(static_cast<double>(attempts) / static_cast<double>(x.size()), 1.0 / (0.95 * 0.9928)) << "shape " << a;
  }
}

// The float variant (what fp32 kernels compute): the same law, 20,000 draws
// a shape, alpha 1e-6 each.
TEST(Gamma, FloatVariatesFollowTheGammaLaw) {
  for (const float a : {0.05f, 0.3f, 1.0f, 2.5f, 30.0f, 1000.0f}) {
    std::vector<double> x(20000);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = rj::gamma_draw<float>(a, 19, i);
    const boost::math::gamma_distribution<double> law(a);
    // stored in float and clamped at FLT_MIN (the underflow rule: 1.3% of
    // the draws at shape 0.05 are FLT_MIN)
    const auto r = stats::ks_continuous_test(x, [&](double v) { return v <= 0 ? 0.0 : boost::math::cdf(law, v); },
                                             {.alpha = 1e-6, .stored = stats::Stored::Float32,
                                              .clamp = {.below = static_cast<double>(std::numeric_limits<float>::min())}});
    EXPECT_FALSE(r.reject) << "shape " << a << ": D = " << r.statistic << ", p = " << r.p_value;
  }
}

TEST(Gamma, DrawsAreFixedByTaskAndSeed) {
  EXPECT_EQ(rj::gamma_draw(2.5, 3, 99), rj::gamma_draw(2.5, 3, 99));
  EXPECT_NE(rj::gamma_draw(2.5, 3, 99), rj::gamma_draw(2.5, 3, 100));
  EXPECT_NE(rj::gamma_draw(2.5, 3, 99), rj::gamma_draw(2.5, 4, 99));
  // Shapes below 1: Gamma(a + 1)'s variate G of the same task, then G
  // U^(1/a); tasks 2P and 2P + 1 take their U from the block (seed, 2^63 +
  // P, 0, word3 1): words (2h, 2h + 1) in double, word h in float (h = task
  // mod 2). double: G exp(log(U) (1/a)); float: G 2^(log2(U) (1/a)).
  const auto x = rng::philox_bits(3, rj::kGammaStreams + 2, 0, 1);
  EXPECT_EQ(rj::gamma_draw(0.4, 3, 5), rj::gamma_draw(0.4 + 1.0, 3, 5) * std::exp(std::log(rj::open_uniform53(x.v[2], x.v[3])) * (1 / 0.4)));
  EXPECT_EQ(rj::gamma_draw(0.4, 3, 4), rj::gamma_draw(0.4 + 1.0, 3, 4) * std::exp(std::log(rj::open_uniform53(x.v[0], x.v[1])) * (1 / 0.4)));
  const float u = rj::open_uniform23(x.v[1]);
  EXPECT_EQ(rj::gamma_draw(0.4f, 3, 5), rj::gamma_draw(1.4f, 3, 5) * std::exp2(std::log2(u) * (1 / 0.4f)));
  // float, where 2^l underflows: (G 2^(l + 64)) 2^-64, clamped at FLT_MIN
  const float l = std::log2(u) * (1 / 0.01f);
  EXPECT_LT(std::exp2(l), std::numeric_limits<float>::min());
  EXPECT_EQ(rj::gamma_draw(0.01f, 3, 5), std::max(rj::gamma_draw(1.01f, 3, 5) * std::exp2(l + 64.0f) * 0x1p-64f, std::numeric_limits<float>::min()));
  // fp32 tasks 2P and 2P + 1 share a block: attempt 0's zig words differ.
  EXPECT_NE(rj::gamma_attempt_numbers<float>(3, 4, 0).normal, rj::gamma_attempt_numbers<float>(3, 5, 0).normal);
}

// rng/ziggurat.hpp: the layers close (the top layer's area reaches f(0) = 1
// within the tables' rounding), the widths fall, and the fast test's
// thresholds are below 2^bits.
TEST(Gamma, ZigguratTablesClose) {
  const auto t = rng::make_ziggurat_tables<double>();
  const int top = rng::kZigguratLayers - 1;
  EXPECT_NEAR(rng::kZigguratArea / t.x[top] + t.f[top], 1.0, 1e-9);
  for (int i = 1; i < rng::kZigguratLayers; ++i) EXPECT_LT(t.x[i], t.x[i - 1]) << i;
  EXPECT_EQ(t.fast[top], 0u) << "the top layer is all wedge";
  double fast = 0;  // the fast test's share of draws: 98.5% with 256 layers
  for (int i = 0; i < rng::kZigguratLayers; ++i) fast += static_cast<double>(t.fast[i]) * 0x1p-53 / rng::kZigguratLayers;
  EXPECT_NEAR(fast, 0.985, 0.001);
  const auto f = rng::make_ziggurat_tables<float>();
  for (int i = 0; i < rng::kZigguratLayers; ++i) EXPECT_LE(f.fast[i], 1u << 23) << i;
}

// The attempts' normals (those the ziggurat accepts) are N(0, 1): KS and
// Anderson-Darling on 200,000 of each precision, alpha 1e-6 each; and about
// 99.3% of the ziggurat's draws pass (256 layers: 1 - 0.0072).
TEST(Gamma, ZigguratNormalsAreStandardNormal) {
  const boost::math::normal_distribution<double> law;
  auto cdf = [&](double v) { return boost::math::cdf(law, v); };
  for (const bool fp32 : {false, true}) {
    std::vector<double> x;
    std::size_t draws = 0;
    for (std::uint64_t t = 0; x.size() < 200000; ++t) {
      ++draws;
      if (fp32) {
        const auto a = rj::gamma_attempt_numbers<float>(29, t, 0);
        if (a.ok) x.push_back(a.normal);
      } else {
        const auto a = rj::gamma_attempt_numbers<double>(29, t, 0);
        if (a.ok) x.push_back(a.normal);
      }
    }
    EXPECT_FALSE(stats::ks_continuous_test(x, cdf, {.alpha = 1e-6}).reject) << (fp32 ? "float" : "double");
    EXPECT_FALSE(stats::ad_continuous_test(x, cdf, {}, {.alpha = 1e-6}).reject) << (fp32 ? "float" : "double");
    EXPECT_NEAR(static_cast<double>(x.size()) / static_cast<double>(draws), 0.9928, 0.001);
  }
}

// The underflow rule: a variate below R's smallest normal number is that
// number. At a = 0.01 the law puts P(X <= FLT_MIN) = 0.4199 and P(X <=
// DBL_MIN) = 8.4e-4 there; 200,000 draws in float and 10^6 in double, the
// counts within 5 standard deviations (a false alarm with probability 6e-7
// each); nothing is 0 or subnormal, and the law above is the gamma law (KS,
// alpha 1e-6, of the draws above the smallest normal, against the law given
// X > min).
TEST(Gamma, UnderflowIsTheSmallestNormal) {
  auto check = [](auto zero, std::size_t n) {
    using R = decltype(zero);
    const R a = R(0.01), min = std::numeric_limits<R>::min();
    const double p = boost::math::gamma_p(0.01, static_cast<double>(min));
    std::size_t at_min = 0;
    std::vector<double> above;
    for (std::size_t i = 0; i < n; ++i) {
      const R g = rj::gamma_draw<R>(a, 31, i);
      ASSERT_GE(g, min) << i;
      if (g == min) ++at_min;
      else above.push_back(static_cast<double>(g));
    }
    const double mean = p * static_cast<double>(n), sd = std::sqrt(mean * (1 - p));
    EXPECT_NEAR(static_cast<double>(at_min), mean, 5 * sd) << (sizeof(R) == 4 ? "float" : "double") << ", P = " << p;
    const boost::math::gamma_distribution<double> law(0.01);
    const double low = boost::math::cdf(law, static_cast<double>(min));
    EXPECT_FALSE(stats::ks_continuous_test(above, [&](double v) { return (boost::math::cdf(law, v) - low) / (1 - low); }, {.alpha = 1e-6}).reject);
  };
  check(0.0f, 200000);
  check(0.0, 1000000);
}

// A Dirichlet(0.5, 2, 7.5) component is Beta(a_i, sum - a_i): KS on 20,000
// draws of the first and last (alpha 1e-6 each).
TEST(Gamma, DirichletMarginalsAreBeta) {
  const std::vector<double> alpha = {0.5, 2, 7.5};
  std::vector<double> first(20000), last(20000);
  for (std::size_t i = 0; i < first.size(); ++i) {
    const auto d = rj::dirichlet_draw(alpha, 23, 3 * i);
    EXPECT_NEAR(d[0] + d[1] + d[2], 1.0, 1e-15);
    first[i] = d[0];
    last[i] = d[2];
  }
  const boost::math::beta_distribution<double> b0(0.5, 9.5), b2(7.5, 2.5);
  EXPECT_FALSE(stats::ks_continuous_test(first, [&](double v) { return boost::math::cdf(b0, std::clamp(v, 0.0, 1.0)); }, {.alpha = 1e-6}).reject);
  EXPECT_FALSE(stats::ks_continuous_test(last, [&](double v) { return boost::math::cdf(b2, std::clamp(v, 0.0, 1.0)); }, {.alpha = 1e-6}).reject);
}

// LDA's half sweep on a small corpus: the counts are z's, each phi column
// sums to 1, and the theta entries' probability transforms F_{alpha + n}(theta)
// are uniform (KS, alpha 1e-6).
TEST(Gamma, LdaTopicsFromZ) {
  const int k = 8, vocabulary = 50, documents = 200;
  std::vector<int> offsets = {0}, words, z;
  for (int m = 0; m < documents; ++m) {
    const int len = 5 + (m * 7) % 40;
    for (int i = 0; i < len; ++i) {
      words.push_back((m * 31 + i * 17) % vocabulary);
      z.push_back((m + i * i) % k);
    }
    offsets.push_back(static_cast<int>(words.size()));
  }
  const auto r = rj::lda_topic_draws(z, offsets, words, vocabulary, k, 0.1, 0.01, 5);
  int total = 0;
  for (int c : r.theta_counts) total += c;
  EXPECT_EQ(total, static_cast<int>(z.size()));
  EXPECT_EQ(r.theta_counts[0], 2) << "document 0 (5 tokens), topic 0: i = 0 and 4 (i^2 mod 8 = 0)";
  for (int j = 0; j < k; ++j) {
    double s = 0;
    for (int c = 0; c < vocabulary; ++c) s += r.phi[static_cast<std::size_t>(c * k + j)];
    EXPECT_NEAR(s, 1.0, 1e-12) << "topic " << j;
  }
  std::vector<double> pit(r.theta.size());
  for (std::size_t i = 0; i < pit.size(); ++i) pit[i] = boost::math::gamma_p(0.1 + r.theta_counts[i], r.theta[i]);
  EXPECT_FALSE(stats::ks_continuous_test(pit, [](double v) { return std::clamp(v, 0.0, 1.0); }, {.alpha = 1e-6}).reject);
}
