// dist/communicator.hpp's share_of, oracle/alias/sharded.hpp, and
// dist/alias.hpp on one process (the same functions run on each of mpirun's
// ranks: tests/mpi/).
#include <gtest/gtest.h>

#include <random>

#include "dist/alias.hpp"
#include "dist/communicator.hpp"
#include "oracle/alias/sharded.hpp"

namespace {

namespace al = warpsim::oracle::alias;
using warpsim::dist::Communicator;

TEST(ShareOf, SharesAreContiguousWholeChunksCoveringEveryItemOnce) {
  for (std::uint64_t n : {0ull, 1ull, 7ull, 4096ull, 30000ull, 1000003ull}) {
    for (std::uint64_t chunk : {1ull, 3ull, 4096ull}) {
      for (int ranks = 1; ranks <= 9; ++ranks) {
        std::uint64_t next = 0, most = 0, least = UINT64_MAX;
        for (int r = 0; r < ranks; ++r) {
          const auto s = warpsim::dist::share_of(n, chunk, r, ranks);
          EXPECT_EQ(s.first, next) << n << " " << chunk << " " << ranks << " " << r;
          if (s.first < n) EXPECT_EQ(s.first % chunk, 0u);
          next = s.first + s.count;
          const std::uint64_t chunks = (s.count + chunk - 1) / chunk;
          most = std::max(most, chunks);
          least = std::min(least, chunks);
        }
        EXPECT_EQ(next, n);
        EXPECT_LE(most - least, 1u);  // shares differ by at most one chunk
      }
    }
  }
}

// Weights with zeros, a range of 2^40 and ties, split at random places.
std::vector<double> weights(std::mt19937_64& g, std::size_t n) {
  std::vector<double> w(n);
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& x : w) x = u(g) < 0.1 ? 0 : std::ldexp(u(g), static_cast<int>(g() % 40) - 20);
  w[g() % n] = 1;
  return w;
}

TEST(ShardedAlias, TheShardsUnitsAreTheOneTablesAndEachShardsTableIsExact) {
  std::mt19937_64 g(7);
  for (int trial = 0; trial < 40; ++trial) {
    const auto w = weights(g, 1 + g() % 3000);
    const al::Units one = al::to_units<double>(w);
    const int shards = 1 + static_cast<int>(g() % 6);
    std::vector<std::size_t> cut{0, w.size()};
    for (int s = 1; s < shards; ++s) cut.push_back(g() % (w.size() + 1));
    std::sort(cut.begin(), cut.end());
    double largest = 0;
    al::u128 fine_sum = 0;
    for (std::size_t s = 0; s + 1 < cut.size(); ++s) largest = std::max(largest, al::shard_largest<double>({w.data() + cut[s], cut[s + 1] - cut[s]}));
    const int fine = al::fine_exponent_of(largest);
    for (std::size_t s = 0; s + 1 < cut.size(); ++s) fine_sum += al::shard_fine_sum<double>({w.data() + cut[s], cut[s + 1] - cut[s]}, fine);
    const auto scale = al::unit_scale(fine, fine_sum);
    ASSERT_EQ(scale.exponent, one.exponent);
    std::uint64_t total = 0;
    for (std::size_t s = 0; s + 1 < cut.size(); ++s) {
      const auto u = al::shard_units<double>({w.data() + cut[s], cut[s + 1] - cut[s]}, scale);
      for (std::size_t i = 0; i < u.units.size(); ++i) ASSERT_EQ(u.units[i], one.units[cut[s] + i]) << "trial " << trial << " item " << cut[s] + i;
      total += u.total;
      const auto t = al::shard_table(u);
      if (u.total > 0) EXPECT_EQ(al::check_table(t, u), "");
      else EXPECT_EQ(t.size(), 0u);
    }
    EXPECT_EQ(total, one.total);  // the shards' masses add up to the one table's U: the same law
  }
}

