// The butterfly draw (seed 000, Alg. 7-10) on the model: fixed cases, the
// listings' errata, and what it costs.
#include <gtest/gtest.h>

#include "properties/registry.hpp"

#include <limits>
#include <random>
#include <vector>

#include "oracle/butterfly_draw.hpp"
#include "oracle/reference.hpp"

using namespace warpsim;
using oracle::ButterflyVariant;

namespace {

struct Case {
  int w, k, m;
  std::vector<float> weights;
  sim::Reg<float> u{"u"};
};

Case random_case(int w, int k, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Case c{w, k, w, {}, sim::Reg<float>("u")};
  c.weights.resize(static_cast<std::size_t>(w * k));
  for (auto& x : c.weights) x = static_cast<float>(1 + rng() % 50);
  for (int l = 0; l < w; ++l) c.u[l] = static_cast<float>(rng() >> 8) * 0x1p-24f;
  return c;
}

int mismatches(const Case& c, ButterflyVariant v, oracle::AsPrinted as_printed = {}) {
  sim::GlobalMemory mem;
  const auto m = oracle::upload_matrix<float>(mem, c.weights, c.m, c.k);
  sim::Warp warp({.width = c.w});
  const auto d = oracle::butterfly_draw(warp, mem, m, 0, c.u, v, as_printed);
  int bad = 0;
  for (int r = 0; r < c.m; ++r) {
    std::span<const float> row(c.weights.data() + r * c.k, static_cast<std::size_t>(c.k));
    bad += d.index[static_cast<std::size_t>(r)] != oracle::reference_draw(row, c.u[r]);
  }
  return bad;
}

}  // namespace

TEST(ButterflyDraw, SeedExampleShapeW16K71) {
  // Sec. 4's illustration: W = 16, K = 71, a remnant of 7 and four blocks.
  for (auto v : {ButterflyVariant::Standard, ButterflyVariant::AddSub}) {
    for (std::uint32_t seed = 1; seed <= 20; ++seed) EXPECT_EQ(mismatches(random_case(16, 71, seed), v), 0) << seed;
  }
}

TEST(ButterflyDraw, ShuffleCountIsThreeTimesWMinusOneForOneBlock) {
  // Seed 000, Sec. 3: W - 1 shuffles to build, 2(W - 1) to search: 3(W - 1).
  for (int w = 2; w <= 64; w *= 2) {
    auto c = random_case(w, w, 7);
    sim::GlobalMemory mem;
    const auto m = oracle::upload_matrix<float>(mem, c.weights, c.m, c.k);
    sim::Warp warp({.width = w});
    const auto d = oracle::butterfly_draw(warp, mem, m, 0, c.u, ButterflyVariant::AddSub);
    EXPECT_EQ(d.counters.shuffles(), static_cast<std::uint64_t>(3 * (w - 1))) << "W = " << w;
    // Every block load is coalesced: W lanes x 4 bytes per request.
    EXPECT_EQ(d.counters.global_requests, static_cast<std::uint64_t>(w));
    EXPECT_EQ(d.counters.global_lines, static_cast<std::uint64_t>(w * ((4 * w + 127) / 128)));
  }
}

TEST(ButterflyDraw, Alg8Line32AsPrintedBreaksTheBlockSearch) {
  // p'[W - 1] := sum writes every block's running sum to one slot, and leaves
  // p'[j + W - 1], which Alg. 9 and 10 read, unwritten (errata E6).
  int bad = 0;
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    const auto c = random_case(8, 40, seed);
    EXPECT_EQ(mismatches(c, ButterflyVariant::AddSub), 0);
    bad += mismatches(c, ButterflyVariant::AddSub, {.alg8_line32 = true});
  }
  EXPECT_GT(bad, 0);
}

#include "oracle/draw_matrix.hpp"

TEST(DrawMatrix, EveryAlgorithmDrawsEveryRowWarpAfterWarp) {
  // M = 100 rows of K = 45 integer weights: three full warps and a partial one.
  const int m = 100, k = 45;
  std::mt19937 rng(11);
  std::vector<float> weights(static_cast<std::size_t>(m * k)), u(static_cast<std::size_t>(m));
  for (auto& x : weights) x = static_cast<float>(rng() % 9);
  for (int r = 0; r < m; ++r) weights[static_cast<std::size_t>(r * k + r % k)] += 1.0f;
  for (auto& x : u) x = static_cast<float>(rng() >> 8) * 0x1p-24f;
  for (const auto& a : properties::registry()) {
    if (!a.oracle_algorithm) continue;  // alias tables, the sum tree: no algorithm of oracle/draw_matrix.hpp
    const auto algo = *a.oracle_algorithm;
    sim::GlobalMemory mem;
    const auto matrix = oracle::upload_matrix<float>(mem, weights, m, k);
    const auto d = oracle::draw_matrix<float>(mem, matrix, u, algo);
    ASSERT_EQ(d.index.size(), static_cast<std::size_t>(m)) << a.name;
    for (int r = 0; r < m; ++r) {
      std::span<const float> row(weights.data() + r * k, static_cast<std::size_t>(k));
      EXPECT_EQ(d.index[static_cast<std::size_t>(r)], oracle::reference_draw(row, u[static_cast<std::size_t>(r)]))
          << a.name << " row " << r;
    }
    EXPECT_GT(d.counters.global_requests, 0u);
  }
}

