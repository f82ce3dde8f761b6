// oracle/rejection/bringmann_larsen.hpp: the structure against its
// definition (Occ_i, the bit array and its rank), the law the attempts give,
// the draws on the warp model (uncached and pre-cached) against the host's,
// the model's iterations against seed 004's exact law, and errata E19.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <vector>

#include "oracle/rejection/bringmann_larsen.hpp"
#include "oracle/rejection/loop_model.hpp"
#include "stats/goodness_of_fit.hpp"
#include "tests/alias_test_weights.hpp"

using namespace warpsim;
namespace rj = warpsim::oracle::rejection;
namespace alias = warpsim::oracle::alias;

namespace {

std::vector<std::vector<double>> inputs() {
  return {test::shuffled_power_law<double>(3000, 7), test::uniform_weights<double>(2500, 5), {0, 2.5, 0, 1}, {7}, {0, 0, 3, 0},
          {1, 1, 1, 1, 1}, {1e-300, 1, 1e300}};
}

// Slot k's item by the definition: the last item whose first slot is <= k.
std::vector<std::uint32_t> items_of_slots(const alias::Units& u) {
  std::vector<std::uint32_t> a;
  for (std::size_t i = 0; i < u.units.size(); ++i) {
    const auto o = rj::occupancy(u.units[i], u.units.size(), u.total);
    a.insert(a.end(), o.occ, static_cast<std::uint32_t>(i));
  }
  return a;
}

}  // namespace

TEST(BringmannLarsen, TheBitArrayAndRankGiveTheArrayA) {
  for (const auto& w : inputs()) {
    const auto u = alias::to_units<double>(w);
    const auto s = rj::build(u);
    const auto a = items_of_slots(u);
    ASSERT_EQ(s.slots, a.size());
    EXPECT_GE(s.slots, s.n);
    EXPECT_LE(s.slots, 2 * s.n);
    ASSERT_EQ(s.words.size(), (a.size() + 63) / 64);
    std::uint64_t ones = 0;
    for (const auto& word : s.words) ones += static_cast<std::uint64_t>(std::popcount(word.bits));
    EXPECT_EQ(ones, s.n) << "one bit an item";
    for (std::uint64_t k = 0; k < s.slots; ++k) {
      const auto at = rj::slot(s.words[k / 64], k);
      ASSERT_EQ(at.item, a[k]) << k;
      ASSERT_EQ(at.first, k == 0 || a[k - 1] != a[k]) << k;  // the seed's test for a first occurrence
    }
  }
}

// The build on the warp model (a kernel's scan and binary searches) is the
// definition's, on warps of 4, 32 and 64 lanes.
TEST(BringmannLarsen, TheModelsBuildIsTheDefinitions) {
  for (const auto& w : inputs()) {
    const auto u = alias::to_units<double>(w);
    const auto want = rj::build(u);
    for (const int width : {4, 32, 64}) {
      const auto got = rj::build_on_model(u, width);
      EXPECT_EQ(got.slots, want.slots) << width;
      EXPECT_EQ(got.capacity, want.capacity);
      EXPECT_EQ(got.words, want.words) << width;
      EXPECT_EQ(got.threshold, want.threshold) << width;
    }
  }
}

TEST(BringmannLarsen, AnAttemptAcceptsEachItemAtItsUnitsWithin2ToTheMinus64) {
  for (const auto& w : inputs()) {
    const auto u = alias::to_units<double>(w);
    const auto s = rj::build(u);
    const auto mass = rj::accepted_mass(s);
    alias::u128 total = 0;
    for (std::size_t i = 0; i < s.n; ++i) {
      // mass_i / 2^64 = q_i + t_i / 2^64 against N u_i / U = q_i + r_i / U: t_i U <= r_i 2^64 < (t_i + 1) U.
      const auto o = rj::occupancy(u.units[i], s.n, u.total);
      const alias::u128 q = o.occ - 1;
      EXPECT_EQ(mass[i] >> 64, q) << i;
      const auto t = static_cast<std::uint64_t>(mass[i]);
      EXPECT_LE(static_cast<alias::u128>(t) * u.total, static_cast<alias::u128>(o.remainder) << 64) << i;
      EXPECT_LT(static_cast<alias::u128>(o.remainder) << 64, (static_cast<alias::u128>(t) + 1) * u.total) << i;
      if (u.units[i] == 0) {
        EXPECT_EQ(mass[i], 0u) << "an item of weight 0 is never accepted";
      }
      total += mass[i];
    }
    // The accepted slots add up to N slots, less under 2^-64 a first slot.
    EXPECT_LE(total, static_cast<alias::u128>(s.n) << 64);
    EXPECT_GT(total + s.n, static_cast<alias::u128>(s.n) << 64);
  }
}

