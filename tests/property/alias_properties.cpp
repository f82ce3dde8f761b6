// Alias tables on the host (oracle/alias/): every construction represents
// its weights exactly in units, on every weight family; the units are within
// their stated bound of w_i / W (and equal for dyadic weights); the seed's
// statements that do not survive execution (errata E11, E12).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <functional>
#include <optional>
#include <numeric>

#include "oracle/alias/pack_warp.hpp"
#include "oracle/alias/psa.hpp"
#include "oracle/alias/psa_plus.hpp"
#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/sectioned.hpp"
#include "oracle/alias/split_warp.hpp"
#include "stats/stats.hpp"
#include "oracle/alias/sweep.hpp"
#include "oracle/alias/vose.hpp"
#include "oracle/alias/walker.hpp"
#include "properties/generators.hpp"
#include "gpu/detail/exact_units.hpp"
#include "gpu/detail/philox_keyed.hpp"
#include "rng/philox_uniform.hpp"
#include "../alias_test_weights.hpp"

namespace {

using namespace warpsim::oracle::alias;
using warpsim::properties::WeightFamily;

struct Construction {
  const char* name;
  std::function<Table(const Units&)> build;
};
const Construction kConstructions[] = {{"walker", [](const Units& u) { return walker(u); }},
                                       {"vose", [](const Units& u) { return vose(u); }},
                                       {"sweep", [](const Units& u) { return sweep(u); }},
                                       {"psa (7 sections)", [](const Units& u) { return psa(u, 7); }},
                                       {"psa+ (groups of 5)", [](const Units& u) { return psa_plus(u, 5, 3); }}};

template <class T>
void every_construction_is_exact(const std::vector<T>& w) {
  const auto u = to_units<T>(w);
  for (const auto& c : kConstructions) {
    const auto t = c.build(u);
    const auto why = check_table(t, u);
    RC_ASSERT(why == std::string());
    // An item of weight 0 is never drawn: it keeps nothing and no row gives it mass.
    for (std::size_t i = 0; i < w.size(); ++i)
      if (w[i] == 0) RC_ASSERT(implied_mass(t)[i] == 0u);
  }
}

RC_GTEST_PROP(AliasTable, EveryConstructionIsExactOnEveryFamilyFp32, ()) {
  const auto family = *warpsim::properties::gen_family();
  const int n = *rc::gen::inRange(1, 300);
  every_construction_is_exact(*warpsim::properties::gen_weights<float>(family, n));
}

RC_GTEST_PROP(AliasTable, EveryConstructionIsExactOnEveryFamilyFp64, ()) {
  const auto family = *warpsim::properties::gen_family();
  const int n = *rc::gen::inRange(1, 300);
  every_construction_is_exact(*warpsim::properties::gen_weights<double>(family, n));
}

// PSA with any number of sections, packed in any order, gives the sweep's
// table row for row (the splits are exact: integer prefix sums).
template <class T>
void psa_equals_sweep(const std::vector<T>& w, std::size_t sections, bool reversed) {
  const auto u = to_units<T>(w);
  const auto want = sweep(u);
  std::vector<std::size_t> order;
  const std::size_t s = std::max<std::size_t>(1, std::min(sections, w.size()));
  if (reversed)
    for (std::size_t q = s; q-- > 0;) order.push_back(q);
  const auto got = psa(u, sections, order);
  RC_ASSERT(check_table(got, u) == std::string());
  RC_ASSERT(got.keep == want.keep);
  RC_ASSERT(got.alias == want.alias);
}

RC_GTEST_PROP(AliasTable, PsaWithAnySplitsIsTheSweepFp32, ()) {
  const auto family = *warpsim::properties::gen_family();
  const int n = *rc::gen::inRange(1, 400);
  psa_equals_sweep(*warpsim::properties::gen_weights<float>(family, n), *rc::gen::inRange<std::size_t>(1, 70), *rc::gen::arbitrary<bool>());
}

RC_GTEST_PROP(AliasTable, PsaWithAnySplitsIsTheSweepFp64, ()) {
  const auto family = *warpsim::properties::gen_family();
  const int n = *rc::gen::inRange(1, 400);
  psa_equals_sweep(*warpsim::properties::gen_weights<double>(family, n), *rc::gen::inRange<std::size_t>(1, 70), *rc::gen::arbitrary<bool>());
}

// Ties -- a heavy item left with exactly a bucket where a split falls --
// are where a split could pick the wrong side: small integers make many.
RC_GTEST_PROP(AliasTable, PsaSplitsAtTiesAsTheSweepDoes, ()) {
  const int n = *rc::gen::inRange(1, 64);
  auto w = *rc::gen::container<std::vector<double>>(static_cast<std::size_t>(n), rc::gen::map(rc::gen::inRange(0, 5), [](int x) { return double(x); }));
  if (std::all_of(w.begin(), w.end(), [](double x) { return x == 0; })) w[0] = 1;
  psa_equals_sweep(w, *rc::gen::inRange<std::size_t>(1, static_cast<std::size_t>(n) + 1), *rc::gen::arbitrary<bool>());
}

TEST(AliasTable, PsaAtATieOnASplit) {
  // {3, 1, 3, 1}: W/N = 2; after light 1 fills from heavy 0, heavy 0 has
  // exactly a bucket left -- the state after 2 steps is (1 light, 1 heavy).
  const auto u = to_units<double>(std::vector<double>{3, 1, 3, 1});
  const auto p = partition(u);
  const auto at = split(p, 2);
  EXPECT_EQ(at.i, 1u);
  EXPECT_EQ(at.j, 1u);
  for (std::size_t s = 1; s <= 4; ++s) {
    const auto t = psa(u, s);
    EXPECT_EQ(t.keep, sweep(u).keep) << s;
    EXPECT_EQ(t.alias, sweep(u).alias) << s;
  }
}

// PSA+ is exact for every group size, and its table does not depend on how
// the leftovers are split and packed (any number of sections, any order).
template <class T>
void psa_plus_is_exact_and_schedule_free(const std::vector<T>& w, std::size_t group, std::size_t sections, bool reversed) {
  const auto u = to_units<T>(w);
  const auto one = psa_plus(u, group, 1);
  RC_ASSERT(check_table(one, u) == std::string());
  std::vector<std::size_t> order;
  PsaPlusStats st;
  const auto probe = psa_plus(u, group, sections, {}, &st);
  const std::size_t s = std::max<std::size_t>(1, std::min(sections, st.left));
  if (reversed && st.left > 0)
    for (std::size_t q = s; q-- > 0;) order.push_back(q);
  const auto many = psa_plus(u, group, sections, order);
  RC_ASSERT(many.keep == one.keep);
  RC_ASSERT(many.alias == one.alias);
  RC_ASSERT(st.greedy_rows + st.left == w.size());
}

RC_GTEST_PROP(AliasTable, PsaPlusIsExactWhateverTheScheduleFp32, ()) {
  const auto family = *warpsim::properties::gen_family();
  const int n = *rc::gen::inRange(1, 400);
  psa_plus_is_exact_and_schedule_free(*warpsim::properties::gen_weights<float>(family, n), *rc::gen::inRange<std::size_t>(1, 100),
                                      *rc::gen::inRange<std::size_t>(1, 40), *rc::gen::arbitrary<bool>());
}

RC_GTEST_PROP(AliasTable, PsaPlusIsExactWhateverTheScheduleFp64, ()) {
  const auto family = *warpsim::properties::gen_family();
  const int n = *rc::gen::inRange(1, 400);
  psa_plus_is_exact_and_schedule_free(*warpsim::properties::gen_weights<double>(family, n), *rc::gen::inRange<std::size_t>(1, 100),
                                      *rc::gen::inRange<std::size_t>(1, 40), *rc::gen::arbitrary<bool>());
}

TEST(AliasTable, PsaPlusPacksMostUniformItemsGreedily) {
  // Sec. 2.4.5: "When assigning uniform random weights to each item, it is
  // possible to pack a majority of the items greedily."
  const auto w = warpsim::test::uniform_weights(100000, 0x9E3779B97F4A7C15ull);
  const auto u = to_units<double>(w);
  PsaPlusStats st;
  const auto t = psa_plus(u, 1024, 64, {}, &st);
  EXPECT_EQ(check_table(t, u), "");
  EXPECT_GT(st.greedy_rows, w.size() / 2);
  std::cout << "PSA+ with groups of 1024, 10^5 uniform weights: " << st.greedy_rows << " rows packed greedily, " << st.left << " left to PSA\n";
}

// Sectioned sampling: the sections' shares sum to n, every section's rows
// stay within it, and the draws follow the table's law (chi-square at a
// fixed seed; alpha 1e-3) -- the binomial splits make the section counts a
// multinomial, so grouping by section changes only the order.
TEST(AliasTable, SectionedSamplingDrawsTheTablesLaw) {
  std::vector<double> w(300);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 1.0 / static_cast<double>(1 + (i * 37) % 300) + (i % 11 == 0 ? 0.0 : 0.01);
  w[7] = 0;
  const auto u = to_units<double>(w);
  const auto t = psa(u, 4);
  const std::uint64_t n = 200000;
  const auto parts = sections(t.size(), 32, n, 5);
  std::uint64_t total = 0;
  std::size_t next_row = 0;
  for (const auto& s : parts) {
    EXPECT_EQ(s.first_row, next_row);
    EXPECT_LE(s.rows, 32u);
    next_row += s.rows;
    total += s.draws;
  }
  EXPECT_EQ(next_row, t.size());
  EXPECT_EQ(total, n);
  EXPECT_EQ(parts.size(), 16u) << "300 rows in sections of at most 32: depth 4 (ceil(300 / 16) = 19)";
  // Another batch (its first draw elsewhere) divides its draws otherwise.
  const auto other = sections(t.size(), 32, n, 5, n);
  EXPECT_NE(other[0].draws, parts[0].draws);
  const auto draws = sample_sectioned(t, 32, n, 5);
  ASSERT_EQ(draws.size(), n);
  // Shuffled: the same draws (a permutation of them), no longer grouped.
  auto shuffled = draws;
  shuffle_batch(shuffled, 5);
  EXPECT_NE(shuffled, draws);
  EXPECT_TRUE(std::is_permutation(shuffled.begin(), shuffled.end(), draws.begin()));
  std::vector<double> counts(w.size(), 0), p(w.size());
  for (auto d : draws) counts[d] += 1;
  EXPECT_EQ(counts[7], 0);
  for (std::size_t i = 0; i < w.size(); ++i) p[i] = static_cast<double>(u.units[i]) / static_cast<double>(u.total);
  warpsim::stats::GofOptions g;
  g.alpha = 1e-3;
  const auto r = warpsim::stats::chi_square_test(counts, p, g);
  EXPECT_FALSE(r.reject) << "p = " << r.p_value;
}

// The baseline sampler on the warp model draws exactly the host
// definition's index for every draw, and its memory traffic is what the
// model counts: a random row a lane, so one 32-byte sector a lane for the
// 8-byte keep, and another load (same sector) where the draw takes the alias.
TEST(AliasTable, SamplingOnTheWarpModelIsTheDefinition) {
  std::vector<double> w(1000);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 1.0 / static_cast<double>(1 + (i * 7919) % 1000);
  const auto u = to_units<double>(w);
  const auto t = psa(u, 8);
  warpsim::sim::GlobalMemory mem;
  const auto dt = upload_table(mem, t);
  warpsim::sim::Warp warp({.width = 32});
  std::vector<double> counts(w.size(), 0), p(w.size());
  const int warps = 2000;
  for (int q = 0; q < warps; ++q) {
    const auto got = sample_warp(warp, mem, dt, 11, static_cast<std::uint64_t>(q) * 32);
    for (int l = 0; l < 32; ++l) {
      ASSERT_EQ(got[static_cast<std::size_t>(l)], draw(t, 11, static_cast<std::uint64_t>(q) * 32 + static_cast<std::uint64_t>(l))) << q << " " << l;
      counts[got[static_cast<std::size_t>(l)]] += 1;
    }
  }
  const auto& c = warp.counters();
  const double sectors_per_draw = static_cast<double>(c.global_sectors) / (warps * 32.0);
  const double requests_per_warp = static_cast<double>(c.global_requests) / warps;
  std::cout << "alias sampling on the model, N = 1000: " << requests_per_warp << " load requests a warp, " << sectors_per_draw
            << " sectors a draw, " << static_cast<double>(c.global_bytes) / (warps * 32.0) << " bytes asked for a draw\n";
  EXPECT_EQ(c.global_requests, static_cast<std::uint64_t>(2 * warps));  // the keep, and the alias (some lane always takes one)
  EXPECT_GT(sectors_per_draw, 1.0);   // 32 random rows of 1000 rarely share a sector
  EXPECT_LT(sectors_per_draw, 2.0);
  for (std::size_t i = 0; i < w.size(); ++i) p[i] = static_cast<double>(u.units[i]) / static_cast<double>(u.total);
  warpsim::stats::GofOptions g;
  g.alpha = 1e-3;
  EXPECT_FALSE(warpsim::stats::chi_square_test(counts, p, g).reject);
}

TEST(AliasTable, EdgeCases) {
  const std::vector<std::vector<double>> cases = {
      {5},                            // N = 1
      {2, 2, 2, 2},                   // all equal: no aliases
      {1, 1, 1, 97},                  // one heavy item
      {0, 0, 3, 0},                   // all but one zero
      {4.9e-324, 1e-310, 0},          // subnormal
      {1e-300, 1e300, 1, 0},          // a huge range
  };
  for (const auto& w : cases) {
    const auto u = to_units<double>(w);
    for (const auto& c : kConstructions) EXPECT_EQ(check_table(c.build(u), u), "") << c.name;
  }
  const auto equal = to_units<double>(std::vector<double>{2, 2, 2, 2});
  for (const auto& c : kConstructions) EXPECT_EQ(rows_with_alias(c.build(equal)), 0u) << c.name;
}

TEST(AliasTable, BadWeightsAreRefused) {
  for (const auto& w : std::vector<std::vector<double>>{{}, {0, 0}, {1, -1}, {1, NAN}, {INFINITY, 1}}) {
    EXPECT_THROW(to_units<double>(w), std::invalid_argument);
  }
}

// The units are within the stated bound of w_i / W, and equal to it for
// weights that are multiples of the unit.
// The unit comes from the weights alone: the same exponent and units for
// every order of the weights (a GPU adds them in its own order), also where a
// double sum of them would round across a power of two.
template <class T>
void units_do_not_depend_on_the_order(std::vector<T> w, std::uint64_t seed) {
  const auto u = to_units<T>(w);
  std::vector<std::size_t> perm(w.size());
  std::iota(perm.begin(), perm.end(), 0);
  for (std::size_t i = perm.size(); i > 1; --i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(perm[i - 1], perm[(seed >> 33) % i]);
  }
  std::vector<T> shuffled(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) shuffled[i] = w[perm[i]];
  const auto v = to_units<T>(shuffled);
  RC_ASSERT(v.exponent == u.exponent);
  RC_ASSERT(v.total == u.total);
  for (std::size_t i = 0; i < w.size(); ++i) RC_ASSERT(v.units[i] == u.units[perm[i]]);
  RC_ASSERT(u.total >= (std::uint64_t{1} << 60) - w.size());
}

RC_GTEST_PROP(AliasTable, UnitsDoNotDependOnTheOrderFp32, ()) {
  const auto family = *warpsim::properties::gen_family();
  units_do_not_depend_on_the_order(*warpsim::properties::gen_weights<float>(family, *rc::gen::inRange(1, 300)), *rc::gen::arbitrary<std::uint64_t>());
}

RC_GTEST_PROP(AliasTable, UnitsDoNotDependOnTheOrderFp64, ()) {
  const auto family = *warpsim::properties::gen_family();
  units_do_not_depend_on_the_order(*warpsim::properties::gen_weights<double>(family, *rc::gen::inRange(1, 300)), *rc::gen::arbitrary<std::uint64_t>());
}

TEST(AliasTable, UnitsAtASumThatRoundsAcrossAPowerOfTwo) {
  // 1 - 2^-53 and four 2^-55: the double sum in one order stays below 1 and
  // in another reaches 1, so an exponent from ilogb(sum) would differ.
  std::vector<double> w = {1 - 0x1p-53};
  for (int i = 0; i < 4; ++i) w.push_back(0x1p-55);
  double forward = 0, backward = 0;
  for (double x : w) forward += x;
  for (auto it = w.rbegin(); it != w.rend(); ++it) backward += *it;
  EXPECT_NE(std::ilogb(forward), std::ilogb(backward)) << "the double sums straddle 1";
  std::vector<double> reversed(w.rbegin(), w.rend());
  EXPECT_EQ(to_units<double>(w).exponent, to_units<double>(reversed).exponent);
}

// The kernels' units from a weight's bits (gpu/detail/exact_units.hpp) are
// the oracle's floor(ldexp(w, -e)) for every finite w >= 0 -- normal,
// subnormal, zero, the largest -- and every exponent e whose units fit in 64
// bits (e >= ilogb(w) - 63), up to exponents where they are 0; and taking
// e' then shifting by e - e' (as the build does) is one shift by e.
template <class T>
void units_from_bits_are_the_oracles() {
  const auto bits = *rc::gen::arbitrary<typename warpsim::gpu::detail::Ieee<T>::Bits>();
  T w;
  std::memcpy(&w, &bits, sizeof w);
  w = std::fabs(w);
  RC_PRE(std::isfinite(w));
  const int low = w > 0 ? std::ilogb(w) - 63 : std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits - 70;
  const int e = *rc::gen::oneOf(rc::gen::just(low), rc::gen::just(low + 1), rc::gen::inRange(low, low + 140));
  RC_ASSERT(warpsim::gpu::detail::units_of(w, e) == fine_units(w, e));
  const int shift = *rc::gen::inRange(0, 40);
  RC_ASSERT(warpsim::gpu::detail::units_of(w, e + shift) == fine_units(w, e) >> shift);
}

RC_GTEST_PROP(AliasTable, UnitsFromBitsAreTheOraclesFp32, ()) { units_from_bits_are_the_oracles<float>(); }

// fp32 units by float multiplications (units_of_float): the oracle's for
// every finite fp32 weight and every exponent the build can use with it
// (e' = ilogb(largest) - 63 >= ilogb(w) - 63, plus a shift up to 40).
RC_GTEST_PROP(AliasTable, Fp32UnitsThroughFloatsAreTheOracles, ()) {
  const auto bits = *rc::gen::arbitrary<std::uint32_t>();
  float w;
  std::memcpy(&w, &bits, sizeof w);
  w = std::fabs(w);
  RC_PRE(std::isfinite(w));
  const int low = w > 0 ? std::ilogb(w) - 63 : -212;
  const int e = *rc::gen::oneOf(rc::gen::just(low), rc::gen::inRange(std::max(low, -212), 64 + 40));
  RC_ASSERT(warpsim::gpu::detail::units_of_float(w, warpsim::gpu::detail::float_scale(e)) == fine_units(w, e));
}
RC_GTEST_PROP(AliasTable, UnitsFromBitsAreTheOraclesFp64, ()) { units_from_bits_are_the_oracles<double>(); }

// The sectioned sampler's Philox with its round keys made once
// (gpu/detail/philox_keyed.hpp) is rng/'s philox_bits, Random123's
// Philox4x32-10, for every key and counter.
RC_GTEST_PROP(AliasTable, PhiloxWithKeysMadeOnceIsRandom123s, ()) {
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto stream = *rc::gen::arbitrary<std::uint64_t>();
  const auto draw = *rc::gen::arbitrary<std::uint32_t>();
  const auto word3 = *rc::gen::oneOf(rc::gen::just(0u), rc::gen::arbitrary<std::uint32_t>());
  const auto want = warpsim::rng::philox_bits(seed, stream, draw, word3);
  const auto got = warpsim::gpu::detail::PhiloxKeyed(seed)(stream, draw, word3);
  for (int i = 0; i < 4; ++i) RC_ASSERT(got.v[i] == want.v[i]);
}

TEST(AliasTable, UnitsFromBitsAtTheEdges) {
  using warpsim::gpu::detail::units_of;
  for (const float w : {0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(), 1.0f,
                        std::numeric_limits<float>::max()}) {
    const int e = w > 0 ? std::ilogb(w) - 63 : 0;
    EXPECT_EQ(units_of(w, e), fine_units(std::fabs(w), e)) << w;
  }
  for (const double w : {0.0, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(), 1.0,
                         std::numeric_limits<double>::max()}) {
    const int e = w > 0 ? std::ilogb(w) - 63 : 0;
    EXPECT_EQ(units_of(w, e), fine_units(w, e)) << w;
  }
  EXPECT_EQ(units_of(1.0f, -63), std::uint64_t{1} << 63);
  EXPECT_EQ(units_of(std::nextafter(2.0, 0.0), -63), ~std::uint64_t{0} - (std::uint64_t{1} << 11) + 1);
  EXPECT_EQ(units_of(3.0f, 1), 1u);
  EXPECT_EQ(units_of(3.0f, 64), 0u);
}

// A row's sampling threshold t = floor(keep 2^64 / U) loses nothing: keep
// comes back as ceil(t U / 2^64), for every keep in [0, U] and every U < 2^62;
// and t / 2^64 is within 2^-64 of keep / U.
RC_GTEST_PROP(AliasTable, ThresholdsAreLossless, ()) {
  const auto cap = *rc::gen::inRange<std::uint64_t>(1, std::uint64_t{1} << 62);
  const auto keep = *rc::gen::oneOf(rc::gen::just<std::uint64_t>(0), rc::gen::just(cap), rc::gen::just(cap - 1),
                                    rc::gen::inRange<std::uint64_t>(0, cap + 1));
  const auto t = threshold(keep, cap);
  RC_ASSERT(keep_of_threshold(t, cap) == keep);
  // |t / 2^64 - keep / U| < 2^-64  <=>  |t U - keep 2^64| < U
  const u128 lhs = static_cast<u128>(t) * cap, rhs = static_cast<u128>(keep) << 64;
  RC_ASSERT((lhs > rhs ? lhs - rhs : rhs - lhs) < cap + (keep == cap ? cap : 0));
}

TEST(AliasTable, UnitsWithinTheirExactnessBound) {
  std::uint64_t state = 88172645463325252ull;
  auto next = [&] { return state ^= state << 13, state ^= state >> 7, state ^= state << 17; };
  for (int rep = 0; rep < 200; ++rep) {
    const std::size_t n = 1 + next() % 2000;
    std::vector<double> w(n);
    for (auto& x : w) x = std::ldexp(static_cast<double>(next() >> 11), -static_cast<int>(next() % 80));
    const auto u = to_units<double>(w);
    long double total = 0;
    for (double x : w) total += x;
    for (std::size_t i = 0; i < n; ++i) {
      const long double p = w[i] / total, q = static_cast<long double>(u.units[i]) / u.total;
      ASSERT_LE(std::fabs(static_cast<double>(q - p)), exactness_bound(static_cast<double>(p), n) * 1.01 + 1e-19) << i << " of " << n;
    }
  }
  // Dyadic: small integers are exact: u_i U' = w_i U with W = sum w.
  const std::vector<double> w = {3, 1, 0, 7, 5, 8};
  const auto u = to_units<double>(w);
  for (std::size_t i = 0; i < w.size(); ++i) {
    EXPECT_TRUE(static_cast<u128>(u.units[i]) * 24 == static_cast<u128>(w[i]) * u.total) << i;
  }
}

TEST(AliasTable, SamplingFollowsTheRowsBoundaries) {
  const auto u = to_units<double>(std::vector<double>{1, 3, 0, 4});
  const auto t = sweep(u);
  for (std::size_t k = 0; k < t.size(); ++k) {
    const u128 base = static_cast<u128>(k) * t.capacity;
    if (t.keep[k] > 0) {
      EXPECT_EQ(sample(t, base + t.keep[k] - 1), k);
    }
    if (t.keep[k] < t.capacity) {
      EXPECT_EQ(sample(t, base + t.keep[k]), t.alias[k]);
    }
  }
}

// Errata E11: Sec. 2.4's sampling rule as printed -- item k if
// (U N - k) W/N < T_k^w, with T_k^w := B_l/(W/N) + 1 from Walker's
// construction (Sec. 2.4.1), a share in [0, 1]. The left side lies in
// [0, W/N): the units differ unless W = N. Weights {1, 3}: W/N = 2, T_0^w =
// 1/2, so row 0 returns item 0 for frac < 1/4 and P(0) = 1/8, not 1/4.
// Seed 001, Sec. 2.4.1, Walker's construction as printed, in doubles (errata
// E18): B_i := w_i - W/N; repeat: k the bucket of largest B, l of smallest;
// T_l^a := k, T_l^w := B_l / (W/N) + 1, B_k := B_k + B_l, B_l := 0; "until all
// items have remaining weight B_i = 0".
struct PrintedWalker {
  bool finished = false;
  std::vector<std::optional<double>> share;  // T^w, unset where never assigned
};
PrintedWalker walker_as_printed(const std::vector<double>& w, std::size_t max_steps) {
  const std::size_t n = w.size();
  double total = 0;
  for (double x : w) total += x;
  const double bucket = total / static_cast<double>(n);
  std::vector<double> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = w[i] - bucket;
  PrintedWalker out;
  out.share.resize(n);
  for (std::size_t step = 0; step < max_steps; ++step) {
    if (std::all_of(b.begin(), b.end(), [](double x) { return x == 0; })) {
      out.finished = true;
      return out;
    }
    const auto k = static_cast<std::size_t>(std::max_element(b.begin(), b.end()) - b.begin());
    const auto l = static_cast<std::size_t>(std::min_element(b.begin(), b.end()) - b.begin());
    out.share[l] = b[l] / bucket + 1;
    b[k] += b[l];
    b[l] = 0;
  }
  return out;
}

TEST(AliasErrata, E18WalkerAsPrinted) {
  // In floating point the remainders rarely all come to exactly 0: the loop
  // does not end (here: cut at 10 N steps, where N - 1 suffice).
  std::uint64_t st = 1;
  int unfinished = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + static_cast<int>((st = st * 6364136223846793005ull + 1442695040888963407ull) >> 61);
    std::vector<double> w(static_cast<std::size_t>(n));
    for (auto& x : w) x = static_cast<double>((st = st * 6364136223846793005ull + 1442695040888963407ull) >> 11) * 0x1p-53;
    unfinished += walker_as_printed(w, 10 * w.size()).finished ? 0 : 1;
  }
  std::cout << "Walker as printed, in doubles: " << unfinished << " of 200 random inputs (2-9 weights) never reach all B_i = 0\n";
  EXPECT_GT(unfinished, 50);
  const auto stuck = walker_as_printed({0.1, 0.2, 0.7}, 30);
  EXPECT_FALSE(stuck.finished) << "0.1, 0.2, 0.7: a remainder of 2.8e-17 is left";
  // Where it does end, an item never picked as the lightest gets no T^w:
  // {1, 2, 3} ends after one step; items 1 and 2 have no share (should be 1).
  const auto ended = walker_as_printed({1, 2, 3}, 30);
  ASSERT_TRUE(ended.finished);
  EXPECT_TRUE(ended.share[0].has_value());
  EXPECT_FALSE(ended.share[1].has_value());
  EXPECT_FALSE(ended.share[2].has_value());
  // The oracle's Walker (exact units, every row starting as its own full
  // bucket) gives these inputs exact tables.
  for (const auto& w : {std::vector<double>{0.1, 0.2, 0.7}, std::vector<double>{1, 2, 3}}) {
    const auto u = to_units<double>(w);
    EXPECT_EQ(check_table(walker(u), u), "");
  }
}

