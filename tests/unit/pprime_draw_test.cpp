// Seed 000, Sec. 2's one-array p' on the model (oracle/pprime_draw.hpp): the
// array the listing builds, its draws against the definition, and its cost.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "oracle/pprime_draw.hpp"
#include "oracle/reference.hpp"
#include "sim/symbolic.hpp"

using namespace warpsim;

TEST(PPrimeDraw, BuildsTheSeedsArrayForKSixteen) {
  // The section's picture for K = 16: p'[j] = a[j - lowbit(j + 1) + 1 .. j].
  constexpr int K = 16;
  sim::Warp warp({.width = 2});
  sim::LocalArray<sim::Sym> p("p'", K);
  oracle::pprime_build(warp, K, [&](sim::Reg<sim::Sym>& dst, int j) { for (int l = 0; l < 2; ++l) dst[l] = sim::Sym::element(l, j); }, p);
  for (int l = 0; l < 2; ++l)
    for (int j = 0; j < K; ++j) {
      const int lo = j - ((j + 1) & -(j + 1)) + 1;
      EXPECT_EQ(p.at(l, static_cast<std::size_t>(j)), sim::Sym::range(l, lo, j)) << "lane " << l << ", p'[" << j << "]";
    }
  EXPECT_EQ(p.at(0, 15), sim::Sym::range(0, 0, 15));
  EXPECT_EQ(p.at(0, 11), sim::Sym::range(0, 8, 11));  // the seed's a_8^11
}

TEST(PPrimeDraw, DrawsEqualTheDefinitionWhereSumsAreExact) {
  for (int k = 1; k <= 256; k *= 2) {
    for (std::uint32_t seed = 1; seed <= 8; ++seed) {
      std::mt19937 rng(seed * 977 + static_cast<std::uint32_t>(k));
      constexpr int W = 16;
      std::vector<float> weights(static_cast<std::size_t>(W * k));
      for (auto& x : weights) x = static_cast<float>(rng() % 4 == 0 ? 0 : rng() % 50);  // zeros too: never drawn
      sim::Reg<float> u("u");
      for (int l = 0; l < W; ++l) u[l] = static_cast<float>(rng() >> 8) * 0x1p-24f;
      sim::GlobalMemory mem;
      const auto m = oracle::upload_matrix<float>(mem, weights, W, k);
      sim::Warp warp({.width = W});
      const auto d = oracle::pprime_draw(warp, mem, m, 0, u);
      for (int r = 0; r < W; ++r) {
        std::span<const float> row(weights.data() + r * k, static_cast<std::size_t>(k));
        EXPECT_EQ(d.index[static_cast<std::size_t>(r)], oracle::reference_draw(row, u[r])) << "K " << k << ", seed " << seed << ", row " << r;
      }
      // every lane's search takes log2 K steps: the warp's loop runs exactly that often
      int levels = 0;
      while ((1 << levels) < k) ++levels;
      EXPECT_EQ(d.counters.loop_iterations, static_cast<std::uint64_t>(levels)) << k;
    }
  }
}

TEST(PPrimeDraw, RefusesKNotAPowerOfTwo) {
  sim::Warp warp({.width = 2});
  sim::LocalArray<float> p("p'", 6);
  EXPECT_THROW(oracle::pprime_build(warp, 6, [](sim::Reg<float>&, int) {}, p), std::invalid_argument);
}

TEST(SeedStatements, Seed002SearchVisitsSevenElevenNine) {
  // seed 002, slides 26-31: the search of p' (K = 16) compares u' with 0:7,
  // then 0:11 (= 0:7 + 8:11), then 0:9 (= 0:7 + 8:9) ... for a u' between them
  constexpr int K = 16;
  sim::Warp warp({.width = 2});
  sim::LocalArray<float> p("p'", K);
  oracle::pprime_build(warp, K, [](sim::Reg<float>& dst, int) { dst[0] = dst[1] = 1.0f; }, p);
  sim::Reg<float> u("u");
  u[0] = u[1] = 9.5f / 16;  // u' = 9.5: above a[0..7], below a[0..11] and a[0..9]
  std::vector<int> mids;
  const auto z = oracle::pprime_search(warp, p, K, u, [&](int, int lane, int mid, bool) {
    if (lane == 0) mids.push_back(mid);
  });
  EXPECT_EQ(mids, (std::vector<int>{7, 11, 9, 8}));
  EXPECT_EQ(z[0], 9);
}