TEST(ShardedAlias, TheSplitSumsToNAndFollowsTheMasses) {
  const std::vector<std::uint64_t> masses{3, 0, 5, 1, 0, 7};
  const std::uint64_t n = 1600000;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto c = al::split_draws(n, masses, seed);
    std::uint64_t sum = 0;
    for (std::size_t s = 0; s < c.size(); ++s) {
      sum += c[s];
      const double p = static_cast<double>(masses[s]) / 16, e = static_cast<double>(n) * p;
      EXPECT_LE(std::abs(static_cast<double>(c[s]) - e), 6 * std::sqrt(e * (1 - p)) + 1e-9) << "seed " << seed << " shard " << s;
    }
    EXPECT_EQ(sum, n);
    EXPECT_EQ(c, al::split_draws(n, masses, seed));  // the same split on every process
  }
}

TEST(ShardedAlias, TheLawInPartsPassesTheTableAndCatchesAMovedItem) {
  std::mt19937_64 g(11);
  const auto w = weights(g, 2000);
  const Communicator one = Communicator::self();
  const auto t = warpsim::dist::build_sharded_alias<double>(one, w);
  EXPECT_EQ(t.items, w.size());
  const std::uint64_t n = 400000;
  std::uint64_t draws = 0;
  auto counts = warpsim::dist::sample_counts(one, t, n, 5, &draws);
  EXPECT_EQ(draws, n);
  const auto v = warpsim::dist::law_in_parts(one, t, counts, 1e-3);
  EXPECT_TRUE(v.consistent) << v.text();
  EXPECT_EQ(v.draws, n);
  // A tenth of the draws of the heaviest item (0.2% of all) moved to its neighbour: caught.
  const auto heavy = static_cast<std::size_t>(std::max_element(t.units.begin(), t.units.end()) - t.units.begin());
  const std::size_t next = heavy + 1 < counts.size() && t.units[heavy + 1] > 0 ? heavy + 1 : heavy - 1;
  const std::uint64_t moved = counts[heavy] / 10;
  counts[heavy] -= moved;
  counts[next] += moved;
  const auto moved_verdict = warpsim::dist::law_in_parts(one, t, counts, 1e-3);
  EXPECT_FALSE(moved_verdict.consistent) << moved_verdict.text() << " heavy " << counts[heavy] << " next " << counts[next];
  // A draw of an item of weight 0: caught whatever else holds.
  counts = warpsim::dist::sample_counts(one, t, n, 5);
  const auto zero = static_cast<std::size_t>(std::find(t.units.begin(), t.units.end(), 0u) - t.units.begin());
  ASSERT_LT(zero, counts.size());
  counts[zero] += 1;
  const auto z = warpsim::dist::law_in_parts(one, t, counts, 1e-3);
  EXPECT_FALSE(z.consistent);
  EXPECT_EQ(z.zero_weight_draws, 1u);
}

// The law over bins (the cells of a table too large to count item by item,
// alias sharded --on gpu): each bin's mass the sum of its items' u_i, its
// count the sum of theirs. The binned counts of a correct table pass; a
// bias within one bin's neighbourhood that moves 0.5% of the draws from one
// bin to the next is caught.
TEST(ShardedAlias, TheLawInBinsPassesTheTableAndCatchesMovedMass) {
  std::mt19937_64 g(13);
  const auto w = weights(g, 64 * 1024);
  const Communicator one = Communicator::self();
  const auto t = warpsim::dist::build_sharded_alias<double>(one, w);
  auto counts = warpsim::dist::sample_counts(one, t, 2000000, 3);
  const std::size_t bin = 64, bins = w.size() / bin;
  std::vector<std::uint64_t> mass(bins, 0), count(bins, 0);
  for (std::size_t i = 0; i < w.size(); ++i) {
    mass[i / bin] += t.units[i];
    count[i / bin] += counts[i];
  }
  const auto v = warpsim::dist::law_in_parts(one, mass, t.total, bins, count, 1e-3);
  EXPECT_TRUE(v.consistent) << v.text();
  EXPECT_EQ(v.items, bins);
  const auto heavy = static_cast<std::size_t>(std::max_element(mass.begin(), mass.end()) - mass.begin());
  const std::uint64_t moved = 10000;  // 0.5% of the draws
  count[heavy] -= std::min(count[heavy], moved);
  count[(heavy + 1) % bins] += moved;
  EXPECT_FALSE(warpsim::dist::law_in_parts(one, mass, t.total, bins, count, 1e-3).consistent);
  EXPECT_THROW(warpsim::dist::law_in_parts(one, mass, t.total, bins, std::vector<std::uint64_t>(3), 1e-3), std::invalid_argument);
}

}  // namespace
