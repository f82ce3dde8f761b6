#include "stats/ad_continuous.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsim::stats {

namespace {

// Marsaglia & Marsaglia's correction of the limiting CDF x = adinf(z) for a
// sample of n (their errfix): three pieces in x, each a polynomial fitted to
// the exact finite-n law.
double errfix(double n, double x) {
  if (x > 0.8) {
    return (-130.2137 + (745.2337 - (1705.091 - (1950.646 - (1116.360 - 255.7844 * x) * x) * x) * x) * x) / n;
  }
  const double c = 0.01265 + 0.1757 / n;
  if (x < c) {
    double t = x / c;
    t = std::sqrt(t) * (1 - t) * (49 * t - 102);
    return t * (0.0037 / (n * n) + 0.00078 / n + 0.00006) / n;
  }
  double t = (x - c) / (0.8 - c);
  t = -0.00022633 + (6.54034 - (14.6538 - (14.458 - (8.259 - 1.91864 * t) * t) * t) * t) * t;
  return t * (0.04213 / n + 0.01365 / (n * n)) / n;
}

}  // namespace

double anderson_darling_limit_cdf(double z) {
  if (!(z > 0)) return 0;
  if (std::isinf(z)) return 1;
  if (z < 2) {
    return std::exp(-1.2337141 / z) / std::sqrt(z) *
           (2.00012 + (0.247105 - (0.0649821 - (0.0347962 - (0.011672 - 0.00168691 * z) * z) * z) * z) * z);
  }
  return std::exp(-std::exp(1.0776 - (2.30695 - (0.43424 - (0.082433 - (0.008056 - 0.0003146 * z) * z) * z) * z) * z));
}

// P(A^2 > z) in the limit. Marsaglia's fit up to z = 8 (p about 1.1e-4);
// past it the fit falls away from the law (1e-20 at z = 15), so the tail is
// the limit law's own asymptote: A^2 is sum_j Y_j^2 / (j (j + 1)) for
// independent standard normals Y_j, its tail that of the first term times
// prod_{j >= 2} (1 - 2 / (j (j + 1)))^(-1/2) = sqrt(3), i.e.
// sqrt(3) erfc(sqrt(z)) -- within 1.5% of the fit at z = 8, 5% at 5.97.
constexpr double kAsymptoteFrom = 8;
double limit_sf(double z) {
  if (std::isinf(z)) return 0;
  if (z >= kAsymptoteFrom) return std::sqrt(3.0) * std::erfc(std::sqrt(z));
  return 1 - anderson_darling_limit_cdf(z);
}

double anderson_darling_sf(std::size_t n, double z) {
  if (n == 0) throw std::invalid_argument("anderson_darling_sf: no draws");
  const double x = anderson_darling_limit_cdf(z);
  if (x <= 0) return 1;
  // (past the fit, no finite-n correction: it is fitted below z = 8)
  if (z >= kAsymptoteFrom) return limit_sf(z);
  return std::clamp(1 - x - errfix(static_cast<double>(n), x), 0.0, 1.0);
}

double anderson_darling_cdf(std::size_t n, double z) {
  if (n == 0) throw std::invalid_argument("anderson_darling_cdf: no draws");
  const double x = anderson_darling_limit_cdf(z);
  if (x <= 0 || x >= 1) return x;
  return std::clamp(x + errfix(static_cast<double>(n), x), 0.0, 1.0);
}

TestResult ad_continuous_test(std::span<const double> sample, const std::function<double(double)>& cdf,
                              const std::function<double(double)>& sf, const AdContinuousOptions& options) {
  if (sample.empty()) throw std::invalid_argument("ad_continuous_test: no draws");
  if (!(options.alpha > 0 && options.alpha < 1)) throw std::invalid_argument("ad_continuous_test: alpha must lie in (0, 1)");
  std::vector<double> x(sample.begin(), sample.end());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i])) throw std::invalid_argument("ad_continuous_test: draw " + std::to_string(i) + " is not a number");
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  // ln F and ln S at each draw, once (S from the law's survival function).
  // A stored value stands for the reals that round to it; a block of equal
  // values for that many such reals, in order: the k-th of a block of m
  // takes the law's F (and S) at (k + 1/2) / m of the way across its
  // interval's, where the unrounded draws' order statistics lie. An exact
  // value (Stored::Exact) is its own interval.
  std::vector<double> log_f(n), log_s(n);
  TestResult r;
  r.test = "Anderson-Darling (one sample, continuous)";
  for (std::size_t i0 = 0; i0 < n;) {
    std::size_t i1 = i0 + 1;
    while (i1 < n && x[i1] == x[i0]) ++i1;
    const auto [f_lo, f_hi, s_lo, s_hi] = law_across(x[i0], options.stored, options.clamp, cdf, sf);
    const bool point = f_lo == f_hi && s_lo == s_hi;
    const double m = static_cast<double>(i1 - i0);
    for (std::size_t i = i0; i < i1; ++i) {
      const double t = (static_cast<double>(i - i0) + 0.5) / m;
      const double f = point ? f_lo : f_lo + (f_hi - f_lo) * t;
      const double s_ = point ? s_lo : s_lo - (s_lo - s_hi) * t;
      if (!(f > 0) || !(s_ > 0)) {
        if (r.notes.empty()) {
          r.notes.push_back("draw " + std::to_string(x[i]) + (f > 0 ? " lies where the law's upper tail has no mass (S = 0)" : " lies where the law has no mass (F = 0)") +
                            ": A^2 is infinite");
        }
        log_f[i] = log_s[i] = -std::numeric_limits<double>::infinity();
        continue;
      }
      log_f[i] = std::log(f);
      log_s[i] = std::log(s_);
    }
    i0 = i1;
  }
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(2 * i + 1) * (log_f[i] + log_s[n - 1 - i]);
  const double a2 = -static_cast<double>(n) - sum / static_cast<double>(n);
  r.statistic = a2;
  r.p_value = std::isinf(a2) ? 0.0 : anderson_darling_sf(n, a2);
  r.p_value_method = "Marsaglia & Marsaglia (2004): the limit with its finite-n correction";
  r.alpha = options.alpha;
  r.reject = r.p_value < options.alpha;
  r.sample_size = n;
  r.detectable.basis = "no closed form: the KS test beside it states the Kolmogorov distance ruled out";
  return r;
}

}  // namespace warpsim::stats
