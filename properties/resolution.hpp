// The resolution property: a sampler whose draw is one uniform's function
// (Sampler::at32 / at64) draws every weight of at least Resolution::smallest
// of its row's total at its share within Resolution::tolerance, and a
// weight of 0 never -- checked exactly, not by counting draws: the uniform's
// 2^bits points are walked interval by interval (each weight's points are
// one interval: galloping, then bisection, about 2 bits draws a weight), so
// the implied law is known to the last point.
//
//   implied_law(row, draw, bits)        each weight's share of the 2^bits points
//   resolution_holds(sampler, row, r)   the property on one row (Verdict "resolution")
//   tiny_tail_row<T>(k, seed)           a row like a softmax's: a few weights near 1,
//                                       the rest spread over 2^-12 .. 2^-44 of them
//
// Usage:
//   auto v = properties::resolution_holds<float>(sampler, row);
//   if (!v.ok) std::cerr << v.detail;
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "properties/checks.hpp"
#include "properties/sampler.hpp"

namespace warpsim::properties {

struct ImpliedLaw {
  std::vector<std::uint64_t> points;  // each weight's points of the 2^bits (a weight never drawn: 0)
  std::string error;                  // not empty: a weight's points were not one interval, or an index out of range
};

template <class T>
ImpliedLaw implied_law(std::span<const T> row, const UniformDraw<T>& draw, int bits) {
  ImpliedLaw out;
  out.points.assign(row.size(), 0);
  const std::uint64_t n = bits >= 64 ? ~std::uint64_t{0} : std::uint64_t{1} << bits;
  std::vector<bool> seen(row.size(), false);
  const auto at = draw(row);
  for (std::uint64_t x = 0; x < n;) {
    const int k = at(x);
    if (k < 0 || static_cast<std::size_t>(k) >= row.size()) {
      out.error = "u = " + std::to_string(x) + " 2^-" + std::to_string(bits) + " drew index " + std::to_string(k);
      return out;
    }
    if (seen[static_cast<std::size_t>(k)]) {
      out.error = "index " + std::to_string(k) + " drawn on two separate intervals of u (the walk needs one)";
      return out;
    }
    seen[static_cast<std::size_t>(k)] = true;
    // Gallop to a point past k's interval (or the end), then bisect.
    std::uint64_t lo = x, hi = n, step = 1;
    while (true) {
      const std::uint64_t probe = n - x > step ? x + step : n;
      if (probe == n) break;
      if (at(probe) != k) {
        hi = probe;
        break;
      }
      lo = probe;
      step *= 2;
    }
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (at(mid) == k) lo = mid; else hi = mid;
    }
    out.points[static_cast<std::size_t>(k)] = lo + 1 - x;
    x = lo + 1;
  }
  return out;
}

template <class T>
Verdict resolution_holds(const Sampler& s, std::span<const T> row, int row_index = 0) {
  const auto& draw = [&]() -> const UniformDraw<T>& {
    if constexpr (sizeof(T) == 4) return s.at32; else return s.at64;
  }();
  const Resolution& r = sizeof(T) == 4 ? s.resolution32 : s.resolution64;
  if (!draw || r.bits == 0) return Verdict::pass("resolution");
  const auto law = implied_law<T>(row, draw, r.bits);
  if (!law.error.empty()) return Verdict::fail("resolution", row_index, law.error);
  long double total = 0;
  for (T w : row) total += static_cast<long double>(w);
  const long double points = std::ldexp(1.0L, r.bits);
  for (std::size_t k = 0; k < row.size(); ++k) {
    const long double p = static_cast<long double>(row[k]) / total, rate = static_cast<long double>(law.points[k]) / points;
    if (row[k] == 0 && law.points[k] != 0) {
      return Verdict::fail("resolution", row_index, "weight " + std::to_string(k) + " is 0 and takes " + std::to_string(law.points[k]) + " of 2^" +
                                                         std::to_string(r.bits) + " points");
    }
    if (p >= r.smallest && std::fabs(rate / p - 1) > r.tolerance) {
      return Verdict::fail("resolution", row_index,
                           "weight " + std::to_string(k) + " is " + detail::number(p) + " of its row and is drawn at " + detail::number(rate) +
                               " (" + detail::number(rate / p) + " times its share; the stated resolution is " + detail::number(r.smallest) +
                               " within " + detail::number(r.tolerance) + ")");
    }
  }
  return Verdict::pass("resolution");
}

// A row like a language model's softmax: `big` weights in [0.5, 1), the rest
// 2^-e for e spread over [12, 44] (so below 2^-24 and 2^-32 of the total),
// shuffled.
template <class T>
std::vector<T> tiny_tail_row(int k, std::uint64_t seed, int big = 2) {
  std::mt19937_64 rng(seed);
  std::vector<T> w(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    w[static_cast<std::size_t>(i)] = i < big ? static_cast<T>(0.5 + 0.5 * std::ldexp(static_cast<double>(rng() >> 11), -53))
                                             : static_cast<T>(std::ldexp(1.0, -12 - static_cast<int>(rng() % 33)));
  }
  std::shuffle(w.begin(), w.end(), rng);
  return w;
}

}  // namespace warpsim::properties
