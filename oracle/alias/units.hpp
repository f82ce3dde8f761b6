// Weights as whole numbers of one power-of-two unit, so that every sum the
// alias-table constructions form is exact and associative: the table is a
// function of the weights alone, whatever the order of additions (one sweep,
// any number of PSA splits, any number of threads).
//
//   unit  = 2^e, chosen from the weights alone so that 2^60 - N <= U < 2^62 (unit_scale)
//   u_i   = floor(w_i / 2^e)                    (exact for weights that are multiples of 2^e)
//   U     = sum_i u_i < 2^62                    (the table's total, in units)
//
// An item then has mass m_i = N u_i in a table of N buckets of capacity U
// each (N U = sum m_i: integers, exact). The only rounding is the floor.
// (How e is found without a floating-point sum: unit_scale below.)
// With s = 2^e, u_i = w_i / s - f_i and U = W / s - F (0 <= f_i < 1, F < N):
//   u_i / U - w_i / W = s (w_i F - W f_i) / (W (W - s F)),
// and W >= 2^60 s, so the table's probability of item i is within
//   |u_i / U - w_i / W| < 2^-60 max(1, N w_i / W) / (1 - N 2^-60)
// of the exact one -- and equal to it for weights that are multiples of s
// ("dyadic" inputs: small integers, halves, ...). tests/unit/alias_test.cpp
// checks the bound (exactness_bound below).
#pragma once

#include <algorithm>
#include <bit>
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

// The unit, from the weights alone and whatever the order of additions (a
// GPU's reduction adds in its own order; a double sum's rounding would make
// the unit depend on it): with M the largest weight and e' = ilogb(M) - 63,
// a_i = floor(w_i / 2^e') < 2^64 and S' = sum_i a_i, an exact integer
// (< 2^96). Then e = e' + bit_width(S') - 61 and u_i = a_i >> (e - e') =
// floor(w_i / 2^e). Since 2^(bw - 1) <= S' < 2^bw:
//   U <= (S' + N) / 2^(bw - 61) < 2^61 + N / 8 < 2^62,  and  W >= S' 2^e' >= 2^60 2^e,
// the bound above. Every step is an integer operation or an exact scaling by
// a power of two, in host code and in CUDA alike (gpu/alias_table.cu).
struct UnitScale {
  int fine_exponent = 0;  // e'
  int exponent = 0;       // e
  int shift() const { return exponent - fine_exponent; }
};

// a_i = floor(w / 2^e'), exact (w < 2^(e' + 64)).
template <class T>
inline std::uint64_t fine_units(T w, int fine_exponent) {
  return static_cast<std::uint64_t>(std::floor(std::ldexp(static_cast<double>(w), -fine_exponent)));
}

inline int bit_width(u128 x) {
  const auto hi = static_cast<std::uint64_t>(x >> 64);
  return hi != 0 ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(static_cast<std::uint64_t>(x));
}

// The scale from the largest weight M > 0 and S' = sum of a_i (> 0).
inline UnitScale unit_scale(int fine_exponent, u128 fine_sum) {
  return {fine_exponent, fine_exponent + bit_width(fine_sum) - (kUnitBits - 1)};
}

// Throws std::invalid_argument for no weights, a NaN, negative or infinite
// weight, or weights that are all 0.
template <class T>
Units to_units(std::span<const T> w) {
  if (w.empty()) throw std::invalid_argument("no weights");
  T largest = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const T x = w[i];
    if (std::isnan(x)) throw std::invalid_argument("weight " + std::to_string(i) + " is not a number");
    if (std::isinf(x)) throw std::invalid_argument("weight " + std::to_string(i) + " is infinite");
    if (x < 0) throw std::invalid_argument("weight " + std::to_string(i) + " is negative");
    largest = std::max(largest, x);
  }
  if (largest == 0) throw std::invalid_argument("every weight is 0: there is no distribution");
  const int fine = std::ilogb(static_cast<double>(largest)) - 63;
  u128 fine_sum = 0;
  for (const T x : w) fine_sum += fine_units(x, fine);
  const UnitScale scale = unit_scale(fine, fine_sum);
  Units u;
  u.exponent = scale.exponent;
  u.units.resize(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    u.units[i] = fine_units(w[i], fine) >> scale.shift();
    u.total += u.units[i];
  }
  if (u.total == 0 || u.total >= (std::uint64_t{1} << kUnitBits)) throw std::logic_error("units: the total left its range");
  return u;
}

}  // namespace warpsim::oracle::alias