// Seed 001, Sec. 2.8, Bringmann and Larsen's definitions as printed (errata
// E19): Occ_i := floor(N w_i / W) + 1, A holds item i Occ_i times, a uniform
// position k is accepted if it is not the item's first, else with probability
// frac(N w_i / W); "the probability for accepting a sample is > 0.5"; A stored
// as a bit array of item starts, the item at position i "the rank (number of
// bits before position i that are 1)".
TEST(AliasErrata, E19BringmannLarsenAsPrinted) {
  // Exactly, in units: x_i = N u_i / U; the accepted mass of item i is
  // (Occ_i - 1) U + (N u_i mod U) = N u_i -- the definition is right -- and
  // the acceptance probability is N / |A|, |A| = sum Occ_i <= 2N.
  auto acceptance = [](const std::vector<double>& w) {
    const auto u = to_units<double>(w);
    const std::size_t n = w.size();
    u128 size = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const u128 x = static_cast<u128>(n) * u.units[i];
      const u128 occ = x / u.total + 1;
      EXPECT_EQ((occ - 1) * u.total + x % u.total, x) << "item " << i << "'s accepted mass is N u_i";
      size += occ;
    }
    return static_cast<double>(n) / static_cast<double>(size);
  };
  EXPECT_GT(acceptance({1, 3, 0.5, 2}), 0.5);
  // Where every N w_i / W is a whole number -- all weights equal, the most
  // common input -- the first occurrences are never accepted: exactly 1/2.
  EXPECT_EQ(acceptance({1, 1, 1, 1}), 0.5) << "not > 0.5";
  EXPECT_EQ(acceptance({3, 1, 2}), 0.6);
  // The implicit array: A = [0, 0, 1, 2] for weights {2, 1, 1} (Occ = 2, 1, 1),
  // bits of item starts [1, 0, 1, 1]. "Bits before position i that are 1"
  // names item 1 at position 1, where A holds item 0; the ones at or before i,
  // less one, name A's item everywhere.
  const std::vector<int> a = {0, 0, 1, 2}, bits = {1, 0, 1, 1};
  int wrong = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const int before = std::accumulate(bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(i), 0);
    const int at_or_before = before + bits[i];
    wrong += before != a[i] ? 1 : 0;
    EXPECT_EQ(at_or_before - 1, a[i]);
  }
  EXPECT_EQ(wrong, 1) << "as printed, every occurrence after an item's first is named as the next item";
}

