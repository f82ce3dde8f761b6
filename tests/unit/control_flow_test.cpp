// Divergence and reconvergence: if/else and loops that run while any lane works.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/warp.hpp"

using namespace warpsim::sim;

TEST(ControlFlow, IfElseRunsEachSideOnItsLanesAndReconverges) {
  Warp warp({.width = 8});
  Reg<bool> p("p");
  Reg<int> x("x", 0);
  warp.compute(Op::Compare, p, [](int l) { return l < 3; });
  LaneMask seen_then = 0, seen_else = 0;
  warp.if_else(
      p,
      [&] {
        seen_then = warp.active();
        warp.mov(x, PerLane<int>(1));
      },
      [&] {
        seen_else = warp.active();
        warp.mov(x, PerLane<int>(2));
      });
  EXPECT_EQ(seen_then, 0x07u);
  EXPECT_EQ(seen_else, 0xf8u);
  EXPECT_EQ(warp.active(), 0xffu);
  for (int l = 0; l < 8; ++l) EXPECT_EQ(x[l], l < 3 ? 1 : 2);
  EXPECT_EQ(warp.counters().divergent_branches, 1u);
}

TEST(ControlFlow, UniformBranchSkipsTheEmptySideAndIsNotDivergent) {
  Warp warp({.width = 4});
  Reg<bool> p("p", true);
  bool else_ran = false;
  warp.if_else(p, [] {}, [&] { else_ran = true; });
  EXPECT_FALSE(else_ran);
  EXPECT_EQ(warp.counters().divergent_branches, 0u);
  EXPECT_EQ(warp.counters().count(Op::Branch), 1u);
}

TEST(ControlFlow, NestedBranchesIntersectMasks) {
  Warp warp({.width = 8});
  Reg<bool> a("a"), b("b");
  warp.compute(Op::Compare, a, [](int l) { return l % 2 == 0; });
  warp.compute(Op::Compare, b, [](int l) { return l < 4; });
  LaneMask inner = 0;
  warp.if_then(a, [&] { warp.if_then(b, [&] { inner = warp.active(); }); });
  EXPECT_EQ(inner, 0x05u);
  EXPECT_EQ(warp.active(), 0xffu);
}

TEST(ControlFlow, LoopRunsWhileAnyLaneWorksAndRetiresFinishedLanes) {
  // Each lane counts down from its lane number, like a master-index loop.
  Warp warp({.width = 8});
  Reg<int> n("n"), iters("iters", 0);
  warp.lane_id(n);
  Reg<bool> more("more");
  std::vector<LaneMask> masks;
  const int iterations = warp.loop_while(
      more, [&] { warp.compute(Op::Compare, more, [&](int l) { return n[l] > 0; }); },
      [&] {
        masks.push_back(warp.active());
        warp.sub(n, n, PerLane<int>(1));
        warp.add(iters, iters, PerLane<int>(1));
      });
  EXPECT_EQ(iterations, 7);
  for (int l = 0; l < 8; ++l) EXPECT_EQ(iters[l], l);
  EXPECT_EQ(masks.front(), 0xfeu);
  EXPECT_EQ(masks.back(), 0x80u);
  EXPECT_EQ(warp.active(), 0xffu);
  EXPECT_EQ(warp.counters().loop_iterations, 7u);
}

TEST(ControlFlow, ActiveMaskIsRestoredWhenABodyThrows) {
  Warp warp({.width = 4});
  Reg<bool> p("p");
  warp.compute(Op::Compare, p, [](int l) { return l == 0; });
  EXPECT_THROW(warp.if_then(p, [] { throw std::runtime_error("boom"); }), std::runtime_error);
  EXPECT_EQ(warp.active(), 0xfu);
}

TEST(ControlFlow, InactiveLanesAreNotWrittenByArithmetic) {
  Warp warp({.width = 4});
  Reg<bool> p("p");
  Reg<float> x("x", 1.0f);
  warp.compute(Op::Compare, p, [](int l) { return l >= 2; });
  warp.if_then(p, [&] { warp.add(x, x, PerLane<float>(1.0f)); });
  EXPECT_EQ(x[0], 1.0f);
  EXPECT_EQ(x[3], 2.0f);
  EXPECT_EQ(warp.counters().lane_operations, 4u + 4u + 2u) << "compare on 4, branch on 4, add on 2";
}

TEST(ControlFlow, WarpWidthMustBeAPowerOfTwoFrom2To64) {
  EXPECT_THROW(Warp({.width = 1}), std::invalid_argument);
  EXPECT_THROW(Warp({.width = 24}), std::invalid_argument);
  EXPECT_THROW(Warp({.width = 128}), std::invalid_argument);
  EXPECT_THROW(Warp({.width = 32, .line_bytes = 16}), std::invalid_argument);
  for (int w = 2; w <= 64; w *= 2) EXPECT_EQ(Warp({.width = w}).lanes(), full_mask(w));
}
