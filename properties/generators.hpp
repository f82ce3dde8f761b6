// RapidCheck generators for samplers' inputs, composable like rc::gen: the
// weight families that matter (each stresses a different way a sum or a
// search goes wrong), rows of them, and whole matrices.
//
// Usage:
//   auto m = *properties::gen_matrix<float>(properties::gen_family(), 1, 64, 1, 300);
//   auto row = *properties::gen_weights<double>(properties::WeightFamily::Subnormal, 100);
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <vector>

#include "properties/sampler.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::properties {

enum class WeightFamily {
  Uniform,         // positive, 24-bit fractions of 1
  PowerLaw,        // i^-alpha, shuffled
  OneNonZero,      // a single positive weight
  Zeros,           // zeros anywhere, at least one positive
  AllEqual,
  Integer,         // whole numbers below 2^20
  HugeRange,       // powers of two from 2^-100 to 2^99
  Subnormal,       // subnormal weights and one smallest normal
  SubnormalTotal,  // every weight subnormal: the total is too (errata E9)
  NearTies,        // a running sum exactly at, or one step beside, u' (see gen_near_ties)
};

inline constexpr WeightFamily kFamilies[] = {WeightFamily::Uniform,   WeightFamily::PowerLaw,  WeightFamily::OneNonZero,
                                             WeightFamily::Zeros,     WeightFamily::AllEqual,  WeightFamily::Integer,
                                             WeightFamily::HugeRange, WeightFamily::Subnormal, WeightFamily::SubnormalTotal,
                                             WeightFamily::NearTies};

inline const char* family_name(WeightFamily f) {
  switch (f) {
    case WeightFamily::Uniform: return "uniform";
    case WeightFamily::PowerLaw: return "shuffled power law";
    case WeightFamily::OneNonZero: return "one non-zero";
    case WeightFamily::Zeros: return "zeros anywhere";
    case WeightFamily::AllEqual: return "all equal";
    case WeightFamily::Integer: return "integer-valued";
    case WeightFamily::HugeRange: return "huge dynamic range";
    case WeightFamily::Subnormal: return "subnormals";
    case WeightFamily::SubnormalTotal: return "subnormal total";
    case WeightFamily::NearTies: return "near-ties at a bucket boundary";
  }
  return "?";
}

// How RapidCheck prints them in a counterexample.
inline void showValue(WeightFamily f, std::ostream& os) { os << family_name(f); }
template <class T>
void showValue(const Matrix<T>& m, std::ostream& os) {
  os << m.rows << " x " << m.cols << (sizeof(T) == 4 ? " fp32" : " fp64") << " weights (the failing row is printed above)";
}

inline rc::Gen<WeightFamily> gen_family() {
  return rc::gen::elementOf(std::vector<WeightFamily>(std::begin(kFamilies), std::end(kFamilies)));
}

// Weights for which the scalar definition has a running sum exactly at u',
// one representable step below it, or one above (chosen at random): the
// bucket boundary where `<` and `<=` part. u' = S u with S = 2^20 and u row
// `row`'s uniform for `seed` (rng/), so that the tie is hit by the very draw a
// Replayable sampler makes. Every weight is a multiple of 2^(20 - digits) and
// every sum is exact in T, in any order.
template <class T>
std::vector<T> near_tie_row(int k, std::uint64_t seed, int row, int boundary, int offset_steps, std::uint32_t split_bits) {
  const T total = T(1 << 20);
  const T step = std::ldexp(T(1), 20 - std::numeric_limits<T>::digits);
  const T u = rng::uniform<T>(seed, static_cast<std::uint64_t>(row));
  T at = total * u + static_cast<T>(offset_steps) * step;  // exact: u has digits bits, S a power of two
  at = std::clamp(at, T(0), total);
  std::vector<T> w(static_cast<std::size_t>(k), T(0));
  if (k == 1) {
    w[0] = total;
    return w;
  }
  const int b = std::clamp(boundary, 0, k - 2);
  // P[b] = at: split `at` over 0..b and the rest over b+1..k-1, in whole steps.
  auto spread = [&](int first, int last, T amount) {
    T left = amount;
    for (int i = first; i < last && left > 0; ++i) {
      const T part = std::floor(left / step / T(2 + ((split_bits >> (i % 32)) & 1))) * step;
      w[static_cast<std::size_t>(i)] = part;
      left -= part;
    }
    w[static_cast<std::size_t>(last)] += left;
  };
  spread(0, b, at);
  spread(b + 1, k - 1, total - at);
  return w;
}

