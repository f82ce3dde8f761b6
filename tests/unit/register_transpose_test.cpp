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
