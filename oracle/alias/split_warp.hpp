// PSA's split on the warp model (seed 001, Sec. 3.1.1, the baseline): each
// lane finds one split -- the sweep's state after k steps -- by the binary
// search of psa.hpp on the merge path, reading the two prefix sums (light
// deficits D, heavy excesses E; 16-byte integers) from the model's global
// memory, two loads an iteration, in a warp-level loop that runs while any
// lane still searches. The model counts what the searches read.
#pragma once

#include <vector>

#include "oracle/alias/psa.hpp"
#include "sim/global_memory.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle::alias {

struct DevicePrefixSums {
  sim::DeviceArray<u128> deficit, excess;  // D(0..|l|), E(0..|h|)
  std::size_t lights = 0, heavies = 0;
};

inline DevicePrefixSums upload_prefix_sums(sim::GlobalMemory& mem, const Partition& p) {
  DevicePrefixSums d{mem.allocate<u128>(p.deficit.size()), mem.allocate<u128>(p.excess.size()), p.light.size(), p.heavy.size()};
  mem.upload<u128>(d.deficit, p.deficit);
  mem.upload<u128>(d.excess, p.excess);
  return d;
}

// A range [first, last] of i known to hold a lane's split (the partial
// p-ary split's first phase narrows it; split_pary.hpp).
struct SearchRange {
  std::size_t first = 0, last = ~std::size_t{0};
};

// Lane l finds the split of step ks[l] (the warp has ks.size() <= W active
// lanes), searching i in ranges[l] if given.
inline std::vector<Split> split_on_warp(sim::Warp& warp, const sim::GlobalMemory& mem, const DevicePrefixSums& d,
                                        const std::vector<std::size_t>& ks, const std::vector<SearchRange>& ranges = {}) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const int w = warp.width();
  Reg<std::uint64_t> lo("lo"), hi("hi"), mid("mid"), addr("addr");
  Reg<u128> dv("D[mid-1]"), ev("E[k-mid+1]");
  Reg<bool> searching("lo<hi"), light_first("light first");
  auto k = [&](int l) { return static_cast<std::uint64_t>(ks[static_cast<std::size_t>(l) % ks.size()]); };
  auto range = [&](int l) { return ranges.empty() ? SearchRange{} : ranges[static_cast<std::size_t>(l) % ranges.size()]; };
  warp.compute(Op::Other, lo, [&](int l) {
    return std::max<std::uint64_t>(k(l) > d.heavies ? k(l) - d.heavies : 0, range(l).first);
  }, "lo <- max(0, k - |h|, range first)");
  warp.compute(Op::Other, hi, [&](int l) {
    return std::min<std::uint64_t>({k(l), d.lights, range(l).last});
  }, "hi <- min(k, |l|, range last)");
  warp.loop_while(
      searching, [&] { warp.compute(Op::Compare, searching, [&](int l) { return lo[l] < hi[l]; }, "lo < hi"); },
      [&] {
        warp.compute(Op::Other, mid, [&](int l) { return lo[l] + (hi[l] - lo[l] + 1) / 2; }, "mid <- lo + (hi - lo + 1) / 2");
        // j = k - mid; a lane whose j is past the heavies takes the light side without reading.
        warp.compute(Op::Compare, light_first, [&](int l) { return k(l) - mid[l] >= d.heavies; }, "j >= |h|");
        Reg<bool> read("read");
        warp.compute(Op::Compare, read, [&](int l) { return !light_first[l]; }, "!(j >= |h|)");
        warp.if_then(read, [&] {
          warp.compute(Op::Other, addr, [&](int l) { return d.deficit.at(mid[l] - 1); }, "addr <- &D[mid - 1]");
          warp.load_global(dv, mem, PerLane<std::uint64_t>(addr));
          warp.compute(Op::Other, addr, [&](int l) { return d.excess.at(k(l) - mid[l] + 1); }, "addr <- &E[k - mid + 1]");
          warp.load_global(ev, mem, PerLane<std::uint64_t>(addr));
          warp.compute(Op::Compare, light_first, [&](int l) { return dv[l] < ev[l]; }, "D[mid-1] < E[k-mid+1]");
        });
        warp.compute(Op::Select, lo, [&](int l) { return light_first[l] ? mid[l] : lo[l]; }, "lo <- mid if light first");
        warp.compute(Op::Select, hi, [&](int l) { return light_first[l] ? hi[l] : mid[l] - 1; }, "hi <- mid - 1 otherwise");
      });
  std::vector<Split> out;
  for (std::size_t l = 0; l < ks.size() && l < static_cast<std::size_t>(w); ++l) {
    out.push_back({static_cast<std::size_t>(lo[static_cast<int>(l)]), ks[l] - static_cast<std::size_t>(lo[static_cast<int>(l)])});
  }
  return out;
}

}  // namespace warpsim::oracle::alias
