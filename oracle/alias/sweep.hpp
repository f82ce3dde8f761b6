// The sweeping construction (seed 001, Sec. 2.4.3; Hübschle-Schneider and
// Sanders 2019), in exact units -- the sequential form that PSA's split and
// pack reproduce section by section (Sec. 2.4.4).
//
// Two monotone pointers: i to the next light item (w <= W/N), j to the
// current heavy one, with w its remaining weight. Each step either fills the
// bucket of light item i from j (while w > W/N), or, once w <= W/N, fills
// heavy j's own bucket with w and the rest from the next heavy item j'.
// O(N), reads the input in order, no lists.
#pragma once

#include <stdexcept>
#include <vector>

#include "oracle/alias/table.hpp"

namespace warpsim::oracle::alias {

inline Table sweep(const Units& u, WriteOrder* order = nullptr) {
  const std::size_t n = u.units.size();
  const auto cap = static_cast<u128>(u.total);
  const auto mass = [&](std::size_t i) { return static_cast<u128>(n) * u.units[i]; };
  const auto is_heavy = [&](std::size_t i) { return mass(i) > cap; };
  Table t{u.total, u.exponent, std::vector<std::uint64_t>(n, u.total), std::vector<std::uint32_t>(n)};
  for (std::size_t k = 0; k < n; ++k) t.alias[k] = static_cast<std::uint32_t>(k);
  auto next_light = [&](std::size_t from) {
    while (from < n && is_heavy(from)) ++from;
    return from;
  };
  auto next_heavy = [&](std::size_t from) {
    while (from < n && !is_heavy(from)) ++from;
    return from;
  };
  std::size_t i = next_light(0), j = next_heavy(0);
  if (j == n) return t;  // no heavy item: every bucket is exactly full
  u128 w = mass(j);
  while (j < n) {
    if (w > cap && i < n) {  // fill light item i's bucket from j
      t.keep[i] = static_cast<std::uint64_t>(mass(i));
      t.alias[i] = static_cast<std::uint32_t>(j);
      if (order) order->push_back(static_cast<std::uint32_t>(i));
      w -= cap - mass(i);
      i = next_light(i + 1);
    } else {  // j has at most a bucket left: fill its bucket from the next heavy item
      // (w > U with no light item left cannot happen: the masses balance.)
      if (w > cap) throw std::logic_error("sweep: a heavy item with no light item to fill");
      const std::size_t next = next_heavy(j + 1);
      if (next == n) break;  // the last heavy item: its remainder is exactly a bucket
      t.keep[j] = static_cast<std::uint64_t>(w);
      t.alias[j] = static_cast<std::uint32_t>(next);
      if (order) order->push_back(static_cast<std::uint32_t>(j));
      w = mass(next) - (cap - w);
      j = next;
    }
  }
  return t;
}

}  // namespace warpsim::oracle::alias
