#include "stats/power.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <cmath>
#include <stdexcept>

namespace warpsim::stats {

double chi_square_critical(double df, double alpha) {
  return boost::math::quantile(boost::math::complement(boost::math::chi_squared(df), alpha));
}

double chi_square_power(double df, double alpha, double lambda) {
  if (lambda <= 0) return alpha;
  return boost::math::cdf(boost::math::complement(boost::math::non_central_chi_squared(df, lambda), chi_square_critical(df, alpha)));
}

double noncentrality_for_power(double df, double alpha, double power) {
  if (!(power > alpha && power < 1)) throw std::invalid_argument("power must lie between alpha and 1");
  // lambda with P(chi2(df, lambda) <= critical) = 1 - power
  return boost::math::non_central_chi_squared::find_non_centrality(df, chi_square_critical(df, alpha), 1 - power);
}

DetectableBias chi_square_detectable(std::span<const double> probabilities, double n, double df, double alpha,
                                     double power) {
  DetectableBias d;
  d.power = power;
  if (df < 1 || n <= 0) {
    d.basis = "no degrees of freedom: nothing can be detected";
    return d;
  }
  const double lambda = noncentrality_for_power(df, alpha, power);
  d.total_variation = std::sqrt(lambda / (4 * n));
  double worst = 0;
  for (double p : probabilities) {
    if (p > 0 && p < 1) worst = std::max(worst, std::sqrt(lambda * (1 - p) / (n * p)));
  }
  d.max_relative_error = worst;
  d.basis = "noncentral chi-square, lambda = " + std::to_string(lambda) +
            " (asymptotic); total variation measured on the tested (pooled) categories";
  return d;
}

double sample_size_for_total_variation(double df, double alpha, double power, double tv) {
  if (!(tv > 0)) throw std::invalid_argument("total-variation distance must be positive");
  return std::ceil(noncentrality_for_power(df, alpha, power) / (4 * tv * tv));
}

}  // namespace warpsim::stats
