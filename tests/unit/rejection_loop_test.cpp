// oracle/rejection/loop_model.hpp: the exact law of a warp's rejection-loop
// iterations (seed 004), against closed forms, against itself computed the
// note's way, and against seed 004's listings run lane by lane; and the
// note's claims, checked (docs/errata.md E20-E22).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "oracle/rejection/loop_model.hpp"
#include "oracle/rejection/loop_warp.hpp"
#include "stats/goodness_of_fit.hpp"

using namespace warpsim;
namespace rj = warpsim::oracle::rejection;

namespace {

// Seed 004's listings run lane by lane (std::mt19937_64, fixed seeds): a
// lane's proposal is accepted with probability p. Returns each call's warp
// iterations; `starts`, where given, gets each call's (lanes without a
// current sample, lanes holding a cached one) after the listing's first
// lines.
std::vector<int> run_uncached(int K, double p, int calls, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::bernoulli_distribution accept(p);
  std::vector<int> out;
  for (int call = 0; call < calls; ++call) {
    std::vector<bool> done(static_cast<std::size_t>(K), false);
    int iterations = 0;
    bool any_left = true;
    while (any_left) {  // do { x = g(); } while (!a(x)) on every lane: the warp runs while any lane loops
      ++iterations;
      any_left = false;
      for (int l = 0; l < K; ++l) {
        if (!done[static_cast<std::size_t>(l)]) done[static_cast<std::size_t>(l)] = accept(gen);
        any_left = any_left || !done[static_cast<std::size_t>(l)];
      }
    }
    out.push_back(iterations);
  }
  return out;
}

std::vector<int> run_cached(int K, double p, int calls, std::uint64_t seed, std::vector<std::pair<int, int>>* starts = nullptr) {
  std::mt19937_64 gen(seed);
  std::bernoulli_distribution accept(p);
  std::vector<bool> cached_valid(static_cast<std::size_t>(K), false);  // static across calls (same parameters every call)
  std::vector<int> out;
  for (int call = 0; call < calls; ++call) {
    std::vector<bool> current_valid(static_cast<std::size_t>(K));
    for (int l = 0; l < K; ++l) {
      current_valid[static_cast<std::size_t>(l)] = cached_valid[static_cast<std::size_t>(l)];  // currentValid = cachedValid && same parms
      cached_valid[static_cast<std::size_t>(l)] = false;
    }
    if (starts != nullptr) {
      const int r = static_cast<int>(std::count(current_valid.begin(), current_valid.end(), false));
      const int c = static_cast<int>(std::count(cached_valid.begin(), cached_valid.end(), true));
      starts->emplace_back(r, c);
    }
    int iterations = 0;
    bool all = false;
    do {
      ++iterations;
      for (int l = 0; l < K; ++l) {
        const auto i = static_cast<std::size_t>(l);
        const bool valid = accept(gen);  // sample = g(); valid = a(sample)
        if (!current_valid[i]) current_valid[i] = valid;
        else if (!cached_valid[i]) cached_valid[i] = valid;
      }
      all = std::all_of(current_valid.begin(), current_valid.end(), [](bool v) { return v; });
    } while (!all);  // __all(currentValid)
    out.push_back(iterations);
  }
  return out;
}

double mean_of(const std::vector<int>& x) { return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size()); }

// |z| of the sample mean against the model's (the sample's own standard
// error): below 5 but with probability 5.7e-7.
double z_of_mean(const std::vector<int>& x, double model) {
  const double m = mean_of(x);
  double ss = 0;
  for (int v : x) ss += (v - m) * (v - m);
  const double se = std::sqrt(ss / static_cast<double>(x.size() - 1) / static_cast<double>(x.size()));
  return std::fabs(m - model) / se;
}

// A chi-square of the iteration counts against the model's law (alpha
// 1e-6, pooled below 5 expected).
stats::TestResult counts_against(const std::vector<int>& x, const rj::LoopLaw& law) {
  std::vector<double> observed(law.pmf.size() + 1, 0.0), p(law.pmf.begin(), law.pmf.end());
  p.push_back(law.tail);
  for (int v : x) ++observed[std::min(static_cast<std::size_t>(v), law.pmf.size())];
  stats::GofOptions opt;
  opt.alpha = 1e-6;
  return stats::chi_square_test(observed, p, opt);
}

TEST(RejectionLoop, OneLaneIsGeometric) {
  for (const double p : {0.05, 0.3, 0.8, 1.0}) {
    const auto law = rj::uncached_loop(1, p);
    EXPECT_NEAR(law.mean, 1 / p, 1e-12 / p);
    EXPECT_EQ(law.pmf[0], 0.0);
    for (std::size_t n = 1; n < std::min<std::size_t>(law.pmf.size(), 40); ++n) EXPECT_NEAR(law.pmf[n], p * std::pow(1 - p, static_cast<double>(n) - 1), 1e-15) << n;
    // One lane caches nothing: the call that gets its sample ends at once.
    EXPECT_NEAR(rj::cached_loop(1, p).loop.mean, 1 / p, 1e-10 / p);
  }
}

