// PSA+ (seed 001, Sec. 2.4.5, 3.3 and 4.6): greedy packing while
// partitioning, then PSA on what is left -- in exact units, deterministic.
//
// The items are read in groups of G consecutive items (the thesis: a block's
// shared memory), and each of the group's T lanes takes an equal share of its
// light and of its heavy items (in index order: lane t the lights
// [t L / T, (t + 1) L / T), the heavies likewise; Sec. 4.6, "assigning each
// thread the same number of light and heavy items"; T = 1: one sweep a
// group). Each lane packs its share greedily by the sweep's rule until it
// runs out of one kind: fill light i from the current heavy while it has more than a bucket
// left; once it has at most a bucket and another heavy follows in the group,
// fill its own bucket from that one. The heavy item a lane stops on may be
// partially packed: it goes on with what is left of it, re-classified as
// light or heavy (Sec. 4.6), and with the group's unpacked items joins the l
// and h arrays, masses beside them (Sec. 3.2.3). PSA then splits and packs
// those. The thesis gives each group's items their places in l and h with an
// atomic counter, so its order -- and its table -- changes from run to run;
// here a group's leftovers keep index order and groups keep theirs (a
// prefix sum over the groups' counts, not an atomic), so the table is a
// function of the weights, G and T alone. psa_plus_warp.hpp runs it on the
// model (T = the warp's width).
#pragma once

#include <algorithm>
#include <vector>

#include "oracle/alias/psa.hpp"

namespace warpsim::oracle::alias {

struct PsaPlusStats {
  std::size_t greedy_rows = 0;  // rows written while partitioning
  std::size_t left = 0;         // items PSA packed after
  Partition leftovers;          // their l and h lists and prefix sums (host form only)
};

// Writes row k of t: keep units of item k, the rest to `alias`.
inline void write_row(Table& t, std::uint32_t k, std::uint64_t keep, std::uint32_t alias, WriteOrder* written) {
  t.keep[k] = keep;
  t.alias[k] = alias;
  if (written) written->push_back(k);
}

inline Table psa_plus(const Units& u, std::size_t group, std::size_t sections, const std::vector<std::size_t>& order = {},
                      PsaPlusStats* stats = nullptr, WriteOrder* written = nullptr, std::size_t lanes = 1) {
  const std::size_t n = u.units.size();
  const u128 cap = u.total;
  group = std::max<std::size_t>(1, group);
  auto t = empty_table(u);
  lanes = std::max<std::size_t>(1, lanes);
  Partition left;
  PsaPlusStats st;
  for (std::size_t first = 0; first < n; first += group) {
    const std::size_t last = std::min(n, first + group);
    std::vector<std::uint32_t> lights, heavies;
    for (std::size_t k = first; k < last; ++k) {
      (static_cast<u128>(n) * u.units[k] > cap ? heavies : lights).push_back(static_cast<std::uint32_t>(k));
    }
    const auto mass = [&](std::uint32_t k) { return static_cast<u128>(n) * u.units[k]; };
    // What each item of the group has left (0 once packed), by lane share.
    std::vector<u128> left_mass(last - first);
    std::vector<bool> left_over(last - first, true);
    for (std::size_t k = first; k < last; ++k) left_mass[k - first] = mass(static_cast<std::uint32_t>(k));
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      // The lane's share: lights [t L / T, (t + 1) L / T), heavies likewise.
      std::size_t i = lane * lights.size() / lanes, j = lane * heavies.size() / lanes;
      const std::size_t i_end = (lane + 1) * lights.size() / lanes, j_end = (lane + 1) * heavies.size() / lanes;
      if (j == j_end) continue;
      u128 w = mass(heavies[j]);
      while (true) {
        if (w > cap && i < i_end) {
          write_row(t, lights[i], static_cast<std::uint64_t>(mass(lights[i])), heavies[j], written);
          left_over[lights[i] - first] = false;
          w -= cap - mass(lights[i]);
          ++i;
          ++st.greedy_rows;
        } else if (w <= cap && j + 1 < j_end) {
          write_row(t, heavies[j], static_cast<std::uint64_t>(w), heavies[j + 1], written);
          left_over[heavies[j] - first] = false;
          w = mass(heavies[j + 1]) - (cap - w);
          ++j;
          ++st.greedy_rows;
        } else {
          break;  // out of lights (w > U) or of heavies (the last one has at most a bucket)
        }
      }
      left_mass[heavies[j] - first] = w;  // the heavy item the lane stopped on, with what is left of it
    }
    // The group's leftovers in index order, re-classified by what is left.
    for (std::size_t k = first; k < last; ++k)
      if (left_over[k - first]) left.add(static_cast<std::uint32_t>(k), left_mass[k - first], cap);
  }
  st.left = left.size();
  if (stats) st.leftovers = left;
  split_and_pack(left, cap, sections, order, t, written);
  if (stats) *stats = st;
  return t;
}

}  // namespace warpsim::oracle::alias
