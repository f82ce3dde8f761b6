// The plain scalar definition every algorithm is held to (seed 000, Sec. 2
// and Alg. 2): running sums p in the order of the weights, u' = p[K-1]·u, and
// the smallest j with p[j] > u' (the last index if rounding leaves none).
#pragma once

#include <span>

namespace warpsim::oracle {

template <class T>
int reference_draw(std::span<const T> weights, T u) {
  const int k = static_cast<int>(weights.size());
  T sum = 0;
  for (T w : weights) sum += w;
  volatile T target = sum * u;  // rounded once
  T p = 0;
  int j = 0;
  for (; j < k - 1; ++j) {
    p += weights[static_cast<std::size_t>(j)];
    if (target < p) break;
  }
  return j;
}

}  // namespace warpsim::oracle
