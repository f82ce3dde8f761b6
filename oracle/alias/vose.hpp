// Vose's construction (seed 001, Sec. 2.4.2; Vose 1991), in exact units.
//
// Items with w_i <= W/N are light (list l), the others heavy (list h). While
// both lists hold items: take a heavy item j and a light item i; i's bucket
// keeps w_i and aliases j; j's excess shrinks by W/N - w_i, and once j's
// remaining weight is at most W/N it is light and joins l. O(N). Here the
// lists are queues in index order (Vose uses stacks; the table differs, the
// distribution does not), and units replace weights (units.hpp).
#pragma once

#include <deque>
#include <vector>

#include "oracle/alias/table.hpp"

namespace warpsim::oracle::alias {

inline Table vose(const Units& u, WriteOrder* order = nullptr) {
  const std::size_t n = u.units.size();
  const auto cap = static_cast<u128>(u.total);
  Table t{u.total, u.exponent, std::vector<std::uint64_t>(n, u.total), std::vector<std::uint32_t>(n)};
  std::vector<u128> mass(n);
  std::deque<std::uint32_t> light, heavy;
  for (std::size_t i = 0; i < n; ++i) {
    mass[i] = static_cast<u128>(n) * u.units[i];
    t.alias[i] = static_cast<std::uint32_t>(i);
    (mass[i] <= cap ? light : heavy).push_back(static_cast<std::uint32_t>(i));
  }
  while (!light.empty() && !heavy.empty()) {
    const std::uint32_t i = light.front(), j = heavy.front();
    light.pop_front();
    t.keep[i] = static_cast<std::uint64_t>(mass[i]);
    t.alias[i] = j;
    if (order) order->push_back(i);
    mass[j] -= cap - mass[i];
    if (mass[j] <= cap) {
      heavy.pop_front();
      light.push_back(j);
    }
  }
  // What is left is exactly full (the masses balance): keep all, alias itself.
  return t;
}

}  // namespace warpsim::oracle::alias
