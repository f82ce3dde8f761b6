// RapidCheck generators for the warp model's properties.
#pragma once

#include <rapidcheck.h>

#include "sim/lane_mask.hpp"

namespace warpsim::sim_gen {

// A warp width: a power of two from 2 to 64.
inline rc::Gen<int> gen_warp_width() {
  return rc::gen::map(rc::gen::inRange(1, 7), [](int e) { return 1 << e; });
}

// A shuffle width for a warp of `w` lanes: a power of two from 1 to w.
inline rc::Gen<int> gen_shuffle_width(int w) {
  return rc::gen::map(rc::gen::inRange(0, sim::log2_exact(w) + 1), [](int e) { return 1 << e; });
}

// A non-empty set of lanes of a warp of `w` lanes.
inline rc::Gen<sim::LaneMask> gen_lane_set(int w) {
  return rc::gen::suchThat(rc::gen::map(rc::gen::arbitrary<std::uint64_t>(),
                                        [w](std::uint64_t m) { return m & sim::full_mask(w); }),
                           [](sim::LaneMask m) { return m != 0; });
}

}  // namespace warpsim::sim_gen