TEST(AliasErrata, E11SamplingRuleAsPrintedMixesUnits) {
  const std::vector<double> w = {1, 3};
  const double n = 2, total = 4, bucket = total / n;
  // Walker's table as the thesis defines it (shares), for these weights.
  const double share0 = (w[0] - bucket) / bucket + 1;  // B_0 / (W/N) + 1
  ASSERT_EQ(share0, 0.5);
  // P(item 0) = P(row 0) P(frac W/N < T_0^w) under the printed rule; frac
  // uniform on [0, 1).
  const double printed = (1 / n) * std::min(1.0, share0 / bucket);
  const double corrected = (1 / n) * share0;  // frac < T_0^w
  EXPECT_EQ(printed, 0.125);
  EXPECT_EQ(corrected, w[0] / total);
  EXPECT_NE(printed, w[0] / total);
  // The oracle's exact rule draws item 0 with probability u_0 / U = 1/4.
  const auto u = to_units<double>(w);
  const auto t = walker(u);
  EXPECT_EQ(implied_mass(t)[0] * 4, static_cast<u128>(2) * t.capacity);
}

// Errata E12: Sec. 2.4.7's example "w_0 = 0.5, w_n = 1.5 and for all other
// items i not in {0, N} w_i = 1.0 ... a bucket size of W/N = 1": items are 0
// to N - 1, so as printed W = N - 0.5 and W/N != 1; with w_{N-1} = 1.5 it
// holds. Every construction here gives that input one row with an alias
// (the minimum; the thesis's greedy that aliases each item to the next would
// give N - 1).
TEST(AliasErrata, E12SmithJacobsonExample) {
  const std::size_t n = 10;
  std::vector<double> printed(n, 1.0), corrected(n, 1.0);
  printed[0] = corrected[0] = 0.5;  // "w_n = 1.5" names no item: printed has none
  corrected[n - 1] = 1.5;
  EXPECT_EQ(std::accumulate(printed.begin(), printed.end(), 0.0) / n, 0.95);
  EXPECT_EQ(std::accumulate(corrected.begin(), corrected.end(), 0.0) / n, 1.0);
  const auto u = to_units<double>(corrected);
  for (const auto& c : kConstructions) {
    const auto t = c.build(u);
    EXPECT_EQ(check_table(t, u), "");
    EXPECT_EQ(rows_with_alias(t), 1u) << c.name;
    std::cout << "Smith and Jacobson's example, N = " << n << ": " << c.name << " gives " << rows_with_alias(t) << " row with an alias\n";
  }
}

