// How a sample's values were stored, for the tests against a continuous law:
// a value kept in float32 (or float64) stands for every real that rounds to
// it, so the law's CDF at a value is only known to lie between its values at
// the two ends of that interval. The tests take the end that favours the
// null (F at the upper end where the sample's CDF lies above, at the lower
// end where it lies below), so that rounding alone never rejects: a correct
// float32 sampler of beta(0.5, 0.5) stores 1.0f for draws within 3e-8 of 1,
// where the law's survival function is 0 and Anderson-Darling's A^2 would be
// infinite.
#pragma once

#include <cmath>
#include <limits>
#include <utility>

namespace warpsim::stats {

enum class Stored { Exact, Float32, Float64 };

// The reals that round to x in `stored` precision (round to nearest): its
// neighbours' midpoints; x itself for Exact or a non-finite x.
inline std::pair<double, double> stored_interval(double x, Stored stored) {
  if (stored == Stored::Exact || !std::isfinite(x)) return {x, x};
  if (stored == Stored::Float32) {
    const float f = static_cast<float>(x);
    const double down = std::nextafter(f, -std::numeric_limits<float>::infinity());
    const double up = std::nextafter(f, std::numeric_limits<float>::infinity());
    return {(static_cast<double>(f) + down) / 2, (static_cast<double>(f) + up) / 2};
  }
  const double down = std::nextafter(x, -std::numeric_limits<double>::infinity());
  const double up = std::nextafter(x, std::numeric_limits<double>::infinity());
  return {x - (x - down) / 2, x + (up - x) / 2};
}

}  // namespace warpsim::stats
