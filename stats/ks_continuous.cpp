#include "stats/ks_continuous.hpp"

#include <algorithm>
#include <boost/math/distributions/kolmogorov_smirnov.hpp>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsim::stats {

namespace {

// The critical value of D at alpha: the (1 - alpha) quantile of sqrt(n) D's
// limiting law over sqrt(n).
double critical_d(std::size_t n, double alpha) {
  const boost::math::kolmogorov_smirnov_distribution<double> k(static_cast<double>(n));
  return boost::math::quantile(boost::math::complement(k, alpha));
}

}  // namespace

double ks_continuous_detectable(std::size_t n, double alpha, double power) {
  if (n == 0) throw std::invalid_argument("ks_continuous_detectable: no draws");
  return critical_d(n, alpha) + std::sqrt(std::log(1 / (1 - power)) / (2 * static_cast<double>(n)));
}

TestResult ks_continuous_test(std::span<const double> sample, const std::function<double(double)>& cdf, const KsContinuousOptions& options) {
  if (sample.empty()) throw std::invalid_argument("ks_continuous_test: no draws");
  if (!(options.alpha > 0 && options.alpha < 1)) throw std::invalid_argument("ks_continuous_test: alpha must lie in (0, 1)");
  std::vector<double> x(sample.begin(), sample.end());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i])) throw std::invalid_argument("ks_continuous_test: draw " + std::to_string(i) + " is not a number");
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    // the sample's CDF above the law's: F at the interval's upper end; below: at its lower end
    const auto a = law_across(x[i], options.stored, options.clamp, cdf, std::function<double(double)>{});
    const double f_hi = a.f_hi, f_lo = a.f_lo;
    d = std::max({d, (static_cast<double>(i) + 1) / n - f_hi, f_lo - static_cast<double>(i) / n});
  }
  const boost::math::kolmogorov_smirnov_distribution<double> k(n);
  TestResult r;
  r.test = "Kolmogorov-Smirnov (one sample, continuous)";
  r.statistic = d;
  r.p_value = std::clamp(boost::math::cdf(boost::math::complement(k, d)), 0.0, 1.0) + 0.0;  // (+0.0: never -0)
  r.alpha = options.alpha;
  r.reject = r.p_value < options.alpha;
  r.sample_size = x.size();
  r.detectable.power = options.power;
  r.detectable.kolmogorov_distance = ks_continuous_detectable(x.size(), options.alpha, options.power);
  r.detectable.basis = "critical D at alpha plus Hoeffding's margin sqrt(ln(1 / (1 - power)) / 2n)";
  return r;
}

}  // namespace warpsim::stats
