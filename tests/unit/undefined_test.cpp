// Every case CUDA leaves undefined is reported with lane, step and what
// happened, and the instruction writes nothing.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/warp.hpp"

using namespace warpsim::sim;

namespace {

bool has(const UndefinedBehavior& e, Undefined kind, int lane) {
  return std::any_of(e.diagnostics().begin(), e.diagnostics().end(),
                     [&](const Diagnostic& d) { return d.kind == kind && d.lane == lane; });
}

template <class F>
UndefinedBehavior expect_undefined(F&& f) {
  try {
    f();
  } catch (const UndefinedBehavior& e) {
    return e;
  }
  ADD_FAILURE() << "expected UndefinedBehavior";
  return UndefinedBehavior({});
}

}  // namespace

TEST(Undefined, ReadFromInactiveLane) {
  Warp warp({.width = 8});
  Reg<int> x("x", 7), y("y", -1);
  Reg<bool> even("even");
  warp.compute(Op::Compare, even, [](int l) { return l % 2 == 0; });
  // Even lanes name the whole warp as members and read odd lanes, which are not executing.
  auto e = expect_undefined([&] { warp.if_then(even, [&] { warp.shfl_xor_sync(y, 0xffu, x, 1); }); });
  for (int l = 0; l < 8; l += 2) {
    EXPECT_TRUE(has(e, Undefined::SourceLaneInactive, l)) << "lane " << l;
    EXPECT_TRUE(has(e, Undefined::MemberNotExecuting, l)) << "lane " << l;
  }
  EXPECT_EQ(e.diagnostics().front().step, 2u);  // compare, branch, then the shuffle
  EXPECT_EQ(e.diagnostics().front().op, "shfl_xor");
  for (int l = 0; l < 8; ++l) EXPECT_EQ(y[l], -1) << "nothing written";
  EXPECT_EQ(warp.active(), warp.lanes()) << "reconverged after the throw";
}

TEST(Undefined, ReadFromLaneOutsideMemberMask) {
  Warp warp({.width = 8});
  Reg<int> x("x", 7), y("y", -1);
  Reg<bool> low("low");
  warp.compute(Op::Compare, low, [](int l) { return l < 4; });
  auto e = expect_undefined([&] { warp.if_then(low, [&] { warp.shfl_sync(y, 0x0fu, x, 5); }); });
  for (int l = 0; l < 4; ++l) EXPECT_TRUE(has(e, Undefined::SourceOutsideMemberMask, l));
  EXPECT_NE(std::string(e.what()).find("reads lane 5"), std::string::npos) << e.what();
}

TEST(Undefined, MemberMaskOmitsCallingLane) {
  Warp warp({.width = 4});
  Reg<int> x("x"), y("y");
  auto e = expect_undefined([&] { warp.shfl_xor_sync(y, 0x7u, x, 0); });
  EXPECT_TRUE(has(e, Undefined::CallerNotInMemberMask, 3));
  EXPECT_FALSE(has(e, Undefined::CallerNotInMemberMask, 0));
}

TEST(Undefined, LanesNameDifferentMemberMasks) {
  Warp warp({.width = 4});
  Reg<int> x("x"), y("y");
  Reg<LaneMask> masks("masks", 0xfu);
  masks[2] = 0xeu;  // lane 2 also leaves out lane 0
  auto e = expect_undefined([&] { warp.shfl_xor_sync(y, PerLane<LaneMask>(masks), x, 1); });
  EXPECT_TRUE(has(e, Undefined::MemberMaskMismatch, 2));
  EXPECT_FALSE(has(e, Undefined::MemberMaskMismatch, 1));
}

TEST(Undefined, VotesFollowTheSameMemberRules) {
  Warp warp({.width = 8});
  Reg<bool> p("p", true);
  Reg<LaneMask> b("b");
  Reg<bool> odd("odd");
  warp.compute(Op::Compare, odd, [](int l) { return l % 2 == 1; });
  auto e = expect_undefined([&] { warp.if_then(odd, [&] { warp.ballot_sync(b, 0xffu, p); }); });
  EXPECT_TRUE(has(e, Undefined::MemberNotExecuting, 1));
  auto e2 = expect_undefined([&] { warp.all_sync(p, 0x0fu, p); });
  EXPECT_TRUE(has(e2, Undefined::CallerNotInMemberMask, 7));
}

TEST(Undefined, WidthMustBeAPowerOfTwoWithinTheWarp) {
  Warp warp({.width = 16});
  Reg<int> x("x"), y("y");
  EXPECT_TRUE(has(expect_undefined([&] { warp.shfl_down_sync(y, warp.lanes(), x, 1, 6); }), Undefined::InvalidWidth, 0));
  EXPECT_TRUE(has(expect_undefined([&] { warp.shfl_down_sync(y, warp.lanes(), x, 1, 32); }), Undefined::InvalidWidth, 15));
}