// Errata E13: Sec. 4.7.3 splits a section's sample count between its two
// halves with a normal deviate instead of a binomial one ("For N > 30, the
// normal distribution is a good approximation"). Measured here: the total
// variation between Binomial(n, 1/2) and the rounded, clipped normal
// N(n/2, n/4) the thesis draws instead, for the n of its own threshold and
// of its workloads.
double normal_vs_binomial_tv(std::uint64_t n, double p) {
  const boost::math::binomial_distribution<double> b(static_cast<double>(n), p);
  const double mu = static_cast<double>(n) * p, sigma = std::sqrt(static_cast<double>(n) * p * (1 - p));
  const boost::math::normal_distribution<double> z(mu, sigma);
  const double reach = 12 * sigma + 2;
  const auto lo = static_cast<std::uint64_t>(std::max(0.0, mu - reach)), hi = static_cast<std::uint64_t>(std::min(static_cast<double>(n), mu + reach));
  double tv = 0;
  for (std::uint64_t k = lo; k <= hi; ++k) {
    const double below = k == 0 ? 0.0 : boost::math::cdf(z, static_cast<double>(k) - 0.5);
    const double above = k == n ? 1.0 : boost::math::cdf(z, static_cast<double>(k) + 0.5);
    tv += std::fabs(boost::math::pdf(b, static_cast<double>(k)) - (above - below));
  }
  return tv / 2;
}