TEST(DrawMatrix, TransposedAccessReadsFewerSectorsThanPerLaneAccess) {
  // Fig. 1's point, measured on whole draws: K = 64 fp32 weights per row, W = 32.
  const int m = 32, k = 64;
  std::vector<float> weights(static_cast<std::size_t>(m * k), 1.0f), u(static_cast<std::size_t>(m), 0.5f);
  sim::GlobalMemory mem;
  const auto matrix = oracle::upload_matrix<float>(mem, weights, m, k);
  const auto base = oracle::draw_matrix<float>(mem, matrix, u, oracle::Algorithm::BaselineBinary);
  const auto bfly = oracle::draw_matrix<float>(mem, matrix, u, oracle::Algorithm::ButterflyAddSub);
  EXPECT_EQ(base.counters.global_sectors, static_cast<std::uint64_t>(m * k)) << "one sector per weight";
  EXPECT_EQ(bfly.counters.global_sectors, static_cast<std::uint64_t>(m * k * 4 / 32)) << "each sector once";
}

TEST(DrawEdgeCases, ATotalInTheSubnormalRangeLetsUPrimeReachTheTotal) {
  // u < 1 does not keep u' = total * u below the total once the total is
  // subnormal: 0.9 * 2^-149 rounds to 2^-149. As the seeds print it (Alg. 2),
  // no running sum exceeds u' and the search stops at K - 1, a weight of 0
  // (docs/errata.md, E9).
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<float> row{0.0f, tiny, 0.0f, 0.0f, 0.0f};
  const float u = 0.9f;
  ASSERT_EQ(tiny * u, tiny);
  auto as_printed = [&] {  // seed 000, Alg. 2, u' unclamped
    float sum = 0;
    for (float w : row) sum += w;
    volatile float target = sum * u;
    float p = 0;
    int j = 0;
    for (; j < static_cast<int>(row.size()) - 1; ++j) {
      p += row[static_cast<std::size_t>(j)];
      if (target < p) break;
    }
    return j;
  };
  EXPECT_EQ(as_printed(), 4) << "as printed: index 4, weight 0";
  // warpsim keeps u' below the total: the last index of non-zero weight.
  EXPECT_EQ(oracle::reference_draw<float>(row, u), 1);
  sim::GlobalMemory mem;
  const auto m = oracle::upload_matrix<float>(mem, row, 1, 5);
  for (const auto& a : properties::registry()) {
    if (!a.oracle_algorithm) continue;
    const std::vector<float> us{u};
    const auto d = oracle::draw_matrix<float>(mem, m, us, *a.oracle_algorithm, 4);
    EXPECT_EQ(d.index[0], 1) << a.name;
  }
  // The same past the remnant, where Alg. 9 fell through to index 0: K = 12
  // on 4 lanes, the only weight in the last block.
  std::vector<float> row2(12, 0.0f);
  row2[9] = 3 * tiny;
  const auto m2 = oracle::upload_matrix<float>(mem, row2, 1, 12);
  for (const auto& a : properties::registry()) {
    if (!a.oracle_algorithm) continue;
    const std::vector<float> us{0.99f};
    EXPECT_EQ(oracle::draw_matrix<float>(mem, m2, us, *a.oracle_algorithm, 4).index[0], 9) << a.name;
  }
}

TEST(DrawEdgeCases, AddSubtractIndexDependsOnTheLaneNumber) {
  // Found by a RapidCheck property (errata E10): the add-subtract search
  // computes a midpoint as high - y in lanes whose bit is set and low + y in
  // the others; the two round differently. One row, at lane 31 and at lane
  // 29 of the same warp, with everything else equal, draws different indices.
  const int k = 38;
  std::vector<float> row(k, std::ldexp(1.0f, -100));
  for (auto [i, e] : {std::pair{5, -40}, {7, -41}, {9, -42}, {12, -44}, {17, -23}, {29, -20}, {32, -25}}) {
    row[static_cast<std::size_t>(i)] = std::ldexp(1.0f, e);
  }
  std::vector<float> w;
  for (int r = 0; r < 32; ++r) w.insert(w.end(), row.begin(), row.end());
  auto index_at = [&](int lane, oracle::Algorithm algo) {
    std::vector<float> u(32, 0.0f);
    u[static_cast<std::size_t>(lane)] = 20 * 0x1p-24f;
    sim::GlobalMemory mem;
    return oracle::draw_matrix<float>(mem, oracle::upload_matrix<float>(mem, w, 32, k), u, algo).index[static_cast<std::size_t>(lane)];
  };
  EXPECT_EQ(index_at(31, oracle::Algorithm::ButterflyAddSub), 9);
  EXPECT_EQ(index_at(29, oracle::Algorithm::ButterflyAddSub), 7);
  EXPECT_EQ(index_at(31, oracle::Algorithm::ButterflyStandard), index_at(29, oracle::Algorithm::ButterflyStandard))
      << "the standard variant always adds to the low end";
  // The scalar definition: the running sum first exceeds u' at index 7.
  EXPECT_EQ(oracle::reference_draw<float>(row, 20 * 0x1p-24f), 7);
}
