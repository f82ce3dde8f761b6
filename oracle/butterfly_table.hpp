// Seed 000, Sec. 3 and Alg. 8 (lines 18-30): the butterfly-patterned partial
// sums table of one W x W block, built in registers with W - 1 shfl_xor.
//
// On entry a[k] in lane r holds element r of lane k's array (the transposed
// layout that coalesced loads leave). On level b (bit = 2^b) every pair of
// rows (d, d + bit) with d = 2·bit·i + bit - 1 and every pair of lanes
// (L, H = L | bit) form a 2 x 2 block [a c'; c d'] -- rows are registers,
// columns lanes -- that one shfl_xor turns into
//   Standard: [a c; a+b c+d]   (the seed's first listing)
//   AddSub:   [a d; a+b c+d]   (the seed's faster variant, Alg. 8)
// writing the block as [a b; c d] with a, c in lane L and b, d in lane H.
// Afterwards row W - 1 of every lane holds the sum of its own array.
// (The seed's text gives the standard replacement as [a b; a+b c+d]; see
// docs/errata.md, E3.)
#pragma once

#include <functional>
#include <stdexcept>

#include "sim/reg.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle {

enum class ButterflyVariant { Standard, AddSub };

inline const char* variant_name(ButterflyVariant v) { return v == ButterflyVariant::Standard ? "standard" : "addsub"; }

// Called after each shfl_xor with (level b, pair index i), for step-by-step views.
using ButterflyObserver = std::function<void(int level, int pair)>;

template <class T>
void butterfly_build(sim::Warp& warp, sim::RegArray<T>& a, ButterflyVariant variant,
                     const ButterflyObserver& observe = {}) {
  const int w = warp.width();
  if (a.size() != w) throw std::invalid_argument("butterfly_build: needs exactly W registers per lane");
  sim::Reg<int> lane("lane");
  warp.lane_id(lane);
  sim::Reg<bool> upper("upper");  // lane has `bit` set: it is the H lane of its pair
  sim::Reg<T> h("h"), v("v");
  for (int b = 0; (1 << b) < w; ++b) {
    const int bit = 1 << b;
    warp.compute(sim::Op::Logic, upper, [&](int l) { return (lane[l] & bit) != 0; });
    for (int i = 0; i < w / (2 * bit); ++i) {
      const int d = 2 * bit * i + bit - 1;
      sim::Reg<T>& lo = a[d];
      sim::Reg<T>& hi = a[d + bit];
      // h = upper ? a[d] : a[d + bit]; v = shfl_xor(h, bit)
      warp.select(h, upper, sim::PerLane<T>(lo), sim::PerLane<T>(hi));
      warp.shfl_xor_sync(v, warp.lanes(), h, bit);
      if (variant == ButterflyVariant::Standard) {
        // if (upper) a[d] = v; else a[d + bit] = v;  a[d + bit] += a[d];
        warp.select(lo, upper, sim::PerLane<T>(v), sim::PerLane<T>(lo));
        warp.select(hi, upper, sim::PerLane<T>(hi), sim::PerLane<T>(v));
        warp.add(hi, hi, sim::PerLane<T>(lo));
      } else {
        // if (upper) a[d] = a[d + bit];  a[d + bit] = a[d] + v;
        warp.select(lo, upper, sim::PerLane<T>(hi), sim::PerLane<T>(lo));
        warp.compute(sim::Op::Add, hi, [&](int l) { return static_cast<T>(lo[l] + v[l]); });
      }
      if (observe) observe(b, i);
    }
  }
}

}  // namespace warpsim::oracle
