// Walker's construction (seed 001, Sec. 2.4.1; Walker 1977), in exact units.
//
// As the thesis describes it: B_i = w_i - W/N, the space left in each bucket
// (negative for heavy items). Repeatedly take the bucket l of minimum B
// (the lightest) and k of maximum B (the heaviest); T_l^a := k,
// T_l^w := B_l / (W/N) + 1 (the share of the bucket l fills);
// B_k := B_k + B_l, B_l := 0 -- until every B is 0. O(N^2).
// Here, in units (units.hpp): B_i = m_i - U with m_i = N u_i, so the keep of
// row l is B_l + U (= its remaining mass); ties go to the smallest index.
#pragma once

#include <span>
#include <vector>

#include "oracle/alias/table.hpp"

namespace warpsim::oracle::alias {

inline Table walker(const Units& u, WriteOrder* order = nullptr) {
  const std::size_t n = u.units.size();
  Table t{u.total, u.exponent, std::vector<std::uint64_t>(n, u.total), std::vector<std::uint32_t>(n)};
  std::vector<i128> b(n);
  std::vector<bool> done(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<i128>(n) * u.units[i] - static_cast<i128>(u.total);
    t.alias[i] = static_cast<std::uint32_t>(i);
  }
  for (;;) {
    std::size_t l = n, k = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (done[i]) continue;
      if (l == n || b[i] < b[l]) l = i;
      if (k == n || b[i] > b[k]) k = i;
    }
    if (l == n || b[l] == 0) break;  // every remaining bucket is exactly full
    // b[l] < 0 < b[k]: the sums of B are 0, so a negative one has a positive partner.
    t.keep[l] = static_cast<std::uint64_t>(b[l] + static_cast<i128>(u.total));
    t.alias[l] = static_cast<std::uint32_t>(k);
    if (order) order->push_back(static_cast<std::uint32_t>(l));
    b[k] += b[l];
    b[l] = 0;
    done[l] = true;
  }
  return t;
}

}  // namespace warpsim::oracle::alias
