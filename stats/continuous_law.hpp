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
  std::string name;                // "normal"
  std::vector<double> parameters;  // as given
  double lower = 0, upper = 0;     // the support (may be infinite)
  std::function<double(double)> cdf, sf;
  std::string describe() const;    // "normal (mu 0, sigma 1)"
};

ContinuousLaw continuous_law(const std::string& spec);

/// The forms continuous_law() takes, one a line ("normal:mu,sigma  ...").
std::string continuous_law_forms();

}  // namespace warpsim::stats
