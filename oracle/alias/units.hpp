// Weights as whole numbers of one power-of-two unit, so that every sum the
// alias-table constructions form is exact and associative: the table is a
// function of the weights alone, whatever the order of additions (one sweep,
// any number of PSA splits, any number of threads).
//
//   unit  = 2^e, the largest power of two with sum_i floor(w_i / 2^e) < 2^62
//   u_i   = floor(w_i / 2^e)                    (exact for weights that are multiples of 2^e)
//   U     = sum_i u_i < 2^62                    (the table's total, in units)
//
// An item then has mass m_i = N u_i in a table of N buckets of capacity U
// each (N U = sum m_i: integers, exact). The only rounding is the floor.
// With s = 2^e, u_i = w_i / s - f_i and U = W / s - F (0 <= f_i < 1, F < N):
//   u_i / U - w_i / W = s (w_i F - W f_i) / (W (W - s F)),
// and W >= 2^60 s, so the table's probability of item i is within
//   |u_i / U - w_i / W| < 2^-60 max(1, N w_i / W) / (1 - N 2^-60)
// of the exact one -- and equal to it for weights that are multiples of s
// ("dyadic" inputs: small integers, halves, ...). tests/unit/alias_test.cpp
// checks the bound (exactness_bound below).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsim::oracle::alias {

inline constexpr int kUnitBits = 62;

// Masses are N u_i < 2^94: 128-bit integers (GCC and Clang; nvcc on the device).
__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

// The bound above for an item of probability p among n.
inline double exactness_bound(double p, std::size_t n) {
  const double m = std::max(1.0, static_cast<double>(n) * p);
  return std::ldexp(m, -60) / (1 - std::ldexp(static_cast<double>(n), -60));
}

struct Units {
  int exponent = 0;                  // unit = 2^exponent
  std::vector<std::uint64_t> units;  // u_i
  std::uint64_t total = 0;           // U
};

// Throws std::invalid_argument for no weights, a NaN, negative or infinite
// weight, or weights that are all 0 (or all below the unit: impossible for
// finite weights, since the unit is chosen from their sum).
template <class T>
Units to_units(std::span<const T> w) {
  if (w.empty()) throw std::invalid_argument("no weights");
  double sum = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const T x = w[i];
    if (std::isnan(x)) throw std::invalid_argument("weight " + std::to_string(i) + " is not a number");
    if (std::isinf(x)) throw std::invalid_argument("weight " + std::to_string(i) + " is infinite");
    if (x < 0) throw std::invalid_argument("weight " + std::to_string(i) + " is negative");
    sum += x;
  }
  if (sum == 0) throw std::invalid_argument("every weight is 0: there is no distribution");
  if (std::isinf(sum)) throw std::invalid_argument("the weights sum past the largest double");
  // The double sum of N <= 2^32 non-negative values is within a factor
  // (1 + 2^-20) of the exact one (and does not overflow: fp32 weights are
  // far below, fp64 weights whose sum overflows are refused): 2^(ilogb + 2)
  // is above the exact sum, so U < 2^62.
  const int top = std::ilogb(sum) + 2;
  Units u;
  u.exponent = top - kUnitBits;
  u.units.resize(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    // w * 2^-e in double: exact wherever the result is at least 1 (a power of
    // two scales without rounding above the subnormal range), and below 1
    // the floor is 0 however it rounds.
    const double scaled = std::ldexp(static_cast<double>(w[i]), -u.exponent);
    u.units[i] = static_cast<std::uint64_t>(std::floor(scaled));
    u.total += u.units[i];
  }
  if (u.total == 0 || u.total >= (std::uint64_t{1} << kUnitBits)) throw std::logic_error("units: the total left its range");
  return u;
}

}  // namespace warpsim::oracle::alias