// K weights of family f, finite, non-negative, not all zero. NearTies needs the
// seed and row its uniform comes from.
template <class T>
rc::Gen<std::vector<T>> gen_weights(WeightFamily f, int k, std::uint64_t seed = 0, int row = 0) {
  const auto n = static_cast<std::size_t>(k);
  auto positive_unit = rc::gen::map(rc::gen::inRange(1, 1 << 24), [](int v) { return static_cast<T>(v) / static_cast<T>(1 << 24); });
  switch (f) {
    case WeightFamily::Uniform:
      return rc::gen::container<std::vector<T>>(n, positive_unit);
    case WeightFamily::PowerLaw:
      return rc::gen::exec([k] {
        const double alpha = *rc::gen::inRange(5, 30) / 10.0;
        std::vector<T> v(static_cast<std::size_t>(k));
        for (int i = 0; i < k; ++i) v[static_cast<std::size_t>(i)] = static_cast<T>(std::pow(i + 1.0, -alpha));
        // a shuffle drawn from RapidCheck, so it shrinks and replays
        for (int i = k - 1; i > 0; --i) std::swap(v[static_cast<std::size_t>(i)], v[static_cast<std::size_t>(*rc::gen::inRange(0, i + 1))]);
        return v;
      });
    case WeightFamily::OneNonZero:
      return rc::gen::exec([k] {
        std::vector<T> v(static_cast<std::size_t>(k), T{0});
        v[static_cast<std::size_t>(*rc::gen::inRange(0, k))] = static_cast<T>(*rc::gen::inRange(1, 1000)) / T{7};
        return v;
      });
    case WeightFamily::Zeros:
      return rc::gen::exec([k, positive_unit] {
        std::vector<T> v(static_cast<std::size_t>(k));
        for (auto& x : v) x = *rc::gen::inRange(0, 3) == 0 ? *positive_unit : T{0};
        v[static_cast<std::size_t>(*rc::gen::inRange(0, k))] = T{1};
        return v;
      });
    case WeightFamily::AllEqual:
      return rc::gen::map(positive_unit, [n](T x) { return std::vector<T>(n, x); });
    case WeightFamily::Integer:
      return rc::gen::container<std::vector<T>>(n, rc::gen::map(rc::gen::inRange(1, 1 << 20), [](int v) { return static_cast<T>(v); }));
    case WeightFamily::HugeRange:
      return rc::gen::container<std::vector<T>>(n, rc::gen::map(rc::gen::inRange(-100, 100), [](int e) { return std::ldexp(T{1}, e); }));
    case WeightFamily::Subnormal:
    case WeightFamily::SubnormalTotal:
      return rc::gen::exec([k, f] {
        std::vector<T> v(static_cast<std::size_t>(k));
        const T tiny = std::numeric_limits<T>::denorm_min();
        for (auto& x : v) x = *rc::gen::inRange(0, 3) == 0 ? T{0} : tiny * static_cast<T>(*rc::gen::inRange(1, 1000));
        // Subnormal: one smallest normal makes the total normal; SubnormalTotal
        // keeps every weight (so every sum below 2^-126 or 2^-1022) subnormal.
        v[static_cast<std::size_t>(*rc::gen::inRange(0, k))] =
            f == WeightFamily::Subnormal ? std::numeric_limits<T>::min() : tiny * static_cast<T>(*rc::gen::inRange(1, 8));
        return v;
      });
    case WeightFamily::NearTies:
      return rc::gen::exec([k, seed, row] {
        // Half the time the boundary ends a block of 32 (a warp's width),
        // where two-level searches (block, then lane) part.
        const int blocks = k / 32;
        const int boundary = blocks > 0 && *rc::gen::arbitrary<bool>() ? 32 * *rc::gen::inRange(1, blocks + 1) - 1
                                                                      : *rc::gen::inRange(0, std::max(1, k - 1));
        return near_tie_row<T>(k, seed, row, boundary, *rc::gen::inRange(-1, 2), *rc::gen::arbitrary<std::uint32_t>());
      });
  }
  return rc::gen::just(std::vector<T>(n, T{1}));
}

// A seed for the shared Philox mapping.
inline rc::Gen<std::uint64_t> gen_seed() { return rc::gen::arbitrary<std::uint64_t>(); }

// An M x K matrix, rows of the family `f`, for draws with `seed`.
template <class T>
rc::Gen<Matrix<T>> gen_matrix(WeightFamily f, int rows, int cols, std::uint64_t seed) {
  return rc::gen::exec([f, rows, cols, seed] {
    Matrix<T> m{rows, cols, {}};
    m.weights.reserve(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
    for (int r = 0; r < rows; ++r) {
      const auto w = *gen_weights<T>(f, cols, seed, r);
      m.weights.insert(m.weights.end(), w.begin(), w.end());
    }
    return m;
  });
}

}  // namespace warpsim::properties
