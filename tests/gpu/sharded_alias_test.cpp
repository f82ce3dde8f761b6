// A sharded alias table's parts on the GPU (gpu/alias_table.hpp's
// alias_part_check, alias_unit_sum, build_at, alias_unit_bins and
// alias_sample_shard) against the oracle's shards (oracle/alias/sharded.hpp),
// bit for bit; --generate's weights made on the device against the host's;
// validate's device tally (cli/validate/device.hpp) against the host's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cli/generated_weights.hpp"
#include "cli/validate/device.hpp"
#include "cli/validate/law.hpp"
#include "device_array.hpp"
#include "gpu/alias_table.hpp"
#include "oracle/alias/sharded.hpp"
#include "require_gpu.hpp"

using namespace warpsim;
namespace al = oracle::alias;
using gpu_test::DeviceArray;

namespace {

// Weights with zeros, a range of 2^40 and ties (tests/dist/sharded_alias_test.cpp's).
template <class T>
std::vector<T> weights(std::mt19937_64& g, std::size_t n) {
  std::vector<T> w(n);
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& x : w) x = static_cast<T>(u(g) < 0.1 ? 0 : std::ldexp(u(g), static_cast<int>(g() % 40) - 20));
  w[g() % n] = 1;
  return w;
}

template <class T>
void parts_equal_the_oracles_shards(std::uint64_t trial_seed) {
  std::mt19937_64 g(trial_seed);
  for (int trial = 0; trial < 12; ++trial) {
    const auto w = weights<T>(g, 64 + g() % 20000);
    // A tiny part (its mass may be 0) among random cuts.
    std::vector<std::size_t> cut{0, w.size(), 1 + g() % 4};
    for (int s = 0; s < 3; ++s) cut.push_back(g() % (w.size() + 1));
    std::sort(cut.begin(), cut.end());
    cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
    auto part = [&](std::size_t s) { return std::span<const T>(w.data() + cut[s], cut[s + 1] - cut[s]); };
    double largest = 0;
    for (std::size_t s = 0; s + 1 < cut.size(); ++s) {
      DeviceArray<T> dw(std::vector<T>(part(s).begin(), part(s).end()));
      const auto c = gpu::alias_part_check(dw.p, part(s).size());
      EXPECT_EQ(c.first_bad, part(s).size());
      EXPECT_EQ(c.largest, al::shard_largest(part(s)));
      largest = std::max(largest, c.largest);
    }
    const int fine = al::fine_exponent_of(largest);
    al::u128 fine_sum = 0;
    for (std::size_t s = 0; s + 1 < cut.size(); ++s) {
      DeviceArray<T> dw(std::vector<T>(part(s).begin(), part(s).end()));
      const al::u128 got = gpu::alias_unit_sum(dw.p, part(s).size(), fine);
      EXPECT_TRUE(got == al::shard_fine_sum(part(s), fine)) << "trial " << trial << " part " << s;
      fine_sum += got;
    }
    const auto scale = al::unit_scale(fine, fine_sum);
    ASSERT_EQ(scale.exponent, al::to_units<T>(w).exponent);  // the one table's unit
    for (std::size_t s = 0; s + 1 < cut.size(); ++s) {
      const auto u = al::shard_units(part(s), scale);
      const auto want = al::shard_table(u);
      const std::size_t n = part(s).size();
      DeviceArray<T> dw(std::vector<T>(part(s).begin(), part(s).end()));
      DeviceArray<gpu::AliasRow> rows(n);
      gpu::AliasTableBuilder<T> builder;
      const auto info = builder.build_at(dw.p, n, rows.p, scale.exponent);
      ASSERT_EQ(info.capacity, u.total) << "trial " << trial << " part " << s;
      EXPECT_EQ(info.exponent, scale.exponent);
      // The bins' masses: sums of u_i over 32 consecutive items.
      DeviceArray<unsigned long long> bins((n + 31) / 32);
      WARPSIM_CUDA(cudaMemset(bins.p, 0, bins.n * sizeof(unsigned long long)));
      gpu::alias_unit_bins(dw.p, n, scale.exponent, 5, bins.p);
      const auto got_bins = bins.download();
      for (std::size_t b = 0; b < got_bins.size(); ++b) {
        std::uint64_t m = 0;
        for (std::size_t i = 32 * b; i < std::min(n, 32 * b + 32); ++i) m += u.units[i];
        ASSERT_EQ(got_bins[b], m) << "bin " << b;
      }
      if (u.total == 0) continue;  // (no rows: the part is never drawn from)
      const auto got = rows.download();
      for (std::size_t k = 0; k < n; ++k) {
        ASSERT_EQ(al::keep_of_threshold(got[k].threshold, info.capacity), want.keep[k]) << "trial " << trial << " part " << s << " row " << k;
        ASSERT_EQ(got[k].alias, want.alias[k]) << "row " << k;
      }
      // Draws 1000 .. 1999 of this shard, as shard_draw makes them.
      DeviceArray<std::uint32_t> out(1000);
      gpu::alias_sample_shard(rows.p, info, 77, static_cast<std::uint32_t>(s), 1000, 1000, out.p);
      const auto drawn = out.download();
      for (std::uint64_t j = 0; j < 1000; ++j) ASSERT_EQ(drawn[j], al::shard_draw(want, 77, static_cast<std::uint32_t>(s), 1000 + j)) << "draw " << j;
      // Counted in bins of 32: the same draws.
      WARPSIM_CUDA(cudaMemset(bins.p, 0, bins.n * sizeof(unsigned long long)));
      gpu::alias_sample_shard_bins(rows.p, info, 77, static_cast<std::uint32_t>(s), 1000, 1000, 5, bins.p);
      std::vector<unsigned long long> want_bins(bins.n, 0);
      for (const auto d : drawn) want_bins[d >> 5] += 1;
      EXPECT_EQ(bins.download(), want_bins);
    }
  }
}

}  // namespace

