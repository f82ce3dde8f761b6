#include "stats/power.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "stats/input_checks.hpp"

namespace warpsim::stats {

double chi_square_p_value(double df, double s) {
  if (std::isnan(s)) throw std::logic_error("chi-square statistic is NaN");
  if (s == std::numeric_limits<double>::infinity()) return 0;
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared(df), std::max(s, 0.0)));
}

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
  if (!(power > alpha)) {
    d.basis = power_vacuous_note(alpha, power);
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

std::string power_vacuous_note(double alpha, double power) {
  return "alpha = " + number_text(alpha) + " is not below the power " + number_text(power) +
         ": a level-alpha test rejects every law, the null included, with probability >= alpha, so no bias is "
         "ruled out with power " + number_text(power) + " in particular";
}

double sample_size_for_total_variation(double df, double alpha, double power, double tv) {
  if (!(tv > 0 && tv <= 1)) throw std::invalid_argument("the total-variation distance must lie in (0, 1]");
  if (!(power > alpha)) {
    throw std::invalid_argument("a sample size for power " + number_text(power) + " needs alpha below it (alpha = " +
                                number_text(alpha) + ")");
  }
  return std::ceil(noncentrality_for_power(df, alpha, power) / (4 * tv * tv));
}

}  // namespace warpsim::stats
