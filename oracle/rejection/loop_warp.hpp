// Seed 004's two rejection loops written on the warp model (sim/), so that
// the model counts a warp's iterations as the hardware would run them:
//
//   uncached    do { x = g(); } while (!a(x));      a while-any loop: lanes
//                                                   that accepted retire, the
//                                                   warp runs while any loops
//   pre-cached  do { ... } while (!__all(currentValid));   a uniform loop on
//                                                   an all vote, each lane
//                                                   keeping a current and a
//                                                   cached sample across calls
//
// A proposal is accepted with probability p: lane l's j-th proposal of call
// c takes rng/'s uniform<double>(seed, stream = 64 c + l, draw = j) and
// accepts when it is below p (the same numbers a kernel can take). Returns
// each call's warp iterations, which loop_model.hpp's laws predict.
#pragma once

#include <cstdint>
#include <vector>

#include "rng/philox_uniform.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle::rejection {

/// Whether lane l's j-th proposal of call c is accepted (the mapping above).
inline bool proposal_accepted(double p, std::uint64_t seed, int c, int l, int j) {
  return rng::uniform<double>(seed, 64 * static_cast<std::uint64_t>(c) + static_cast<std::uint64_t>(l), static_cast<std::uint32_t>(j)) < p;
}

/// Warp iterations of `calls` uncached calls on a warp of `lanes` (a power
/// of two, 2 to 64).
inline std::vector<int> uncached_on_warp(int lanes, double p, std::uint64_t seed, int calls) {
  using sim::Op;
  using sim::PerLane;
  sim::Warp warp(sim::WarpConfig{.width = lanes});
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(calls));
  for (int c = 0; c < calls; ++c) {
    sim::Reg<bool> accepted("accepted", false), looping("looping");
    sim::Reg<int> j("j", 0);
    // do { x = g(); } while (!a(x)): the test first (it holds on entry).
    out.push_back(warp.loop_while(
        looping, [&] { warp.compute(Op::Compare, looping, [&](int l) { return !accepted[l]; }, "looping <- !accepted"); },
        [&] {
          warp.compute(Op::Other, accepted, [&](int l) { return proposal_accepted(p, seed, c, l, j[l]); }, "accepted <- a(g())");
          warp.compute(Op::Add, j, [&](int l) { return j[l] + 1; });
        }));
  }
  return out;
}

/// Warp iterations of `calls` pre-cached calls in a row (seed 004's second
/// listing, the same parameters every call; the first call finds no cache).
inline std::vector<int> cached_on_warp(int lanes, double p, std::uint64_t seed, int calls) {
  using sim::Op;
  using sim::PerLane;
  sim::Warp warp(sim::WarpConfig{.width = lanes});
  const sim::LaneMask full = sim::full_mask(lanes);
  sim::Reg<bool> cached_valid("cachedValid", false);  // static across calls
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(calls));
  for (int c = 0; c < calls; ++c) {
    sim::Reg<bool> current_valid("currentValid"), valid("valid"), all("all"), go("go");
    sim::Reg<int> j("j", 0);
    warp.mov(current_valid, PerLane<bool>(cached_valid));  // currentValid = cachedValid && cachedParms == parms
    warp.mov(cached_valid, PerLane<bool>(false));          // cachedValid = false
    bool first = true;                                      // a do-while: the body runs once before the vote
    out.push_back(warp.loop_while(
        go,
        [&] {
          warp.all_sync(all, PerLane<sim::LaneMask>(full), current_valid);
          warp.compute(Op::Compare, go, [&](int l) { return first || !all[l]; }, "go <- first || !__all(currentValid)");
          first = false;
        },
        [&] {
          warp.compute(Op::Other, valid, [&](int l) { return proposal_accepted(p, seed, c, l, j[l]); }, "valid <- a(g())");
          warp.compute(Op::Add, j, [&](int l) { return j[l] + 1; });
          // if (!currentValid) currentValid = valid; else if (!cachedValid) cachedValid = valid;  (predicated)
          warp.compute(Op::Select, cached_valid, [&](int l) { return current_valid[l] && !cached_valid[l] ? valid[l] : cached_valid[l]; });
          warp.compute(Op::Select, current_valid, [&](int l) { return current_valid[l] || valid[l]; });
        }));
  }
  return out;
}

}  // namespace warpsim::oracle::rejection
