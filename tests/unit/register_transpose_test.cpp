// Seed 000, Fig. 2: the in-register transpose, run symbolically and numerically.
#include <gtest/gtest.h>

#include "oracle/layouts.hpp"
#include "oracle/register_transpose.hpp"
#include "sim/register_grid.hpp"

using namespace warpsim;

TEST(RegisterTranspose, TurnsTheTransposedLayoutIntoTheNormalOneForEveryWidth) {
  for (int w = 2; w <= 64; w *= 2) {
    sim::Warp warp({.width = w});
    auto a = oracle::transposed_layout(w);
    oracle::register_transpose(warp, a);
    EXPECT_EQ(sim::to_grid(a, w), sim::to_grid(oracle::normal_layout(w), w)) << "W = " << w;
    // (W/2) log2 W shuffles, counted by the model
    const int log2w = sim::log2_exact(w);
    EXPECT_EQ(warp.counters().shuffles(), static_cast<std::uint64_t>(w / 2 * log2w)) << "W = " << w;
    EXPECT_EQ(warp.counters().count(sim::Op::IndexedRegister), 0u) << "no lane-dependent register index";
    EXPECT_TRUE(warp.flags().empty());
  }
}

TEST(RegisterTranspose, EightyShufflesAtW32AsTheSlidesSay) {
  // Seed 002, slide 16: "For N = 32, it requires 5*(32/2) = 80 shuffle operations".
  sim::Warp warp({.width = 32});
  auto a = oracle::transposed_layout(32);
  oracle::register_transpose(warp, a);
  EXPECT_EQ(warp.counters().shuffles(), 80u);
}

TEST(RegisterTranspose, NumericValuesMoveBitForBit) {
  const int w = 16;
  sim::Warp warp({.width = w});
  sim::RegArray<float> a("a", w);
  for (int r = 0; r < w; ++r)
    for (int c = 0; c < w; ++c) a[r][c] = static_cast<float>(r) + 0.001f * static_cast<float>(c);
  oracle::register_transpose(warp, a);
  for (int r = 0; r < w; ++r)
    for (int c = 0; c < w; ++c) EXPECT_EQ(a[r][c], static_cast<float>(c) + 0.001f * static_cast<float>(r));
}

TEST(RegisterTranspose, PassByPassMatchesTheHypercubeExchange) {
  // After pass b, the element that started in (register r, lane c) sits where
  // bits 0..b of r and c have been swapped.
  const int w = 8;
  sim::Warp warp({.width = w});
  auto a = oracle::transposed_layout(w);
  oracle::register_transpose(warp, a, [&](int pass) {
    const int low = (2 << pass) - 1;
    for (int r = 0; r < w; ++r)
      for (int c = 0; c < w; ++c) {
        const int r0 = (r & ~low) | (c & low), c0 = (c & ~low) | (r & low);
        EXPECT_EQ(a[r][c], sim::Sym::element(r0, c0)) << "pass " << pass << " reg " << r << " lane " << c;
      }
  });
}

// Seed 000, Sec. 3: with registers indexed by the lane number (hardware the
// seed did not have), `for k in 1..W-1: a[myLaneId ^ k] := shfl_xor(a[myLaneId ^ k], k)`
// transposes a W x W block in place in W - 1 shuffles. Run on plain arrays,
// a lane a row (the model flags such indexing: registers_test.cpp).
TEST(SeedStatements, Seed000IndexedTransposeTakesWMinusOneShuffles) {
  for (int w = 2; w <= 64; w *= 2) {
    // transposed layout: register r of lane l holds element l of lane r (Fig. 1b)
    std::vector<std::vector<int>> reg(static_cast<std::size_t>(w), std::vector<int>(static_cast<std::size_t>(w)));
    for (int l = 0; l < w; ++l)
      for (int r = 0; r < w; ++r) reg[static_cast<std::size_t>(l)][static_cast<std::size_t>(r)] = r * 1000 + l;
    int shuffles = 0;
    for (int k = 1; k < w; ++k) {
      std::vector<int> sent(static_cast<std::size_t>(w));
      for (int l = 0; l < w; ++l) sent[static_cast<std::size_t>(l)] = reg[static_cast<std::size_t>(l)][static_cast<std::size_t>(l ^ k)];
      ++shuffles;  // one shfl_xor by k
      for (int l = 0; l < w; ++l) reg[static_cast<std::size_t>(l)][static_cast<std::size_t>(l ^ k)] = sent[static_cast<std::size_t>(l ^ k)];
    }
    EXPECT_EQ(shuffles, w - 1);
    for (int l = 0; l < w; ++l)
      for (int r = 0; r < w; ++r) EXPECT_EQ(reg[static_cast<std::size_t>(l)][static_cast<std::size_t>(r)], l * 1000 + r) << w;  // element r of lane l
  }
}