TEST(GpuShardedAlias, PartsEqualTheOraclesShardsBitForBitFp64) {
  WARPSIM_REQUIRE_GPU();
  parts_equal_the_oracles_shards<double>(3);
}

TEST(GpuShardedAlias, PartsEqualTheOraclesShardsBitForBitFp32) {
  WARPSIM_REQUIRE_GPU();
  parts_equal_the_oracles_shards<float>(4);
}

TEST(GpuShardedAlias, AFinerUnitThanTheWholesIsRefused) {
  WARPSIM_REQUIRE_GPU();
  const std::vector<double> w(1000, 1.0);
  DeviceArray<double> dw(w);
  DeviceArray<gpu::AliasRow> rows(w.size());
  gpu::AliasTableBuilder<double> builder;
  EXPECT_THROW(builder.build_at(dw.p, w.size(), rows.p, -80), std::invalid_argument);  // a unit of 2^80 an item
  EXPECT_THROW(builder.build_at(dw.p, w.size(), rows.p, -60), std::invalid_argument);  // 2^60 an item, 1000 2^60 in all
  EXPECT_EQ(builder.build_at(dw.p, w.size(), rows.p, -50).capacity, 1000 * (std::uint64_t{1} << 50));
  const std::vector<double> bad{1.0, -1.0};
  DeviceArray<double> db(bad);
  EXPECT_THROW(builder.build_at(db.p, bad.size(), rows.p, -60), std::invalid_argument);
}

TEST(GpuShardedAlias, GeneratedWeightsEqualTheHosts) {
  WARPSIM_REQUIRE_GPU();
  const std::uint64_t n = 1 << 20, first = (std::uint64_t{1} << 33) + 5;
  DeviceArray<double> dw(n);
  cli::generate_weights_on_device(dw.p, n, 9, first);
  const auto got = dw.download();
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], cli::generated_weight(9, first + i)) << "item " << first + i;  // bit for bit
}

// validate's device tally: the counts, batch counts and first failures of
// int32 draws counted on the device in chunks at any offset, as the host's
// LawCounter counts them (draw e in batch e mod 20); a draw out of range
// found with its number and index.
TEST(GpuValidateTally, CountsAsTheHostDoes) {
  WARPSIM_REQUIRE_GPU();
  std::vector<double> w(64);
  for (int i = 0; i < 64; ++i) w[static_cast<std::size_t>(i)] = i % 9 == 4 ? 0 : 1.0 + i;
  const auto p = cli::validate::probabilities_of(w);
  cli::validate::LawCounter host{std::span<const double>(p)};
  const auto& d = host.data();
  cli::validate::device::LawTally tally(w, d.cell_of, d.cells, cli::validate::kBatches);
  std::mt19937_64 g(5);
  const std::uint64_t start = 4096 * 7 + 3;  // a rank's share starting mid-batch
  host.start_at(start);
  std::uint64_t first = start, first_zero = UINT64_MAX;
  std::int32_t zero_index = -1;
  for (int chunk = 0; chunk < 5; ++chunk) {
    std::vector<std::int32_t> idx(1000 + g() % 5000);
    for (std::size_t e = 0; e < idx.size(); ++e) {
      idx[e] = static_cast<std::int32_t>(g() % 64);
      if (w[static_cast<std::size_t>(idx[e])] == 0 && first_zero == UINT64_MAX) first_zero = first + e, zero_index = idx[e];
      host.add(static_cast<std::uint64_t>(idx[e]));
    }
    DeviceArray<std::int32_t> di(idx);
    tally.add(di.p, idx.size(), first);
    first += idx.size();
  }
  const auto c = tally.counts();
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(static_cast<double>(c.counts[i]), d.counts[i]) << "category " << i;
  ASSERT_EQ(c.batch_counts.size(), d.batch_counts.size());
  for (std::size_t i = 0; i < c.batch_counts.size(); ++i) EXPECT_EQ(static_cast<double>(c.batch_counts[i]), d.batch_counts[i]) << "batch cell " << i;
  EXPECT_EQ(c.first_zero_weight, first_zero);
  EXPECT_EQ(static_cast<std::int32_t>(c.first_zero_weight_index), zero_index);
  EXPECT_EQ(c.out_of_range, 0u);
  // Draws out of range, in the second and third arrays: the first found, not counted.
  cli::validate::device::LawTally bad(w, d.cell_of, d.cells, cli::validate::kBatches);
  std::vector<std::int32_t> a(3000, 1), b(3000, 2), e(3000, 3);
  b[2500] = 64;
  e[10] = -1;
  e[20] = 70;
  DeviceArray<std::int32_t> da(a), db(b), de(e);
  bad.add(da.p, a.size(), 100);
  bad.add(db.p, b.size(), 3100);
  bad.add(de.p, e.size(), 6100);
  const auto f = bad.counts();
  EXPECT_EQ(f.out_of_range, 3u);
  EXPECT_EQ(f.first_out_of_range, 3100u + 2500u);
  EXPECT_EQ(bad.first_out_of_range_index(), 64);
  EXPECT_EQ(f.draws, 9000u - 3u);
}