// Errata E19: "The probability for accepting a sample is > 0.5" -- it is
// N / M >= 1/2, and exactly 1/2 where every N w_i / W is a whole number.
TEST(RejectionErrata, E19AcceptanceIsAtLeastOneHalfNotAbove) {
  const auto uniform = rj::build<double>(std::vector<double>(1000, 1.0));
  EXPECT_EQ(uniform.slots, 2000u);
  EXPECT_EQ(uniform.acceptance(), 0.5);
  for (std::size_t i = 0; i < uniform.n; ++i) EXPECT_EQ(uniform.threshold[i], 0u) << "every first slot rejects";
  // 1000 draws' attempts: about 2 an accepted draw, not fewer.
  std::uint64_t attempts = 0;
  for (std::uint64_t d = 0; d < 1000; ++d) rj::draw(uniform, 3, d, &attempts);
  EXPECT_NEAR(static_cast<double>(attempts) / 1000, 2.0, 0.2);
  // Weights {1, 3}: N w / W = 1/2, 3/2; M = 3 and the acceptance 2/3.
  EXPECT_EQ(rj::build<double>(std::vector<double>{1, 3}).slots, 3u);
  // The power law of the tests lies strictly above 1/2.
  const auto pl = rj::build<double>(test::shuffled_power_law<double>(100000));
  EXPECT_GT(pl.acceptance(), 0.5);
}

// The law of the draws: the registry's TableEntry.ManyDrawsFromOneTableAreInLaw
// (tests/property/registry_properties.cpp) runs these draws, made on the model.

// The warp model's draws, uncached and pre-cached, on one warp or as one warp
// of a larger grid, are the host's draw d for every d.
TEST(BringmannLarsen, TheModelsDrawsAreTheHostsUncachedOrPreCached) {
  for (const auto& w : inputs()) {
    const auto s = rj::build<double>(w);
    const std::uint64_t first = 1000003, seed = 20261124;
    for (const bool cached : {false, true}) {
      const auto got = rj::draws_on_model(s, seed, first, 150, cached);
      ASSERT_EQ(got.size(), 150u);
      for (std::uint64_t d = 0; d < got.size(); ++d) ASSERT_EQ(got[d], rj::draw(s, seed, first + d)) << "draw " << d << " cached " << cached;
    }
    // Warp 2 of a grid of 4 warps of 32: lane l of call c makes draw 64 + 128 c + l.
    sim::GlobalMemory mem;
    const auto dev = rj::upload(mem, s);
    sim::Warp warp;
    const auto r = rj::draw_on_warp(warp, mem, dev, 9, {.first = 5, .count = 500, .offset = 64, .stride = 128}, true);
    ASSERT_EQ(r.iterations.size(), 4u);  // draws 64..95, 192.., 320.., 448..479
    for (std::size_t c = 0; c < 4; ++c)
      for (std::size_t l = 0; l < 32; ++l) ASSERT_EQ(r.draws[c * 32 + l], rj::draw(s, 9, 5 + 64 + 128 * c + l)) << c << " " << l;
  }
}

// The model's warp iterations a call follow seed 004's exact law for p = N/M:
// uniform weights (p = 1/2 exactly), 3,000 calls of 32 lanes each way; the
// uncached counts by a chi-square against the law (alpha 1e-6), the
// pre-cached mean against the steady state's (|z| < 5).
TEST(BringmannLarsen, TheModelsIterationsFollowTheLoopModel) {
  const auto s = rj::build<double>(std::vector<double>(777, 2.0));
  ASSERT_EQ(s.acceptance(), 0.5);
  sim::GlobalMemory mem;
  const auto dev = rj::upload(mem, s);
  sim::Warp warp;
  const auto un = rj::draw_on_warp(warp, mem, dev, 11, {.first = 0, .count = 32 * 3000}, false);
  const auto law = rj::uncached_loop(32, 0.5);
  std::vector<double> observed(law.pmf.size() + 1, 0.0), p(law.pmf.begin(), law.pmf.end());
  p.push_back(law.tail);
  for (int v : un.iterations) ++observed[std::min(static_cast<std::size_t>(v), law.pmf.size())];
  stats::GofOptions opt;
  opt.alpha = 1e-6;
  const auto r = stats::chi_square_test(observed, p, opt);
  EXPECT_FALSE(r.reject) << "p = " << r.p_value;
  EXPECT_NEAR(static_cast<double>(un.attempts) / (32 * 3000), 2.0, 0.05) << "1/p attempts a draw";

  const auto ca = rj::draw_on_warp(warp, mem, dev, 12, {.first = 0, .count = 32 * 3000}, true);
  const auto steady = rj::cached_loop(32, 0.5);
  double m = 0, ss = 0;
  const std::vector<int> x(ca.iterations.begin() + 10, ca.iterations.end());  // past the first calls' warm-up
  for (int v : x) m += v;
  m /= static_cast<double>(x.size());
  for (int v : x) ss += (v - m) * (v - m);
  const double se = std::sqrt(ss / static_cast<double>(x.size() - 1) / static_cast<double>(x.size()));
  EXPECT_LT(std::fabs(m - steady.loop.mean) / se, 5.0) << "model " << m << " law " << steady.loop.mean;
  EXPECT_LT(m * 1.4, law.mean) << "pre-caching saves at least 40% of the iterations at p = 1/2";
}
