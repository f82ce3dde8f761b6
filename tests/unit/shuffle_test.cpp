// Shuffles: the four modes, per-lane operands, width, aliasing, counters.
#include <gtest/gtest.h>

#include "sim/warp.hpp"

using namespace warpsim::sim;

namespace {

Reg<int> lane_ids(const char* name = "x", int scale = 1) {
  Reg<int> r(name);
  for (int l = 0; l < kMaxLanes; ++l) r[l] = l * scale;
  return r;
}

}  // namespace

TEST(Shuffle, XorExchangesPartnersAcrossTheWarp) {
  Warp warp({.width = 32});
  auto x = lane_ids();
  Reg<int> y("y");
  warp.shfl_xor_sync(y, warp.lanes(), x, 5);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(y[l], l ^ 5) << "lane " << l;
  EXPECT_EQ(warp.counters().count(Op::ShflXor), 1u);
  EXPECT_EQ(warp.counters().shuffles(), 1u);
}

TEST(Shuffle, IdxBroadcastsAndWrapsModuloWidth) {
  Warp warp({.width = 16});
  auto x = lane_ids("x", 10);
  Reg<int> y("y");
  warp.shfl_sync(y, warp.lanes(), x, 3);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(y[l], 30);
  // width 8: srcLane 9 means lane 1 of each 8-lane segment
  warp.shfl_sync(y, warp.lanes(), x, 9, 8);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(y[l], ((l & ~7) + 1) * 10) << "lane " << l;
  // a negative source lane wraps the same way (its low bits are taken)
  warp.shfl_sync(y, warp.lanes(), x, -1, 4);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(y[l], ((l & ~3) + 3) * 10) << "lane " << l;
}

TEST(Shuffle, UpAndDownKeepOwnValueOutsideTheSegment) {
  Warp warp({.width = 32});
  auto x = lane_ids();
  Reg<int> up("up"), down("down");
  warp.shfl_up_sync(up, warp.lanes(), x, 3, 8);
  warp.shfl_down_sync(down, warp.lanes(), x, 3, 8);
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(up[l], (l % 8) >= 3 ? l - 3 : l) << "lane " << l;
    EXPECT_EQ(down[l], (l % 8) + 3 < 8 ? l + 3 : l) << "lane " << l;
  }
  EXPECT_EQ(warp.counters().count(Op::ShflUp), 1u);
  EXPECT_EQ(warp.counters().count(Op::ShflDown), 1u);
}

TEST(Shuffle, DeltaIsReducedToTheLaneBitsAsInPtx) {
  // shfl.sync uses b[4:0]: a delta of 33 on a 32-lane warp moves by 1.
  Warp warp({.width = 32});
  auto x = lane_ids();
  Reg<int> y("y");
  warp.shfl_down_sync(y, warp.lanes(), x, 33);
  for (int l = 0; l < 31; ++l) EXPECT_EQ(y[l], l + 1);
  EXPECT_EQ(y[31], 31);
}

TEST(Shuffle, XorWithNarrowWidthMayReadEarlierButNotLaterSegments) {
  // CUDA Programming Guide, __shfl_xor_sync: lanes may read from earlier
  // groups of `width` lanes; a read from a later group returns their own value.
  Warp warp({.width = 32});
  auto x = lane_ids();
  Reg<int> y("y");
  warp.shfl_xor_sync(y, warp.lanes(), x, 8, 8);
  for (int l = 0; l < 32; ++l) {
    const int partner = l ^ 8;
    EXPECT_EQ(y[l], partner < l ? partner : l) << "lane " << l;
  }
}

TEST(Shuffle, XorTwiceIsNotTheIdentityWhenTheMaskLeavesTheSegment) {
  // A consequence of the rule above that a reader of CUDA code might not expect.
  Warp warp({.width = 16});
  auto x = lane_ids();
  Reg<int> y("y"), z("z");
  warp.shfl_xor_sync(y, warp.lanes(), x, 4, 4);
  warp.shfl_xor_sync(z, warp.lanes(), y, 4, 4);
  EXPECT_EQ(z[4], 0);  // lane 4 read lane 0, which had kept its own value 0
  EXPECT_NE(z[4], x[4]);
}

TEST(Shuffle, PerLaneXorMaskAsInAlgorithm10) {
  // Seed 000's Alg. 10 shuffles with a lane-dependent `flip`.
  Warp warp({.width = 16});
  auto x = lane_ids();
  Reg<int> flip("flip"), y("y");
  for (int l = 0; l < 16; ++l) flip[l] = (l % 3 == 0) ? 1 : 2;
  // Partners must agree to be a permutation; here it need not be one.
  warp.shfl_xor_sync(y, warp.lanes(), x, PerLane<int>(flip));
  for (int l = 0; l < 16; ++l) EXPECT_EQ(y[l], l ^ flip[l]);
}

TEST(Shuffle, PerLaneSourceLane) {
  Warp warp({.width = 8});
  auto x = lane_ids("x", 100);
  Reg<int> src("src"), y("y");
  const int srcs[8] = {7, 7, 0, 3, 3, 5, 1, 2};
  for (int l = 0; l < 8; ++l) src[l] = srcs[l];
  warp.shfl_sync(y, warp.lanes(), x, PerLane<int>(src));
  for (int l = 0; l < 8; ++l) EXPECT_EQ(y[l], srcs[l] * 100);
}

TEST(Shuffle, DestinationMayAliasTheSource) {
  Warp warp({.width = 32});
  auto x = lane_ids();
  warp.shfl_xor_sync(x, warp.lanes(), x, 1);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(x[l], l ^ 1);
}

TEST(Shuffle, WorksOnFloatingPointAndWideWarps) {
  Warp warp({.width = 64});
  Reg<double> x("x"), y("y");
  for (int l = 0; l < 64; ++l) x[l] = 0.5 * l;
  warp.shfl_xor_sync(y, warp.lanes(), x, 32);
  for (int l = 0; l < 64; ++l) EXPECT_EQ(y[l], 0.5 * (l ^ 32));
}

TEST(Shuffle, InsideABranchWithTheActiveMaskAsMembers) {
  Warp warp({.width = 32});
  auto x = lane_ids();
  Reg<bool> low("low");
  Reg<int> y("y", -1);
  warp.compute(Op::Compare, low, [](int l) { return l < 16; });
  warp.if_then(low, [&] { warp.shfl_xor_sync(y, 0x0000ffffu, x, 1); });
  for (int l = 0; l < 16; ++l) EXPECT_EQ(y[l], l ^ 1);
  for (int l = 16; l < 32; ++l) EXPECT_EQ(y[l], -1) << "inactive lanes are not written";
}
