// The sampler of this example, written once for the host and the device:
// inverse CDF over a row, in index order, exactly warpsim's scalar
// definition (so it declares itself replayable and adding in order).
#pragma once

#include <cmath>
#include <cstdint>

#include "rng/philox_uniform.hpp"  // (seed, stream, draw) -> u, warpsim's mapping

#if defined(__CUDACC__)
#define MY_HD __host__ __device__
#else
#define MY_HD
#endif

// One draw from `k` weights with uniform u: the first j with u' < w_0 + ... + w_j,
// u' = total * u rounded once and kept below the total (a subnormal total
// could otherwise round u' up to the total: warpsim's errata E9).
template <class T>
MY_HD inline int draw_one(const T* w, std::int64_t k, T u) {
  T total = 0;
  for (std::int64_t j = 0; j < k; ++j) total += w[j];
  T target = total * u;  // a product and a compare: nothing to contract into an FMA
  if (!(target < total)) {
#if defined(__CUDA_ARCH__)
    target = nextafter(total, T(0));
#else
    target = std::nextafter(total, T(0));
#endif
  }
  T sum = 0;
  for (std::int64_t j = 0; j + 1 < k; ++j) {
    sum += w[j];
    if (target < sum) return static_cast<int>(j);
  }
  return static_cast<int>(k - 1);
}