TEST(Undefined, MaskNamingLanesBeyondTheWarp) {
  Warp warp({.width = 16});
  Reg<int> x("x"), y("y");
  EXPECT_TRUE(has(expect_undefined([&] { warp.shfl_xor_sync(y, 0xffffffffu, x, 1); }), Undefined::MaskBeyondWarp, 0));
}

TEST(Undefined, GlobalAccessesOutOfBoundsOrMisaligned) {
  Warp warp({.width = 4});
  GlobalMemory mem;
  auto arr = mem.allocate<float>(4);
  Reg<float> v("v", 1.0f);
  Reg<std::uint64_t> addr("addr");
  for (int l = 0; l < 4; ++l) addr[l] = arr.at(static_cast<std::size_t>(l + 1));  // lane 3 reads past the end
  EXPECT_TRUE(has(expect_undefined([&] { warp.load_global(v, mem, PerLane<std::uint64_t>(addr)); }),
                  Undefined::OutOfBounds, 3));
  addr[3] = arr.address + 2;
  EXPECT_TRUE(has(expect_undefined([&] { warp.load_global(v, mem, PerLane<std::uint64_t>(addr)); }),
                  Undefined::Misaligned, 3));
  for (int l = 0; l < 4; ++l) EXPECT_EQ(v[l], 1.0f) << "nothing written";
}

TEST(Undefined, LanesStoringDifferentValuesToOneAddress) {
  Warp warp({.width = 4});
  GlobalMemory mem;
  auto arr = mem.allocate<int>(4);
  Reg<int> v("v");
  for (int l = 0; l < 4; ++l) v[l] = l;
  auto e = expect_undefined([&] { warp.store_global(mem, arr.at(0), v); });
  EXPECT_TRUE(has(e, Undefined::ConflictingStores, 1));
  Reg<int> same("same", 9);
  EXPECT_NO_THROW(warp.store_global(mem, arr.at(0), same)) << "one value from every lane is well defined";
}

TEST(Undefined, LocalAndRegisterArrayIndicesOutOfRange) {
  Warp warp({.width = 4});
  LocalArray<int> loc("loc", 3);
  RegArray<int> regs("r", 3);
  Reg<int> idx("idx", 1), v("v");
  idx[2] = 3;
  EXPECT_TRUE(has(expect_undefined([&] { warp.load_local(v, loc, PerLane<int>(idx)); }), Undefined::OutOfBounds, 2));
  EXPECT_TRUE(has(expect_undefined([&] { warp.read_indexed(v, regs, PerLane<int>(idx)); }), Undefined::OutOfBounds, 2));
}

TEST(Undefined, DiagnosticTextNamesStepLaneAndWhat) {
  Diagnostic d{12, 5, Undefined::SourceLaneInactive, "shfl", "reads lane 6, which is inactive"};
  EXPECT_EQ(d.to_string(), "step 12, lane 5, shfl: source lane inactive (reads lane 6, which is inactive)");
}

TEST(Undefined, SharedMemoryReadAnotherLaneWroteNeedsASyncwarp) {
  // Lane 3 publishes a value for the others through shared memory: without
  // __syncwarp between the store and the loads, under independent thread
  // scheduling the loads need not see it.
  Warp warp({.width = 4});
  SharedMemory smem(64);
  auto slot = smem.allocate<float>(4);
  Reg<float> v("v"), got("got", -1.0f);
  for (int l = 0; l < 4; ++l) v[l] = 10.0f + static_cast<float>(l);
  Reg<bool> last("last");
  for (int l = 0; l < 4; ++l) last[l] = l == 3;
  warp.if_then(last, [&] { warp.store_shared(smem, PerLane<std::uint64_t>(slot.at(0)), v); });
  auto e = expect_undefined([&] { warp.load_shared(got, smem, PerLane<std::uint64_t>(slot.at(0))); });
  EXPECT_TRUE(has(e, Undefined::UnsyncedSharedRead, 0));
  EXPECT_FALSE(has(e, Undefined::UnsyncedSharedRead, 3)) << "a lane reads its own write in order";
  for (int l = 0; l < 4; ++l) EXPECT_EQ(got[l], -1.0f) << "nothing written";
  warp.syncwarp(full_mask(4));
  warp.load_shared(got, smem, PerLane<std::uint64_t>(slot.at(0)));
  for (int l = 0; l < 4; ++l) EXPECT_EQ(got[l], 13.0f);
  EXPECT_EQ(warp.counters().count(Op::SyncWarp), 1u);
  // __syncwarp itself follows the member-mask rules.
  EXPECT_TRUE(has(expect_undefined([&] { warp.syncwarp(LaneMask{0b0111}); }), Undefined::MemberNotExecuting, 0) ||
              has(expect_undefined([&] { warp.syncwarp(LaneMask{0b0111}); }), Undefined::CallerNotInMemberMask, 3));
}
