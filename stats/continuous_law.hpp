// Continuous laws by name, as a user writes them on the command line
// ("normal:0,1", "gamma:0.5,2"), with their CDF and survival function from
// Boost.Math (the survival function from the law's own complement, so the
// upper tail keeps its digits):
//   uniform:a,b                 a < b
//   normal:mu,sigma             sigma > 0
//   exponential:rate            rate > 0 (mean 1 / rate)
//   gamma:shape,scale           shape > 0, scale > 0 (mean shape x scale)
//   beta:a,b                    a > 0, b > 0
//   truncated-normal:mu,sigma,lo,hi   a normal restricted to [lo, hi], lo < hi
// and any law given as a CDF table (tabulated_law; the CLI's --law table:FILE).
// A malformed name or parameter is std::invalid_argument with a message that
// says what was expected.
//
// Usage:
//   const auto law = stats::continuous_law("gamma:0.5,1");
//   stats::ks_continuous_test(draws, law.cdf);
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace warpsim::stats {

struct ContinuousLaw {
  std::string name;                // "normal" ("table": a CDF table)
  std::string label;               // a table's: where it came from
  std::vector<double> parameters;  // as given
  double lower = 0, upper = 0;     // the support (may be infinite)
  std::function<double(double)> cdf, sf;
  // The inverse of each tail, where the law has one in closed form (Boost's
  // quantiles; a table's by interpolation): quantile(p) the least x with
  // F(x) >= p, upper_tail_quantile(q) the greatest x with S(x) >= q, each keeping its
  // tail's digits. Empty: lower_quantile / upper_quantile bisect.
  std::function<double(double)> quantile, upper_tail_quantile;
  std::string describe() const;    // "normal (mu 0, sigma 1)"
};

ContinuousLaw continuous_law(const std::string& spec);

/// A law the user gives as a CDF table: points x_0 < x_1 < ... (finite) and
/// F(x_i) non-decreasing from F(x_0) = 0 to F(x_last) = 1, the CDF linear
/// between them (a density constant on each interval; the support [x_0,
/// x_last]). Its survival function interpolates 1 - F the same way. A table
/// that breaks a rule is std::invalid_argument naming the row.
ContinuousLaw tabulated_law(const std::vector<double>& x, const std::vector<double>& f, const std::string& name);

/// The least x with F(x) >= p (0 < p < 1): the law's `quantile` where it
/// has one, else by bisection on its CDF to the last bit of a double.
double lower_quantile(const ContinuousLaw& law, double p);
/// The greatest x with S(x) >= q (0 < q < 1): the law's `upper_tail_quantile`, else by
/// bisection on the survival function (the upper tail keeps its digits).
double upper_quantile(const ContinuousLaw& law, double q);

/// The forms continuous_law() takes, one a line ("normal:mu,sigma  ...").
std::string continuous_law_forms();

}  // namespace warpsim::stats
