// How a sample's values were stored, for the tests against a continuous law:
// a value kept in float32 (or float64) stands for every real that rounds to
// it, so the law's CDF at a value is only known to lie between its values at
// the two ends of that interval. KS takes the end that favours the null (F
// at the upper end where the sample's CDF lies above, at the lower end where
// it lies below); Anderson-Darling spreads a block of equal values evenly
// across the interval's CDF, as the unrounded draws lie. Rounding alone then
// never rejects: a correct
// float32 sampler of beta(0.5, 0.5) stores 1.0f for draws within 3e-8 of 1,
// where the law's survival function is 0 and Anderson-Darling's A^2 would be
// infinite.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace warpsim::stats {

enum class Stored { Exact, Float32, Float64, BFloat16, Float16 };

// A value of a format with p significand bits and least normal exponent
// emin: the reals that round to it, [x - half the gap below, x + half the
// gap above] (the gap below a power of two is half the one above).
inline std::pair<double, double> format_interval(double x, int p, int emin) {
  const double tiny = std::ldexp(1.0, emin - (p - 1));  // the least subnormal
  const double half_tiny = tiny / 2 > 0 ? tiny / 2 : tiny;
  if (x == 0) return {-half_tiny, half_tiny};
  int e = 0;
  const double m = std::frexp(std::fabs(x), &e);  // |x| = m 2^e, m in [0.5, 1)
  const int exponent = std::max(e - 1, emin);
  const double up = std::ldexp(1.0, exponent - (p - 1));
  const double down = m == 0.5 && e - 1 > emin ? up / 2 : up;
  // (half of float64's least gap, 2^-1075, is no double: the whole gap then)
  const double half_up = up / 2 > 0 ? up / 2 : up, half_down = down / 2 > 0 ? down / 2 : down;
  return x > 0 ? std::pair{x - half_down, x + half_up} : std::pair{x - half_up, x + half_down};
}

// x rounded to nearest (ties to even) in that format (no overflow check).
inline double round_to_format(double x, int p, int emin) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e = 0;
  std::frexp(x, &e);
  const int shift = std::max(e, emin + 1) - p;  // the gap's exponent
  return std::ldexp(std::nearbyint(std::ldexp(x, -shift)), shift);
}

// A stored precision's format: significand bits p, least normal exponent emin.
struct FloatFormat {
  int p, emin;
};
constexpr FloatFormat format_of(Stored stored) {
  switch (stored) {
    case Stored::BFloat16: return {8, -126};
    case Stored::Float16: return {11, -14};
    case Stored::Float32: return {24, -126};
    default: return {53, -1022};
  }
}

// The reals that round to x in `stored` precision (round to nearest): its
// neighbours' midpoints; x itself for Exact or a non-finite x.
inline std::pair<double, double> stored_interval(double x, Stored stored) {
  if (stored == Stored::Exact || !std::isfinite(x)) return {x, x};
  const FloatFormat f = format_of(stored);
  return format_interval(x, f.p, f.emin);
}

// A sampler that clamps its draws (PyTorch's fp32 gamma and Dirichlet raise
// every draw below the least normal float, 2^-126, to it): a value at or
// below `below` stands for every draw at or below it, one at or above
// `above` for every draw at or above it. The law's mass there is then one
// point mass at the clamp, judged as such, not a pile of ties where the law
// has almost none.
struct Clamp {
  double below = -std::numeric_limits<double>::infinity();
  double above = std::numeric_limits<double>::infinity();
  bool any() const { return below > -std::numeric_limits<double>::infinity() || above < std::numeric_limits<double>::infinity(); }
};

// The law's F and S across the reals a value stands for: its rounding
// interval's ends, and from F = 0 (S = 1) for a value at or below
// clamp.below, to F = 1 (S = 0) for one at or above clamp.above. S from the
// law's own survival function where given (the upper tail keeps its
// digits), else 1 - F. One rule for every test of stats/ that takes values
// as their intervals (KS, Anderson-Darling, the tails, the two-level test).
struct LawAcross {
  double f_lo, f_hi, s_lo, s_hi;  // F and S at the lower and upper ends
};
template <class Cdf, class Sf>
LawAcross law_across(double x, Stored stored, const Clamp& clamp, const Cdf& cdf, const Sf& sf) {
  const auto [lo, hi] = stored_interval(x, stored);
  const bool floor = x <= clamp.below, ceiling = x >= clamp.above;
  LawAcross a{};
  a.f_lo = floor ? 0.0 : cdf(lo);
  a.f_hi = ceiling ? 1.0 : lo == hi ? a.f_lo : cdf(hi);
  a.s_lo = floor ? 1.0 : sf ? sf(lo) : 1 - a.f_lo;
  a.s_hi = ceiling ? 0.0 : lo == hi ? a.s_lo : sf ? sf(hi) : 1 - a.f_hi;
  return a;
}

// x rounded to `stored` precision (x itself for Exact).
inline double round_to(double x, Stored stored) {
  if (stored == Stored::Exact) return x;
  const FloatFormat f = format_of(stored);
  return round_to_format(x, f.p, f.emin);
}

}  // namespace warpsim::stats
