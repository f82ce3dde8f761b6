// Seed 000, Fig. 2 (seed 002, slides 16-20): transpose W registers across the
// W lanes of a warp with shfl_xor. On pass b (0 <= b < log2 W) lane k trades
// with lane k ^ 2^b the registers whose index differs from its own partner's
// in bit b; each lane picks which of a pair to send with a select (the "? :"
// of the slides), never with a lane-dependent register index. W/2 shuffles a
// pass, (W/2)·log2 W in all.
#pragma once

#include <functional>
#include <stdexcept>

#include "sim/reg.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle {

// Called after each pass with the pass number, for step-by-step views.
using PassObserver = std::function<void(int pass)>;

template <class T>
void register_transpose(sim::Warp& warp, sim::RegArray<T>& a, const PassObserver& after_pass = {}) {
  const int w = warp.width();
  if (a.size() != w) throw std::invalid_argument("register_transpose: needs exactly W registers per lane");
  sim::Reg<int> lane("lane");
  warp.lane_id(lane);
  sim::Reg<bool> upper("upper");  // lane k has bit b set: it sends a[r], keeps a[r ^ 2^b]
  sim::Reg<T> send("send");
  sim::Reg<T> recv("recv");
  for (int pass = 0; (1 << pass) < w; ++pass) {
    const int bit = 1 << pass;
    warp.compute(sim::Op::Logic, upper, [&](int l) { return (lane[l] & bit) != 0; }, "upper <- lane & " + std::to_string(bit));
    for (int r = 0; r < w; ++r) {
      if (r & bit) continue;
      warp.select(send, upper, sim::PerLane<T>(a[r]), sim::PerLane<T>(a[r | bit]));
      warp.shfl_xor_sync(recv, warp.lanes(), send, bit);
      warp.select(a[r], upper, sim::PerLane<T>(recv), sim::PerLane<T>(a[r]));
      warp.select(a[r | bit], upper, sim::PerLane<T>(a[r | bit]), sim::PerLane<T>(recv));
    }
    if (after_pass) after_pass(pass);
  }
}

}  // namespace warpsim::oracle
