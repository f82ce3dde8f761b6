// The tails of a continuous law, binned: a chi-square over nested bins of
// each tail, masses 10^-1, 10^-2, ... down to the smallest whose expected
// count is at least `min_expected`, the middle 80% one bin:
//
//   F in [0, 10^-J) [10^-J, 10^-(J-1)) ... [10^-2, 10^-1) | middle | the same in S = 1 - F
//
// (the upper tail's bins are taken in the law's survival function, so they
// keep their digits). KS sees a gap in F of about 1 / sqrt(n) anywhere and
// Anderson-Darling weighs the tails as a whole; this test asks each decade
// of each tail for its own mass, so a sampler that thins one decade (a
// Ziggurat's tail, a Box-Muller whose uniforms stop at 2^-24, a boost
// written wrong) is seen where it is, and the report can say which.
//
// A value stands for the reals that round to it (stats/stored.hpp): a block
// of equal values is spread evenly across its interval's F, and its share
// of each bin counted, as Anderson-Darling spreads it; a clamp's point mass
// spreads from F = 0. The p-value is goodness_of_fit.hpp's (Monte Carlo
// where expected counts are small).
//
// What the draws cannot show: a tail of mass p holds none of n draws with
// probability (1 - p)^n, about e^(-n p); so the least tail mass whose
// absence n draws can show at level alpha is ln(1 / alpha) / n
// (smallest_visible_tail). Beyond it a sampler that never goes there passes
// every test here: the report states that mass and where it begins.
//
// The reach test checks it: each tail's region of mass r = ln(4 / alpha) / n
// (F < r, and S < r), its count against Binomial(n, r), one-sided (too few),
// the two sides' p-values doubled. A sampler that never draws into either
// region holds none there, p = 2 (1 - r)^n < alpha / 2: it fails, whatever
// the seed. The chi-square over decades spreads such a gap over many bins;
// this test is the one that makes "the least tail mass the draws can show"
// a guarantee.
//
// Usage:
//   if (auto r = stats::tail_test(draws, law.cdf, law.sf, {.alpha = 1e-3})) ...
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>

#include "stats/stored.hpp"
#include "stats/test_result.hpp"

namespace warpsim::stats {

struct TailTestOptions {
  double alpha = 0.05;
  double min_expected = 5;  // the least expected count of a bin
  Stored stored = Stored::Exact;
  Clamp clamp{};
};

/// The deepest decade J (the bins 10^-1 .. 10^-J of each tail) that n draws
/// fill with min_expected each; 0 when n is too small for any tail bin.
int tail_decades(std::size_t n, double min_expected = 5);

/// nullopt when the sample is too small for one tail bin (n < 10 min_expected).
/// NaN is refused with std::invalid_argument.
std::optional<TestResult> tail_test(std::span<const double> sample, const std::function<double(double)>& cdf, const std::function<double(double)>& sf,
                                    const TailTestOptions& options = {});

/// The reach test above; nullopt where r would be 1/4 or more (n < 4 ln(4 / alpha)).
std::optional<TestResult> reach_test(std::span<const double> sample, const std::function<double(double)>& cdf, const std::function<double(double)>& sf,
                                     const TailTestOptions& options = {});

/// r = ln(4 / alpha) / n: the mass of each tail's region in reach_test.
double reach_mass(std::size_t n, double alpha);

/// ln(1 / alpha) / n: the least tail mass that n draws can show missing at
/// level alpha.
double smallest_visible_tail(std::size_t n, double alpha);

}  // namespace warpsim::stats
