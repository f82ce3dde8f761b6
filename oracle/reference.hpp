// The plain scalar definition every algorithm is held to (seed 000, Sec. 2
// and Alg. 2): running sums p in the order of the weights, u' = p[K-1]·u kept
// below p[K-1] (oracle/target.hpp, errata E9), and the smallest j with
// p[j] > u'.
#pragma once

#include <span>

#include "oracle/target.hpp"

namespace warpsim::oracle {

template <class T>
int reference_draw(std::span<const T> weights, T u) {
  const int k = static_cast<int>(weights.size());
  T sum = 0;
  for (T w : weights) sum += w;
  const T target = target_below_total(sum, u);
  T p = 0;
  int j = 0;
  for (; j < k - 1; ++j) {
    p += weights[static_cast<std::size_t>(j)];
    if (target < p) break;
  }
  return j;
}

}  // namespace warpsim::oracle
