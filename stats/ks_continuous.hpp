// The one-sample Kolmogorov-Smirnov test against a continuous law: D =
// sup_x |F_n(x) - F(x)| for the sample's empirical CDF F_n, computed exactly
// from the sorted sample (D = max_i max(i / n - F(x_(i)), F(x_(i)) - (i - 1) / n)),
// its p-value from the Kolmogorov distribution of sqrt(n) D (Boost.Math's
// kolmogorov_smirnov_distribution; asymptotic, accurate to about 1e-3
// relative from n of a few hundred on).
//
// Power: if the sampled law's CDF G differs from F by delta at some x, then
// D >= delta - |F_n(x) - G(x)|, and by Hoeffding's inequality |F_n(x) - G(x)|
// < sqrt(ln(1 / (1 - power)) / (2 n)) with probability at least `power`: a
// law at Kolmogorov distance d_crit(alpha, n) + that margin or more is
// rejected with at least that probability (detectable.kolmogorov_distance;
// no approximation but the p-value's).
//
// Usage:
//   auto r = stats::ks_continuous_test(draws, [](double x) { return boost::math::cdf(gamma, x); }, {.alpha = 1e-6});
#pragma once

#include <functional>
#include <span>

#include "stats/stored.hpp"
#include "stats/test_result.hpp"

namespace warpsim::stats {

struct KsContinuousOptions {
  double alpha = 0.05;
  double power = 0.9;
  // How the values were stored: F is taken at the end of each value's
  // rounding interval that favours the null (stats/stored.hpp).
  Stored stored = Stored::Exact;
  // A clamping sampler's clamps (stats/stored.hpp): a value at or below
  // clamp.below takes F = 0 at its interval's lower end.
  Clamp clamp{};
};

/// @param sample  the draws (any order; NaN is refused with std::invalid_argument)
/// @param cdf     the null's CDF, non-decreasing from 0 to 1
TestResult ks_continuous_test(std::span<const double> sample, const std::function<double(double)>& cdf, const KsContinuousOptions& options = {});

/// The Kolmogorov distance that a sample of n detects with `power` at `alpha`.
double ks_continuous_detectable(std::size_t n, double alpha, double power);

}  // namespace warpsim::stats
