// The one-sample Anderson-Darling test against a continuous law, fully
// specified (no parameter estimated from the draws):
//   A^2 = -n - (1/n) sum_i (2i - 1) [ln F(x_(i)) + ln S(x_(n+1-i))]
// over the sorted sample, S = 1 - F taken from the law's own survival
// function where it has one (the upper tail keeps its digits). Its p-value
// is Marsaglia & Marsaglia's (J. Stat. Software 9(2), 2004): the limiting
// law of A^2 to within 2e-6, corrected for n, accurate to about 1e-5 from
// n = 5 on (the paper's figure), and past A^2 = 8 the limit's asymptotic
// tail (anderson_darling_sf). tests/stats/ad_continuous_test.cpp measures
// the false-positive rate at n = 5 to 2,000 and alpha 0.05 to 0.001.
//
// Beside KS it weighs the tails: |F_n - F| is divided by F (1 - F), so a law
// whose far tails are wrong (a normal from 24-bit uniforms, a Ziggurat's
// tail) is seen with far fewer draws than KS needs. A draw where the law
// puts no mass (F = 0 or S = 0 at it) makes A^2 infinite: p = 0, with a
// note naming the draw.
//
// Why not Boost.Math's: boost/math/statistics/anderson_darling.hpp gives the
// statistic against a normal only, from a sorted sample, with no p-value,
// no survival function for the upper tail and no rounding intervals.
//
// Power: no closed form like KS's; what a pass rules out is stated by the
// KS test run beside it (validate runs both) and by the measured power of
// docs/validate.md's table.
//
// Usage:
//   auto r = stats::ad_continuous_test(draws, cdf, sf, {.alpha = 1e-3});
#pragma once

#include <cstddef>
#include <functional>
#include <span>

#include "stats/stored.hpp"
#include "stats/test_result.hpp"

namespace warpsim::stats {

struct AdContinuousOptions {
  double alpha = 0.05;
  // How the values were stored (stats/stored.hpp): a value stands for the
  // reals that round to it, and a block of m equal values for m of them in
  // order, the k-th taking F and S at (k + 1/2) / m across its interval --
  // so a value rounded onto the support's edge is not a draw where the law
  // has no mass, and ties from rounding do not weigh as one point.
  Stored stored = Stored::Exact;
  // A clamping sampler's clamps (stats/stored.hpp): the block of values at
  // clamp.below is spread over F in [0, F(its interval's upper end)], as the
  // draws it stands for lie.
  Clamp clamp{};
};

/// @param sample  the draws (any order; NaN is refused with std::invalid_argument)
/// @param cdf     the null's CDF F, non-decreasing from 0 to 1
/// @param sf      the null's survival function 1 - F (empty: 1 - cdf(x))
TestResult ad_continuous_test(std::span<const double> sample, const std::function<double(double)>& cdf,
                              const std::function<double(double)>& sf = {}, const AdContinuousOptions& options = {});

/// P(A^2 <= z) for a sample of n from the null (Marsaglia & Marsaglia 2004).
double anderson_darling_cdf(std::size_t n, double z);

/// P(A^2 > z) for a sample of n: the p-value. From z = 8 on (p below about
/// 1.1e-4) it is the limit law's asymptotic tail sqrt(3) erfc(sqrt(z)),
/// where Marsaglia's fit no longer holds; no finite-n correction there.
double anderson_darling_sf(std::size_t n, double z);

/// P(A^2 <= z) in the limit n -> infinity (the same paper's adinf).
double anderson_darling_limit_cdf(double z);

}  // namespace warpsim::stats
