// oracle/rejection/gamma.hpp: Marsaglia-Tsang's variates against Boost.Math's
// gamma CDF (KS, with the power each pass states), the attempts they take,
// the Dirichlet draws' beta marginals, and LDA's theta and phi from z.
#include <gtest/gtest.h>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <cmath>
#include <vector>

#include "oracle/rejection/gamma.hpp"
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
    // Marsaglia and Tsang: at least 95% of attempts accepted for shapes >= 1 (the boosted ones included).
    EXPECT_LT(static_cast<double>(attempts) / static_cast<double>(x.size()), 1.0 / 0.95) << "shape " << a;
  }
}

// The float variant (what fp32 kernels compute): the same law, 20,000 draws
// a shape, alpha 1e-6 each.
TEST(Gamma, FloatVariatesFollowTheGammaLaw) {
  for (const float a : {0.05f, 0.3f, 1.0f, 2.5f, 30.0f, 1000.0f}) {
    std::vector<double> x(20000);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = rj::gamma_draw<float>(a, 19, i);
    const boost::math::gamma_distribution<double> law(a);
    const auto r = stats::ks_continuous_test(x, [&](double v) { return v <= 0 ? 0.0 : boost::math::cdf(law, v); }, {.alpha = 1e-6});
    EXPECT_FALSE(r.reject) << "shape " << a << ": D = " << r.statistic << ", p = " << r.p_value;
  }
}

TEST(Gamma, DrawsAreFixedByTaskAndSeed) {
  EXPECT_EQ(rj::gamma_draw(2.5, 3, 99), rj::gamma_draw(2.5, 3, 99));
  EXPECT_NE(rj::gamma_draw(2.5, 3, 99), rj::gamma_draw(2.5, 3, 100));
  EXPECT_NE(rj::gamma_draw(2.5, 3, 99), rj::gamma_draw(2.5, 4, 99));
  // Shapes below 1: Gamma(a + 1)'s variate of the same task times U^(1/a),
  // U from the block (seed, 2^63 + task, 0, word3 1).
  const auto x = rng::philox_bits(3, rj::kGammaStreams + 5, 0, 1);
  EXPECT_EQ(rj::gamma_draw(0.4, 3, 5), rj::gamma_draw(0.4 + 1.0, 3, 5) * std::exp(std::log(rj::open_uniform53(x.v[0], x.v[1])) / 0.4));
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
