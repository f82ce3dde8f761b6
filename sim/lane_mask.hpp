// Lane masks: one bit per lane, bit i for lane i, up to 64 lanes.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

namespace warpsim::sim {

inline constexpr int kMaxLanes = 64;

// The model's per-lane accessors, inlined in every build: unoptimised
// (scripts/test.sh's sanitizer build, -O0) each was a call, and a register's
// lane read was three (std::array's operator[] and its _S_ref under
// Reg::operator[]): together about a third of `warpsim validate`'s time on
// a model sampler there (perf, warp-per-row through the plugin). The
// optimised builds inline them anyway.
#define WARPSIM_SIM_INLINE [[gnu::always_inline]] inline

using LaneMask = std::uint64_t;

// The mask with the low `width` bits set (all lanes of a warp of that width).
constexpr LaneMask full_mask(int width) {
  return width >= 64 ? ~LaneMask{0} : ((LaneMask{1} << width) - 1);
}

WARPSIM_SIM_INLINE constexpr bool has_lane(LaneMask mask, int lane) { return (mask >> lane) & 1U; }

constexpr int lane_count(LaneMask mask) { return std::popcount(mask); }

constexpr bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

constexpr int log2_exact(int x) { return std::countr_zero(static_cast<unsigned>(x)); }

// Calls f(lane) for every set bit, lowest lane first.
template <class F>
WARPSIM_SIM_INLINE constexpr void for_each_lane(LaneMask mask, F&& f) {
  while (mask != 0) {
    const int lane = __builtin_ctzll(mask);  // (std::countr_zero: two calls unoptimised; mask != 0 here)
    f(lane);
    mask &= mask - 1;
  }
}

// "0x000000ff" style, as wide as the warp needs.
std::string format_mask(LaneMask mask, int width);

// Lanes are lettered A, B, C, ... as in the seeds' figures; past Z come a..z
// then digits, enough for 64 lanes.
char lane_letter(int lane);

}  // namespace warpsim::sim