TEST(RejectionLoop, MeanIsTheMaximumOfGeometrics) {
  for (const int K : {1, 2, 5, 16, 32, 64}) {
    for (const double p : {0.01, 0.2, 0.5, 0.8, 0.99, 1.0}) {
      const auto law = rj::uncached_loop(K, p);
      EXPECT_NEAR(law.mean, rj::uncached_mean_series(K, p), 1e-9 * law.mean) << K << " lanes, p " << p;
      if (K <= 16) {
        EXPECT_NEAR(law.mean, rj::uncached_mean_alternating(K, p), 1e-7 * law.mean) << K << " lanes, p " << p;
      }
      const double total = std::accumulate(law.pmf.begin(), law.pmf.end(), 0.0) + law.tail;
      EXPECT_NEAR(total, 1.0, 1e-12);
      double m = 0;
      for (std::size_t n = 0; n < law.pmf.size(); ++n) m += static_cast<double>(n) * law.pmf[n];
      EXPECT_NEAR(m, law.mean, 1e-6 * law.mean);
    }
  }
  EXPECT_EQ(rj::uncached_loop(32, 1.0).mean, 1.0);
  EXPECT_EQ(rj::cached_loop(32, 1.0).loop.mean, 1.0);
}

TEST(RejectionLoop, BadLanesOrProbabilityAreRefused) {
  EXPECT_THROW(rj::uncached_loop(0, 0.5), std::invalid_argument);
  EXPECT_THROW(rj::uncached_loop(65, 0.5), std::invalid_argument);
  EXPECT_THROW(rj::uncached_loop(32, 0.0), std::invalid_argument);
  EXPECT_THROW(rj::cached_loop(32, 1.5), std::invalid_argument);
  EXPECT_THROW(rj::cached_loop(32, std::nan("")), std::invalid_argument);
}

// The steady state by the note's method (T* by powers, the map iterated)
// and by the fundamental matrix agree (to 1e-9: the powers round more); the listing's forced first
// iteration and the note's absorbing start give the same law, because no
// call ever starts with every lane served.
TEST(RejectionLoop, SteadyStateTwoWaysAndBothVariantsAgree) {
  for (const int K : {2, 5, 8}) {
    for (const double p : {0.1, 0.5, 0.9}) {
      const auto fast = rj::cached_loop(K, p);
      EXPECT_LT(fast.residual, 1e-12);
      const Eigen::VectorXd powers = rj::cached_steady_state_by_powers(K, p);
      EXPECT_LT((fast.cached_at_return - powers).cwiseAbs().maxCoeff(), 1e-9) << K << " lanes, p " << p;
      EXPECT_NEAR(fast.cached_at_return.sum(), 1.0, 1e-12);
      EXPECT_EQ(fast.cached_at_return(K), 0.0) << "a return with every lane holding a cached sample";
      const auto note = rj::cached_loop(K, p, rj::CachedVariant::note_chain);
      EXPECT_NEAR(note.loop.mean, fast.loop.mean, 1e-10 * fast.loop.mean);
      EXPECT_LE(fast.loop.mean, rj::uncached_loop(K, p).mean + 1e-12);
    }
  }
}

// The model and the listings run lane by lane agree: means (z below 5) and
// the whole law (chi-square, alpha 1e-6), uncached and pre-cached, 32 lanes.
TEST(RejectionLoop, ListingsRunLaneByLaneFollowTheModel) {
  for (const double p : {0.3, 0.8, 0.95}) {
    const auto u = rj::uncached_loop(32, p);
    const auto x = run_uncached(32, p, 40000, 17);
    EXPECT_LT(z_of_mean(x, u.mean), 5.0) << "uncached, p " << p << ": " << mean_of(x) << " against " << u.mean;
    const auto ru = counts_against(x, u);
    EXPECT_FALSE(ru.reject) << "uncached, p " << p << ": p-value " << ru.p_value;
    const auto c = rj::cached_loop(32, p);
    auto y = run_cached(32, p, 40100, 23);
    y.erase(y.begin(), y.begin() + 100);  // from the first call's empty cache to the steady state
    EXPECT_LT(z_of_mean(y, c.loop.mean), 5.0) << "cached, p " << p << ": " << mean_of(y) << " against " << c.loop.mean;
    const auto rc = counts_against(y, c.loop);
    EXPECT_FALSE(rc.reject) << "cached, p " << p << ": p-value " << rc.p_value;
  }
}

