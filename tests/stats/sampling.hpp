// Seeded multinomial samples for the statistical tests' own tests.
#pragma once

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace warpsim::stats_testing {

// Repetitions of one seeded experiment in the calibration and power tests.
inline constexpr int kReps = 1000;

inline std::vector<double> multinomial(std::mt19937_64& rng, std::uint64_t n, std::span<const double> p) {
  std::vector<double> counts(p.size(), 0.0);
  double rest = 1;
  std::uint64_t left = n;
  for (std::size_t i = 0; i < p.size() && left > 0; ++i) {
    const double q = rest > 0 ? std::clamp(p[i] / rest, 0.0, 1.0) : 0.0;
    const auto x = std::binomial_distribution<std::uint64_t>(left, q)(rng);
    counts[i] = static_cast<double>(x);
    left -= x;
    rest -= p[i];
  }
  return counts;
}

// The central interval of Bin(reps, rate) holding all but `tail` of its mass
// on each side: rejection counts outside it are a false alarm with
// probability at most 2 * tail.
struct Interval {
  double lo, hi;
};
inline Interval binomial_interval(int reps, double rate, double tail = 0.0005) {
  const boost::math::binomial_distribution<double> b(reps, rate);
  return {boost::math::quantile(b, tail), boost::math::quantile(boost::math::complement(b, tail))};
}

}  // namespace warpsim::stats_testing
