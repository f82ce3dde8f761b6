#include <gtest/gtest.h>

#include "sim/warp.hpp"

using namespace warpsim::sim;

namespace {

// A few instructions of every kind; returns the warp for inspection.
Warp run(bool trace) {
  Warp warp({.width = 4, .trace = trace});
  Reg<int> x("x"), y("y");
  warp.lane_id(x);
  warp.shfl_xor_sync(y, warp.lanes(), x, 1);
  Reg<bool> p("p");
  warp.compute(Op::Compare, p, [&](int l) { return y[l] > x[l]; }, "p <- y > x");
  warp.if_then(p, [&] { warp.add(x, x, PerLane<int>(10)); });
  return warp;
}

}  // namespace

TEST(Trace, RecordsEachStepWithActiveMaskAndChangedLanes) {
  Warp warp = run(true);
  const auto& t = warp.trace();
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[1].op, Op::ShflXor);
  EXPECT_EQ(t[1].label, "shfl_xor y <- x, 1");
  ASSERT_EQ(t[1].changes.size(), 1u);
  EXPECT_EQ(t[1].changes[0].reg, "y");
  // y was 0 everywhere; lane 1 reads lane 0's 0, so only lanes 0, 2, 3 change.
  ASSERT_EQ(t[1].changes[0].lanes.size(), 3u);
  EXPECT_EQ(t[1].changes[0].lanes[0].after, "1");
  EXPECT_EQ(t[1].changes[0].lanes[1].lane, 2);
  EXPECT_EQ(t[2].label, "p <- y > x");
  EXPECT_EQ(t[3].op, Op::Branch);
  EXPECT_EQ(t[3].note, "taken 0x5, not taken 0xa");
  EXPECT_EQ(t[4].active, 0x5u);
  ASSERT_EQ(t[4].changes.size(), 1u);
  EXPECT_EQ(t[4].changes[0].lanes.size(), 2u);
  EXPECT_EQ(t[4].changes[0].lanes[1].lane, 2);
  EXPECT_EQ(t[4].changes[0].lanes[1].before, "2");
  EXPECT_EQ(t[4].changes[0].lanes[1].after, "12");
  for (std::size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t[i].step, i);
}

TEST(Trace, OffRecordsNothingAndCountsTheSame) {
  Warp off = run(false);
  Warp on = run(true);
  EXPECT_TRUE(off.trace().empty());
  EXPECT_EQ(off.counters(), on.counters());
  EXPECT_EQ(off.step(), on.step());
}

TEST(Trace, UnchangedLanesAreLeftOut) {
  Warp warp({.width = 4, .trace = true});
  Reg<int> x("x", 5);
  warp.mov(x, PerLane<int>(5));
  ASSERT_EQ(warp.trace().size(), 1u);
  EXPECT_TRUE(warp.trace()[0].changes.empty());
}
