// Votes agree with their scalar definitions under any active mask.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators.hpp"
#include "sim/warp.hpp"

using namespace warpsim::sim;
using warpsim::sim_gen::gen_lane_set;
using warpsim::sim_gen::gen_warp_width;

RC_GTEST_PROP(VoteProperties, BallotAnyAllMatchScalarDefinitionsUnderAnyMask, ()) {
  const int w = *gen_warp_width();
  const LaneMask active = *gen_lane_set(w);
  const auto bits = *rc::gen::arbitrary<std::uint64_t>();
  Warp warp({.width = w});
  Reg<bool> in("in"), pred("pred"), any("any", false), all("all", false);
  for (int l = 0; l < w; ++l) {
    in[l] = has_lane(active, l);
    pred[l] = (bits >> l) & 1U;
  }
  Reg<LaneMask> ballot("ballot", 0), am("am", 0);
  warp.if_then(in, [&] {
    warp.activemask(am);
    warp.ballot_sync(ballot, active, pred);
    warp.any_sync(any, active, pred);
    warp.all_sync(all, active, pred);
  });
  bool expect_any = false, expect_all = true;
  LaneMask expect_ballot = 0;
  for (int l = 0; l < w; ++l) {
    if (!has_lane(active, l)) continue;
    expect_any = expect_any || pred[l];
    expect_all = expect_all && pred[l];
    if (pred[l]) expect_ballot |= LaneMask{1} << l;
  }
  for (int l = 0; l < w; ++l) {
    if (has_lane(active, l)) {
      RC_ASSERT(am[l] == active);
      RC_ASSERT(ballot[l] == expect_ballot);
      RC_ASSERT(any[l] == expect_any);
      RC_ASSERT(all[l] == expect_all);
    } else {
      RC_ASSERT(ballot[l] == 0u);  // inactive lanes are not written
    }
  }
}

RC_GTEST_PROP(VoteProperties, AMaskNamingANonExecutingLaneIsAlwaysReported, ()) {
  const int w = *gen_warp_width();
  const LaneMask active = *gen_lane_set(w);
  RC_PRE(active != full_mask(w));
  Warp warp({.width = w});
  Reg<bool> in("in"), pred("pred", true);
  for (int l = 0; l < w; ++l) in[l] = has_lane(active, l);
  Reg<LaneMask> ballot("ballot");
  bool threw = false;
  try {
    warp.if_then(in, [&] { warp.ballot_sync(ballot, warp.lanes(), pred); });
  } catch (const UndefinedBehavior& e) {
    threw = true;
    for (const auto& d : e.diagnostics()) RC_ASSERT(has_lane(active, d.lane));
  }
  RC_ASSERT(threw);
}