TEST(AliasErrata, E13NormalApproximationOfSectionCounts) {
  const double at31 = normal_vs_binomial_tv(31, 0.5), at1000 = normal_vs_binomial_tv(1000, 0.5);
  const double leaf = normal_vs_binomial_tv(600000, 0.5);  // 10^9 draws, 10^7 rows, sections of 6,144 rows
  const double uneven = normal_vs_binomial_tv(31, 1.0 / 3);  // a section of 3 rows split 1 : 2
  std::cout << "TV(Binomial(n, 1/2), rounded normal): n = 31: " << at31 << ", n = 1000: " << at1000 << ", n = 6e5: " << leaf
            << "; n = 31, p = 1/3: " << uneven << "\n";
  // Not negligible at the threshold the thesis gives, and not exact anywhere.
  EXPECT_GT(at31, 1e-3);
  EXPECT_GT(uneven, at31);
  EXPECT_GT(at1000, 0);
  EXPECT_LT(at1000, at31);
  EXPECT_GT(leaf, 0);
  EXPECT_LT(leaf, at1000);
}

// Errata E14: Sec. 4.8.2's worked numbers for N = 5 x 10^7 items and
// s = 580,000 splits. The table, N x 16 B = 762 MB, and the splits,
// s x 16 B = 9 MB, hold (in MiB). The split's read estimate,
// "log2(0.5 N) s 4 8 B + s 8 B ~ 434 MB", comes to 439.4 MiB (460.8 MB); with
// log2 rounded down, 429.2 MiB: 434 is neither. The waste statements hold:
// an uncoalesced 8-byte store uses 8 of a 32-byte sector (75% wasted), a
// 16-byte one half ("double the expected value").
TEST(AliasErrata, E14WorkedNumbersOfTheMemoryMeasurements) {
  const double n = 5e7, s = 580000, mib = 1 << 20;
  EXPECT_NEAR(n * 16 / mib, 762.9, 0.1);
  EXPECT_NEAR(s * 16 / mib, 8.85, 0.01);  // "9 MB"
  const double read = std::log2(0.5 * n) * s * 4 * 8 + s * 8;
  const double read_floor = std::floor(std::log2(0.5 * n)) * s * 4 * 8 + s * 8;
  std::cout << "split read estimate: " << read / mib << " MiB (" << read / 1e6 << " MB); with log2 rounded down " << read_floor / mib
            << " MiB; printed: 434 MB\n";
  EXPECT_GT(std::fabs(read / mib - 434), 5);
  EXPECT_GT(std::fabs(read_floor / mib - 434), 4);
  EXPECT_GT(std::fabs(read / 1e6 - 434), 20);
  EXPECT_EQ(1 - 8.0 / 32, 0.75);
  EXPECT_EQ(32.0 / 16, 2.0);
}