// The loops written on the warp model (a while-any loop; a uniform loop on
// an all vote), their iterations counted by the model, follow the exact law:
// mean (|z| < 5) and chi-square (alpha 1e-6), 4 and 32 lanes.
TEST(RejectionLoop, LoopsOnTheWarpModelFollowTheExactLaw) {
  for (const auto& [K, p] : {std::pair{32, 0.8}, std::pair{4, 0.5}}) {
    const auto u = rj::uncached_loop(K, p);
    const auto x = rj::uncached_on_warp(K, p, 31, 20000);
    EXPECT_LT(z_of_mean(x, u.mean), 5.0) << K << " lanes, uncached: " << mean_of(x) << " against " << u.mean;
    EXPECT_FALSE(counts_against(x, u).reject) << K << " lanes, uncached";
    const auto c = rj::cached_loop(K, p);
    auto y = rj::cached_on_warp(K, p, 37, 20100);
    y.erase(y.begin(), y.begin() + 100);
    EXPECT_LT(z_of_mean(y, c.loop.mean), 5.0) << K << " lanes, pre-cached: " << mean_of(y) << " against " << c.loop.mean;
    EXPECT_FALSE(counts_against(y, c.loop).reject) << K << " lanes, pre-cached";
  }
  // Every lane accepting at once: one iteration, both loops.
  EXPECT_EQ(rj::uncached_on_warp(8, 1.0, 1, 3), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(rj::cached_on_warp(8, 1.0, 1, 3), (std::vector<int>{1, 1, 1}));
}

// E20. Seed 004: "states (r=0,c) at the output map to states (r=K,c) at the
// input". As printed the state is outside the chain (c <= K - r); the
// listing's first lines make every cached sample current and empty the
// cache: a call starts at (K - c, 0).
TEST(RejectionErrata, E20CallsStartWithTheCacheMadeCurrent) {
  std::vector<std::pair<int, int>> starts;
  run_cached(8, 0.6, 20000, 5, &starts);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    EXPECT_EQ(starts[i].second, 0) << "call " << i << " starts with a cached sample";
    EXPECT_GE(starts[i].first, 1) << "call " << i << " starts with every lane served";
  }
  // The state the note names is not in the chain: (K, c) for c > 0 has no index.
  const rj::CachedChain ch(8, 0.6);
  EXPECT_EQ(ch.states(), 9 * 10 / 2);
  // And the model with (K - c, 0) is the listing's law (above); the count of
  // calls starting with r = K is the steady state's P(c = 0 at return).
  const auto c = rj::cached_loop(8, 0.6);
  const auto full = static_cast<double>(std::count_if(starts.begin() + 100, starts.end(), [](auto s) { return s.first == 8; }));
  const double n = static_cast<double>(starts.size() - 100), q = c.cached_at_return(0);
  EXPECT_LT(std::fabs(full / n - q) / std::sqrt(q * (1 - q) / n), 5.0) << full / n << " against " << q;
}

// E21. Seed 004: "with a relatively low p like 0.8, ... on average the method
// will take about 3 times as long as we might expect". E[L_32] at p = 0.8 is
// 3.018 iterations: 3 times one iteration, but 2.41 times the scalar loop's
// 1/p = 1.25, which is what one would expect.
TEST(RejectionErrata, E21ThreeTimesIsTheIterationCountNotTheRatio) {
  const double m = rj::uncached_loop(32, 0.8).mean;
  EXPECT_NEAR(m, 3.0177, 1e-4);
  EXPECT_NEAR(m / (1 / 0.8), 2.414, 1e-3);
}

// E22. Seed 004: "up until p becomes very close to 1, the uncached version
// takes on average 60% more iterations than the cached version". At 32
// lanes the ratio is 1.64-1.71 for p <= 0.8 (65-70% more), 1.60 at 0.9,
// 1.55 at 0.95, and falls to 1.22 at 0.99 and 1.03 at 0.999.
TEST(RejectionErrata, E22UncachedOverCachedIsSixtyToSeventyPercent) {
  auto ratio = [](double p) { return rj::uncached_loop(32, p).mean / rj::cached_loop(32, p).loop.mean; };
  for (const double p : {0.05, 0.2, 0.5, 0.8}) {
    EXPECT_GT(ratio(p), 1.63) << p;
    EXPECT_LT(ratio(p), 1.71) << p;
  }
  EXPECT_NEAR(ratio(0.9), 1.597, 1e-3);
  EXPECT_NEAR(ratio(0.95), 1.546, 1e-3);
  EXPECT_NEAR(ratio(0.99), 1.221, 1e-3);
  EXPECT_NEAR(ratio(0.999), 1.027, 1e-3);
}

}  // namespace

