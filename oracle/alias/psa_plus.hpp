// PSA+ (seed 001, Sec. 2.4.5, 3.3 and 4.6): greedy packing while
// partitioning, then PSA on what is left -- in exact units, deterministic.
//
// The items are read in groups of G consecutive items (the thesis: a block's
// shared memory). Within a group, the light and heavy items (in index order)
// are packed greedily by the sweep's rule until the group runs out of one
// kind: fill light i from the current heavy while it has more than a bucket
// left; once it has at most a bucket and another heavy follows in the group,
// fill its own bucket from that one. The heavy item the group stops on may be
// partially packed: it goes on with what is left of it, re-classified as
// light or heavy (Sec. 4.6), and with the group's unpacked items joins the l
// and h arrays, masses beside them (Sec. 3.2.3). PSA then splits and packs
// those. The thesis gives each group's items their places in l and h with an
// atomic counter, so its order -- and its table -- changes from run to run;
// here a group's leftovers keep index order and groups keep theirs (a
// prefix sum over the groups' counts, not an atomic), so the table is a
// function of the weights and G alone.
#pragma once

#include <algorithm>
#include <vector>

#include "oracle/alias/psa.hpp"

namespace warpsim::oracle::alias {

struct PsaPlusStats {
  std::size_t greedy_rows = 0;  // rows written while partitioning
  std::size_t left = 0;         // items PSA packed after
};

inline Table psa_plus(const Units& u, std::size_t group, std::size_t sections, const std::vector<std::size_t>& order = {},
                      PsaPlusStats* stats = nullptr, WriteOrder* written = nullptr) {
  const std::size_t n = u.units.size();
  const u128 cap = u.total;
  group = std::max<std::size_t>(1, group);
  auto t = empty_table(u);
  Partition left;
  PsaPlusStats st;
  for (std::size_t first = 0; first < n; first += group) {
    const std::size_t last = std::min(n, first + group);
    std::vector<std::uint32_t> lights, heavies;
    for (std::size_t k = first; k < last; ++k) {
      (static_cast<u128>(n) * u.units[k] > cap ? heavies : lights).push_back(static_cast<std::uint32_t>(k));
    }
    const auto mass = [&](std::uint32_t k) { return static_cast<u128>(n) * u.units[k]; };
    std::size_t i = 0, j = 0;
    u128 w = heavies.empty() ? 0 : mass(heavies[0]);
    while (j < heavies.size()) {
      if (w > cap && i < lights.size()) {
        t.keep[lights[i]] = static_cast<std::uint64_t>(mass(lights[i]));
        t.alias[lights[i]] = heavies[j];
        if (written) written->push_back(lights[i]);
        w -= cap - mass(lights[i]);
        ++i;
        ++st.greedy_rows;
      } else if (w <= cap && j + 1 < heavies.size()) {
        t.keep[heavies[j]] = static_cast<std::uint64_t>(w);
        t.alias[heavies[j]] = heavies[j + 1];
        if (written) written->push_back(heavies[j]);
        w = mass(heavies[j + 1]) - (cap - w);
        ++j;
        ++st.greedy_rows;
      } else {
        break;  // out of lights (w > U) or of heavies (the last one has at most a bucket)
      }
    }
    // The group's leftovers in index order: unpacked lights, the heavy item
    // the group stopped on (with what is left of it), unpacked heavies.
    std::vector<std::pair<std::uint32_t, u128>> rest;
    for (std::size_t a = i; a < lights.size(); ++a) rest.push_back({lights[a], mass(lights[a])});
    if (j < heavies.size()) rest.push_back({heavies[j], w});
    for (std::size_t b = j + 1; b < heavies.size(); ++b) rest.push_back({heavies[b], mass(heavies[b])});
    std::sort(rest.begin(), rest.end());
    for (const auto& [item, m] : rest) left.add(item, m, cap);
  }
  st.left = left.size();
  split_and_pack(left, cap, sections, order, t, written);
  if (stats) *stats = st;
  return t;
}

}  // namespace warpsim::oracle::alias