// Sec. 4.8.2 on the model's counters: the pack's lanes write rows of
// unrelated sections, so a warp's 32 row stores cannot coalesce. As two
// 8-byte stores (the compiler's choice the section describes) each request
// touches 32 sectors for 8 bytes a lane: 4x the bytes, 75% of each sector
// wasted; as one 16-byte store (Alg. 4.3/4.4's int4 cast) 2x, "double the
// expected value".
struct alignas(16) PackedRow {
  std::uint64_t keep;
  std::uint32_t alias, pad;
};

TEST(AliasErrata, PackRowStoresOnTheModelsCounters) {
  warpsim::sim::GlobalMemory mem;
  const std::size_t n = 1 << 16;
  const auto rows = mem.allocate<PackedRow>(n);
  warpsim::sim::Warp two({.width = 32}), one({.width = 32});
  warpsim::sim::Reg<std::uint64_t> keep("keep"), tail("alias|pad"), addr("addr"), addr8("addr8");
  warpsim::sim::Reg<PackedRow> row("row");
  for (int l = 0; l < 32; ++l) {
    const std::uint64_t k = (static_cast<std::uint64_t>(l) * 2039) % n;  // 32 sections' next rows: far apart
    addr[l] = rows.at(k);
    addr8[l] = rows.at(k) + 8;
    keep[l] = 1000 + static_cast<std::uint64_t>(l);
    tail[l] = static_cast<std::uint64_t>(l);
    row[l] = PackedRow{keep[l], static_cast<std::uint32_t>(l), 0};
  }
  two.store_global(mem, warpsim::sim::PerLane<std::uint64_t>(addr), keep);
  two.store_global(mem, warpsim::sim::PerLane<std::uint64_t>(addr8), tail);
  one.store_global(mem, warpsim::sim::PerLane<std::uint64_t>(addr), row);
  const auto& a = two.counters();
  const auto& b = one.counters();
  const double bytes = 32 * 16;
  std::cout << "pack row stores, 32 lanes: two 8-byte stores " << a.global_sectors << " sectors (" << static_cast<double>(a.global_sectors * 32) / bytes
            << "x the bytes); one 16-byte store " << b.global_sectors << " sectors (" << static_cast<double>(b.global_sectors * 32) / bytes << "x)\n";
  EXPECT_EQ(a.global_sectors * 32, 4 * 32 * 16u);
  EXPECT_EQ(b.global_sectors * 32, 2 * 32 * 16u);
}