// Seed 004's other statements, each checked (docs/seed-statements.md).
TEST(SeedStatements, Seed004FirstIterationServesTheWarpWithProbabilityPToTheK) {
  // "the probability that all threads generate a valid sample ... on a given iteration is p^K"
  // (the first: P(L_K = 1)), and "even very large values of p result in very low probabilities"
  for (const int K : {1, 2, 8, 32}) {
    for (const double p : {0.5, 0.8, 0.9, 0.99}) EXPECT_NEAR(rj::uncached_loop(K, p).pmf[1], std::pow(p, K), 1e-15) << K << ", " << p;
  }
  EXPECT_LT(std::pow(0.9, 32), 0.035);  // p = 0.9 on 32 lanes: 3.4%
  EXPECT_LT(std::pow(0.95, 32), 0.2);   // p = 0.95: 19%
}

TEST(SeedStatements, Seed004CachedNeverTakesMoreIterationsOnAverage) {
  // "the cached version always has the same or better performance than the
  // original version" (in loop iterations): the steady state's mean against
  // the uncached loop's, over p and K
  for (const int K : {1, 2, 4, 8, 16, 32}) {
    for (const double p : {0.05, 0.2, 0.5, 0.8, 0.95, 0.999}) {
      EXPECT_LE(rj::cached_loop(K, p).loop.mean, rj::uncached_loop(K, p).mean * (1 + 1e-9)) << K << " lanes, p " << p;
    }
  }
}

// Errata E24: the note starts its chain at r = 0 and reads the CDF of L_K off
// the state r = K, with r "the number of threads that still need to generate
// a number". As printed the walk never moves (r = 0 is the finished state);
// started at r = K and read at r = 0 it gives the law of L_K.
TEST(RejectionErrata, E24TheChainStartsAtKAndEndsAtZero) {
  constexpr int K = 4;
  constexpr double p = 0.8;
  // T[r][r'] = P(r' of r threads still waiting after an iteration) = Binomial(r, 1 - p) at r'
  auto step = [&](const std::vector<double>& s) {
    std::vector<double> next(K + 1, 0.0);
    for (int r = 0; r <= K; ++r) {
      const auto row = rj::detail::binomial_row(r, 1 - p);
      for (int q = 0; q <= r; ++q) next[static_cast<std::size_t>(q)] += s[static_cast<std::size_t>(r)] * row[static_cast<std::size_t>(q)];
    }
    return next;
  };
  std::vector<double> printed(K + 1, 0.0), fixed(K + 1, 0.0);
  printed[0] = 1;  // "before the first iteration we know that r = 0"
  fixed[K] = 1;
  const auto law = rj::uncached_loop(K, p);
  double cdf = 0;
  ASSERT_GE(law.pmf.size(), 10u);
  for (std::size_t n = 1; n < law.pmf.size(); ++n) {
    printed = step(printed);
    fixed = step(fixed);
    cdf += law.pmf[n];
    EXPECT_EQ(printed[K], 0.0) << n;        // "the probability for r = K ... gives the CDF": always 0
    EXPECT_NEAR(fixed[0], cdf, 1e-12) << n;  // P(r = 0 after n iterations) = P(L_K <= n) (the law stops at a tail of 1e-12)
  }
}

// Issue 55: tiny p. The means come from 1 - (1 - p)^r without cancellation
// (for p = 1e-300, 1 - p rounds to 1 and I - Q was singular: a mean of inf),
// and a law's pmf is stepped through a bounded number of iterations, its
// tail stated (at p = 1e-4 on 64 lanes it took over a minute).
TEST(RejectionLoop, TinyProbabilitiesHaveExactMeansInBoundedTime) {
  EXPECT_NEAR(rj::uncached_loop(1, 1e-300).mean / 1e300, 1.0, 1e-12);
  const double h64 = [] {
    double h = 0;
    for (int k = 1; k <= 64; ++k) h += 1.0 / k;
    return h;
  }();
  // the maximum of 64 geometrics of p: H_64 / p to first order (1/2 less, roughly)
  EXPECT_NEAR(rj::uncached_loop(64, 1e-300).mean * 1e-300, h64, 1e-9);
  const auto law = rj::uncached_loop(64, 1e-4);
  EXPECT_NEAR(law.mean, rj::uncached_mean_series(64, 1e-4), 1e-9 * law.mean);
  EXPECT_LE(law.pmf.size(), rj::kMaxPmfIterations + 1);
  EXPECT_GT(law.tail, 0.0);  // stated, not hidden
  const auto c = rj::cached_loop(64, 1e-4);
  EXPECT_TRUE(std::isfinite(c.loop.mean));
  EXPECT_LT(c.loop.mean, law.mean);
  EXPECT_GT(c.loop.mean, 1 / 1e-4);  // at least a scalar loop's
}
