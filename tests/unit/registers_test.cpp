// Register arrays: constant (uniform) indices are free; lane-dependent ones
// are counted and flagged, because NVIDIA hardware has no such instruction.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/warp.hpp"

using namespace warpsim::sim;

TEST(Registers, UniformIndexIsAPlainMove) {
  Warp warp({.width = 4});
  RegArray<int> r("r", 4);
  for (int i = 0; i < 4; ++i)
    for (int l = 0; l < 4; ++l) r[i][l] = 10 * i + l;
  Reg<int> v("v");
  warp.read_indexed(v, r, 2);
  for (int l = 0; l < 4; ++l) EXPECT_EQ(v[l], 20 + l);
  EXPECT_EQ(warp.counters().count(Op::IndexedRegister), 0u);
  EXPECT_EQ(warp.counters().count(Op::Move), 1u);
  EXPECT_TRUE(warp.flags().empty());
}

TEST(Registers, LaneDependentIndexIsCountedAndFlagged) {
  // Seed 002, slide 14: reg[m] = __shfl(reg[m], m) with m = (j - k) mod N.
  Warp warp({.width = 4});
  RegArray<int> r("reg", 4);
  for (int i = 0; i < 4; ++i)
    for (int l = 0; l < 4; ++l) r[i][l] = 10 * i + l;
  Reg<int> m("m"), v("v");
  warp.compute(Op::Logic, m, [](int l) { return (1 - l) & 3; });
  warp.read_indexed(v, r, PerLane<int>(m));
  for (int l = 0; l < 4; ++l) EXPECT_EQ(v[l], 10 * ((1 - l) & 3) + l);
  warp.write_indexed(r, PerLane<int>(m), v);
  EXPECT_EQ(warp.counters().count(Op::IndexedRegister), 2u);
  ASSERT_EQ(warp.flags().size(), 2u);
  EXPECT_NE(warp.flags()[0].what.find("lane-dependent index"), std::string::npos);
}

TEST(Registers, RegArrayNamesItsRows) {
  RegArray<float> a("a", 3);
  EXPECT_EQ(a[2].name(), "a[2]");
  EXPECT_THROW(a[3], std::out_of_range);
}

TEST(Registers, FmaRoundsOnceAndMulAddTwice) {
  // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: the product rounded alone loses the 2^-24.
  Warp warp({.width = 2});
  Reg<float> a("a", 1.0f + std::ldexp(1.0f, -12)), fused("fused"), prod("prod"), sep("sep");
  warp.fma(fused, a, PerLane<float>(a), PerLane<float>(-1.0f));
  warp.mul(prod, a, PerLane<float>(a));
  warp.add(sep, prod, PerLane<float>(-1.0f));
  EXPECT_EQ(fused[0], std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24));
  EXPECT_EQ(sep[0], std::ldexp(1.0f, -11));
  EXPECT_EQ(warp.counters().count(Op::Fma), 1u);
}
