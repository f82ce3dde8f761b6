// Shuffles agree with their scalar definitions (CUDA Programming Guide,
// written independently of the PTX-style code in sim/insn/shfl.hpp).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

#include "generators.hpp"
#include "sim/warp.hpp"

using namespace warpsim::sim;
using warpsim::sim_gen::gen_lane_set;
using warpsim::sim_gen::gen_shuffle_width;
using warpsim::sim_gen::gen_warp_width;

namespace {

Reg<std::int64_t> random_values(int w) {
  Reg<std::int64_t> r("var");
  const auto vals = *rc::gen::container<std::vector<std::int64_t>>(static_cast<std::size_t>(w), rc::gen::arbitrary<std::int64_t>());
  for (int l = 0; l < w; ++l) r[l] = vals[static_cast<std::size_t>(l)];
  return r;
}

}  // namespace

RC_GTEST_PROP(ShuffleProperties, XorWithOneMaskTwiceIsTheIdentity, ()) {
  const int w = *gen_warp_width();
  const int width = *gen_shuffle_width(w);
  // Within a segment (mask < width) the exchange is a permutation and its own inverse.
  const int mask = *rc::gen::inRange(0, width);
  Warp warp({.width = w});
  auto x = random_values(w);
  Reg<std::int64_t> y("y"), z("z");
  warp.shfl_xor_sync(y, warp.lanes(), x, mask, width);
  warp.shfl_xor_sync(z, warp.lanes(), y, mask, width);
  for (int l = 0; l < w; ++l) RC_ASSERT(z[l] == x[l]);
  RC_ASSERT(warp.counters().count(Op::ShflXor) == 2u);
}

RC_GTEST_PROP(ShuffleProperties, ShflWithAnyPerLaneSourceMatchesItsScalarDefinition, ()) {
  const int w = *gen_warp_width();
  const int width = *gen_shuffle_width(w);
  Warp warp({.width = w});
  auto x = random_values(w);
  Reg<int> src("src");
  for (int l = 0; l < w; ++l) src[l] = *rc::gen::inRange(-200, 200);
  Reg<std::int64_t> y("y");
  warp.shfl_sync(y, warp.lanes(), x, PerLane<int>(src), width);
  for (int l = 0; l < w; ++l) {
    // "srcLane outside [0, width-1]: the value of srcLane modulo width, within the same subsection"
    const int segment = l - l % width;
    const int s = ((src[l] % width) + width) % width;
    RC_ASSERT(y[l] == x[segment + s]);
  }
}

RC_GTEST_PROP(ShuffleProperties, UpAndDownMatchTheirScalarDefinitions, ()) {
  const int w = *gen_warp_width();
  const int width = *gen_shuffle_width(w);
  const int delta = *rc::gen::inRange(0, w);
  Warp warp({.width = w});
  auto x = random_values(w);
  Reg<std::int64_t> up("up"), down("down");
  warp.shfl_up_sync(up, warp.lanes(), x, delta, width);
  warp.shfl_down_sync(down, warp.lanes(), x, delta, width);
  for (int l = 0; l < w; ++l) {
    const int pos = l % width;  // position within the segment
    RC_ASSERT(up[l] == (pos - delta >= 0 ? x[l - delta] : x[l]));
    RC_ASSERT(down[l] == (pos + delta < width ? x[l + delta] : x[l]));
  }
}

RC_GTEST_PROP(ShuffleProperties, XorWithPerLaneMasksMatchesItsScalarDefinition, ()) {
  const int w = *gen_warp_width();
  Warp warp({.width = w});
  auto x = random_values(w);
  Reg<int> m("m");
  for (int l = 0; l < w; ++l) m[l] = *rc::gen::inRange(0, w);
  Reg<std::int64_t> y("y");
  warp.shfl_xor_sync(y, warp.lanes(), x, PerLane<int>(m));
  for (int l = 0; l < w; ++l) RC_ASSERT(y[l] == x[l ^ m[l]]);
}

RC_GTEST_PROP(ShuffleProperties, UndefinedReadsAreReportedForExactlyTheLanesAtFault, ()) {
  const int w = *gen_warp_width();
  const LaneMask active = *gen_lane_set(w);
  Warp warp({.width = w});
  auto x = random_values(w);
  Reg<int> src("src");
  for (int l = 0; l < w; ++l) src[l] = *rc::gen::inRange(0, w);
  Reg<bool> p("p");
  for (int l = 0; l < w; ++l) p[l] = has_lane(active, l);
  Reg<std::int64_t> y("y", 0);
  LaneMask expected_faults = 0;
  for_each_lane(active, [&](int l) {
    if (!has_lane(active, src[l])) expected_faults |= LaneMask{1} << l;
  });
  LaneMask reported = 0;
  try {
    // Members are exactly the executing lanes, so only the reads can be at fault.
    warp.if_then(p, [&] { warp.shfl_sync(y, active, x, PerLane<int>(src)); });
  } catch (const UndefinedBehavior& e) {
    for (const auto& d : e.diagnostics()) {
      RC_ASSERT(d.kind == Undefined::SourceOutsideMemberMask);
      reported |= LaneMask{1} << d.lane;
    }
  }
  RC_ASSERT(reported == expected_faults);
  if (expected_faults == 0) for_each_lane(active, [&](int l) { RC_ASSERT(y[l] == x[src[l]]); });
  if (expected_faults != 0) for (int l = 0; l < w; ++l) RC_ASSERT(y[l] == 0);
}