// PSA's split on the warp model finds the host's splits, and what it reads
// depends on the weights: a shuffled power law has few heavy items, so each
// search's range, [max(0, k - |h|), min(k, |l|)], is short; uniform weights
// make half the items heavy and every search runs log2 of half the items.
// Sec. 5.2.4 says the split reads "up to 7x more" for uniform weights.
TEST(AliasTable, SplitOnTheWarpModelAndWhatItReads) {
  const std::size_t n = 1 << 16, sections = 1024;
  auto measure = [&](const std::vector<double>& w) {
    const auto u = to_units<double>(w);
    const auto p = partition(u);
    warpsim::sim::GlobalMemory mem;
    const auto d = upload_prefix_sums(mem, p);
    warpsim::sim::Warp warp({.width = 32});
    for (std::size_t first = 0; first < sections; first += 32) {
      std::vector<std::size_t> ks;
      for (std::size_t q = first; q < first + 32; ++q) ks.push_back(q * n / sections);
      const auto got = split_on_warp(warp, mem, d, ks);
      for (std::size_t l = 0; l < ks.size(); ++l) {
        const auto want = split(p, ks[l]);
        EXPECT_EQ(got[l].i, want.i);
        EXPECT_EQ(got[l].j, want.j);
      }
    }
    return warp.counters();
  };
  const auto cu = measure(warpsim::test::uniform_weights(n, 7)), cp = measure(warpsim::test::shuffled_power_law(n));
  const double ratio = static_cast<double>(cu.global_sectors) / static_cast<double>(std::max<std::uint64_t>(1, cp.global_sectors));
  std::cout << "split of 2^16 items in 1024 sections on the model: uniform " << cu.global_sectors << " sectors (" << cu.loop_iterations
            << " loop iterations), power law " << cp.global_sectors << " sectors (" << cp.loop_iterations << "): " << ratio << "x\n";
  EXPECT_GT(ratio, 1.0);
}

}  // namespace
