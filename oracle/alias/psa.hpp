// PSA, parallel splitting-based construction (seed 001, Sec. 2.4.4;
// Hübschle-Schneider and Sanders 2019), in exact units: the partition into
// light and heavy lists, the split, and the pack of each section -- here as
// host code whose sections are independent (they may run in any order, as
// the GPU's groups do); the warp-model form follows in the oracle.
//
// The sweep (sweep.hpp) is a merge. Let D(i) be the deficit of the first i
// light items, sum over a < i of (U - m_l[a]), and E(j) the excess of the
// first j heavy items, sum over b < j of (m_h[b] - U). With i lights filled
// and j heavies finished, the current heavy item h[j] has
//   w = E(j + 1) + U - D(i)
// left, and the sweep fills light i next iff w > U, i.e. iff D(i) < E(j + 1).
// So the sweep merges the keys D(0), D(1), ... (lights) with E(1), E(2), ...
// (heavies), a light first only when its key is smaller. The state after k
// steps is where the merge path crosses diagonal i + j = k: the largest i
// with D(i - 1) < E(k - i + 1) -- a binary search on the two prefix sums
// (the split, Sec. 3.1.1), with the spill w above. Each section then packs
// from its split to the next (Sec. 3.2.1). Integer prefix sums make the
// split exact: every number of sections gives the sweep's table.
#pragma once

#include <algorithm>
#include <vector>

#include "oracle/alias/table.hpp"

namespace warpsim::oracle::alias {

// The l and h arrays, with each item's mass beside it (Sec. 3.2.3: weights
// in l and h), and their prefix sums.
struct Partition {
  std::vector<std::uint32_t> light, heavy;     // item indices
  std::vector<u128> light_mass, heavy_mass;    // their masses (PSA+: what is left of them)
  std::vector<u128> deficit;                   // D(0..|light|)
  std::vector<u128> excess;                    // E(0..|heavy|)

  void add(std::uint32_t item, u128 mass, u128 cap) {
    if (deficit.empty()) deficit.push_back(0), excess.push_back(0);
    if (mass > cap) {
      heavy.push_back(item);
      heavy_mass.push_back(mass);
      excess.push_back(excess.back() + (mass - cap));
    } else {
      light.push_back(item);
      light_mass.push_back(mass);
      deficit.push_back(deficit.back() + (cap - mass));
    }
  }
  std::size_t size() const { return light.size() + heavy.size(); }
};

inline Partition partition(const Units& u) {
  const std::size_t n = u.units.size();
  Partition p;
  p.deficit.push_back(0);
  p.excess.push_back(0);
  for (std::size_t i = 0; i < n; ++i) p.add(static_cast<std::uint32_t>(i), static_cast<u128>(n) * u.units[i], u.total);
  return p;
}

// The sweep's state after k steps: i lights filled, j heavies finished.
struct Split {
  std::size_t i = 0, j = 0;
};

inline Split split(const Partition& p, std::size_t k) {
  const std::size_t lights = p.light.size(), heavies = p.heavy.size();
  std::size_t lo = k > heavies ? k - heavies : 0, hi = std::min(k, lights);
  // Largest i in [lo, hi] with i == lo or D(i - 1) < E(k - i + 1).
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    const std::size_t j = k - mid;
    const bool light_first = j >= heavies || p.deficit[mid - 1] < p.excess[j + 1];
    if (light_first) lo = mid; else hi = mid - 1;
  }
  return {lo, k - lo};
}

// Packs the steps from `from` to `to` (exclusive) of the sweep into t.
inline void pack(const Partition& p, u128 cap, Split from, std::size_t to, Table& t, WriteOrder* order = nullptr) {
  std::size_t i = from.i, j = from.j;
  const std::size_t lights = p.light.size(), heavies = p.heavy.size();
  for (std::size_t step = i + j; step < to; ++step) {
    if (j >= heavies) {  // no heavy item left: the lights left are exactly full
      ++i;
      continue;
    }
    const u128 w = p.excess[j + 1] + cap - p.deficit[i];  // the spill: what heavy j has left
    if (i < lights && w > cap) {
      const std::uint32_t l = p.light[i];
      t.keep[l] = static_cast<std::uint64_t>(p.light_mass[i]);
      t.alias[l] = p.heavy[j];
      if (order) order->push_back(l);
      ++i;
    } else {
      const std::uint32_t h = p.heavy[j];
      t.keep[h] = static_cast<std::uint64_t>(w);
      t.alias[h] = j + 1 < heavies ? p.heavy[j + 1] : h;  // the last heavy keeps exactly a bucket
      if (order) order->push_back(h);
      ++j;
    }
  }
}

// Splits and packs the items of `p` in `sections` sections (>= 1), in the
// order given by `order` (a permutation of 0..sections-1; empty: in order).
inline void split_and_pack(const Partition& p, u128 cap, std::size_t sections, const std::vector<std::size_t>& order, Table& t,
                           WriteOrder* written = nullptr) {
  const std::size_t n = p.size();
  if (n == 0) return;
  sections = std::max<std::size_t>(1, std::min(sections, n));
  for (std::size_t s = 0; s < sections; ++s) {
    const std::size_t q = order.empty() ? s : order[s];
    const std::size_t from = q * n / sections, to = (q + 1) * n / sections;
    pack(p, cap, split(p, from), to, t, written);
  }
}

inline Table empty_table(const Units& u) {
  const std::size_t n = u.units.size();
  Table t{u.total, u.exponent, std::vector<std::uint64_t>(n, u.total), std::vector<std::uint32_t>(n)};
  for (std::size_t k = 0; k < n; ++k) t.alias[k] = static_cast<std::uint32_t>(k);
  return t;
}

// PSA with `sections` sections.
inline Table psa(const Units& u, std::size_t sections, const std::vector<std::size_t>& order = {}, WriteOrder* written = nullptr) {
  auto t = empty_table(u);
  split_and_pack(partition(u), u.total, sections, order, t, written);
  return t;
}

}  // namespace warpsim::oracle::alias
