// rng/binomial.hpp: the logarithm from rounded operations, and the binomial
// variates' law against Boost.Math's binomial distribution, in every regime
// (BTRS for n p >= 10, geometric gaps below, p > 1/2 by symmetry).
#include <gtest/gtest.h>

#include <boost/math/distributions/binomial.hpp>

#include <cmath>
#include <set>
#include <vector>

#include "rng/binomial.hpp"
#include "stats/goodness_of_fit.hpp"

using namespace warpsim;

namespace {

TEST(LogRn, IsWithinFourUlpOfTheLibraryLog) {
  std::vector<double> xs = {1.0, 0.5, 2.0, 0x1.6a09e667f3bcdp+0, 0x1.6a09e667f3bccp+0, 1 + 0x1p-52, 1 - 0x1p-53, 0.92, 1e-300, 1e300,
                            0x1p-1074, 0x1p-1022, 3.0, 10.0, 1e-17};
  std::uint64_t s = 1;
  for (int i = 0; i < 100000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    xs.push_back(std::ldexp(static_cast<double>(s >> 11) * 0x1p-53 + 0.5, static_cast<int>(s % 200) - 100));
  }
  for (double x : xs) {
    const double want = std::log(x), got = rng::log_rn(x);
    const double ulp = std::max(std::abs(std::nextafter(want, 0.0) - want), 0x1p-1074);
    EXPECT_LE(std::abs(got - want), 4 * ulp) << std::hexfloat << x << ": " << got << " vs " << want;
  }
  EXPECT_EQ(rng::log_rn(0.0), -HUGE_VAL);
  EXPECT_EQ(rng::log_rn(1.0), 0.0);
}

TEST(Binomial, EdgeCasesNeedNoUniforms) {
  int used = 0;
  auto next = [&] {
    ++used;
    return 0.5;
  };
  EXPECT_EQ(rng::binomial(0, 0.5, next), 0u);
  EXPECT_EQ(rng::binomial(100, 0.0, next), 0u);
  EXPECT_EQ(rng::binomial(100, 1.0, next), 100u);
  EXPECT_EQ(used, 0);
}

// 10^5 draws of Binomial(n, p), each case on its own Philox streams, in 40
// bins of about equal probability (edges at Boost's quantiles), against the
// bins' exact probabilities. Each case rejects a correct generator with
// probability 10^-3 (9 cases: at most 0.9% for the test), and detects a
// total-variation distance of about 0.02 between the binned laws with power 0.9.
struct Case {
  std::uint64_t n;
  double p;
};

class BinomialLaw : public testing::TestWithParam<Case> {};

TEST_P(BinomialLaw, MatchesBoostsDistribution) {
  const auto [n, p] = GetParam();
  const boost::math::binomial_distribution<double> law(static_cast<double>(n), p);
  std::set<double> edges;  // bin j holds (edge j-1, edge j]
  for (int j = 1; j < 40; ++j) {
    using namespace boost::math::policies;
    const boost::math::binomial_distribution<double, policy<discrete_quantile<integer_round_down>>> q(static_cast<double>(n), p);
    edges.insert(boost::math::quantile(q, j / 40.0));
  }
  std::vector<double> edge(edges.begin(), edges.end());
  std::vector<double> prob, observed(edge.size() + 1, 0.0);
  double below = 0;
  for (double e : edge) {
    const double c = boost::math::cdf(law, e);
    prob.push_back(c - below);
    below = c;
  }
  prob.push_back(1 - below);
  const int draws = 100000;
  const std::uint64_t seed = 20261122 + n;
  for (int i = 0; i < draws; ++i) {
    std::uint32_t j = 0;
    auto next = [&] { return rng::uniform<double>(seed, static_cast<std::uint64_t>(i), 7, ++j); };
    const auto k = rng::binomial(n, p, next);
    ASSERT_LE(k, n);
    const auto bin = static_cast<std::size_t>(std::lower_bound(edge.begin(), edge.end(), static_cast<double>(k)) - edge.begin());
    observed[bin] += 1;
  }
  stats::GofOptions g;
  g.alpha = 1e-3;
  const auto r = stats::chi_square_test(observed, prob, g);
  EXPECT_FALSE(r.reject) << "Binomial(" << n << ", " << p << "): p-value " << r.p_value;
  EXPECT_LT(*r.detectable.total_variation, 0.025);
}

INSTANTIATE_TEST_SUITE_P(Regimes, BinomialLaw,
                         testing::Values(Case{1000000000, 0.5}, Case{1000000000, 1.0 / 3}, Case{999999999, 0.49999999}, Case{123457, 0.3},
                                         Case{40, 0.5}, Case{24, 0.4}, Case{10000000, 3e-7}, Case{1000, 0.9}, Case{7, 0.5}));

TEST(Binomial, SectionSplitIsTheBinomialOfItsOwnUniforms) {
  // The node's uniforms are (seed, stream batch, draw node, word3 1, 2, ...):
  // the same call gives the same count; another node or batch, another.
  const auto a = rng::section_split(5, 0, 1, 1000000, 500, 1001);
  EXPECT_EQ(a, rng::section_split(5, 0, 1, 1000000, 500, 1001));
  std::uint32_t j = 0;
  auto next = [&] { return rng::uniform<double>(5, 0, 1, ++j); };
  EXPECT_EQ(a, rng::binomial(1000000, 500.0 / 1001.0, next));
  EXPECT_NE(a, rng::section_split(5, 0, 2, 1000000, 500, 1001));
  EXPECT_NE(a, rng::section_split(5, 4096, 1, 1000000, 500, 1001));
}

}  // namespace
