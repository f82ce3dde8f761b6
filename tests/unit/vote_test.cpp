#include <gtest/gtest.h>

#include "sim/warp.hpp"

using namespace warpsim::sim;

TEST(Vote, BallotAnyAllOverTheWholeWarp) {
  Warp warp({.width = 32});
  Reg<bool> p("p");
  for (int l = 0; l < 32; ++l) p[l] = (l % 3 == 0);
  Reg<LaneMask> b("b");
  Reg<bool> any("any"), all("all");
  warp.ballot_sync(b, warp.lanes(), p);
  warp.any_sync(any, warp.lanes(), p);
  warp.all_sync(all, warp.lanes(), p);
  LaneMask expect = 0;
  for (int l = 0; l < 32; l += 3) expect |= LaneMask{1} << l;
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(b[l], expect);
    EXPECT_TRUE(any[l]);
    EXPECT_FALSE(all[l]);
  }
  EXPECT_EQ(warp.counters().votes(), 3u);
}

TEST(Vote, InsideADivergentBranchWithActiveMembers) {
  Warp warp({.width = 16});
  Reg<bool> upper("upper"), p("p", true);
  warp.compute(Op::Compare, upper, [](int l) { return l >= 8; });
  Reg<LaneMask> am("am"), b("b");
  Reg<bool> all("all", false);
  warp.if_then(upper, [&] {
    warp.activemask(am);
    warp.ballot_sync(b, PerLane<LaneMask>(am), p);
    warp.all_sync(all, PerLane<LaneMask>(am), p);
  });
  for (int l = 8; l < 16; ++l) {
    EXPECT_EQ(am[l], 0xff00u);
    EXPECT_EQ(b[l], 0xff00u);
    EXPECT_TRUE(all[l]);
  }
  for (int l = 0; l < 8; ++l) EXPECT_FALSE(all[l]);
  EXPECT_EQ(warp.counters().count(Op::ActiveMask), 1u);
}
