#include "stats/homogeneity.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "stats/input_checks.hpp"
#include "stats/pooling.hpp"
#include "stats/power.hpp"

namespace warpsim::stats {

TestResult chi_square_homogeneity(std::span<const double> c1, std::span<const double> c2, double alpha,
                                  double min_expected, double power) {
  const double n1 = check_counts(c1, "first sample's counts");
  const double n2 = check_counts(c2, "second sample's counts");
  check_pooled_total(n1, n2);
  check_alpha(alpha);
  if (c1.size() != c2.size()) throw std::invalid_argument("the two samples' counts differ in length");
  const double n = n1 + n2;
  std::vector<double> a, b;  // kept categories
  double pa = 0, pb = 0;
  std::size_t pooled = 0, empty = 0;
  for (std::size_t i = 0; i < c1.size(); ++i) {
    const double t = c1[i] + c2[i];
    if (t == 0) {
      ++empty;
    } else if (std::min(t * n1 / n, t * n2 / n) < min_expected) {
      pa += c1[i];
      pb += c2[i];
      ++pooled;
    } else {
      a.push_back(c1[i]);
      b.push_back(c2[i]);
    }
  }
  if (pooled) {
    // a pool still too small joins the smallest kept category, repeatedly
    while (std::min((pa + pb) * n1 / n, (pa + pb) * n2 / n) < min_expected && !a.empty()) {
      std::size_t s = 0;
      for (std::size_t i = 1; i < a.size(); ++i)
        if (a[i] + b[i] < a[s] + b[s]) s = i;
      pa += a[s];
      pb += b[s];
      a.erase(a.begin() + static_cast<std::ptrdiff_t>(s));
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(s));
      ++pooled;
    }
    a.push_back(pa);
    b.push_back(pb);
  }
  TestResult r;
  r.test = "chi-square homogeneity";
  r.alpha = alpha;
  r.sample_size = static_cast<std::size_t>(n);
  if (pooled) r.notes.push_back(pooling_note(pooled, min_expected));
  if (empty) r.notes.push_back(std::to_string(empty) + " categories empty in both samples left out");
  const double df = static_cast<double>(a.size()) - 1;
  r.df = df;
  double s = 0;
  std::vector<double> shares;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double t = a[i] + b[i];
    const double e1 = t * n1 / n, e2 = t * n2 / n;
    s += (a[i] - e1) * (a[i] - e1) / e1 + (b[i] - e2) * (b[i] - e2) / e2;
    shares.push_back(t / n);
  }
  r.statistic = s;
  if (df < 1) {
    r.p_value = 1;
    r.notes.push_back("fewer than two categories: nothing to test");
    return r;
  }
  r.p_value = chi_square_p_value(df, s);
  r.reject = r.p_value <= alpha;
  // Two samples of sizes n1, n2 see a difference between their laws as one
  // sample of the harmonic size n1 n2 / (n1 + n2) sees it against a fixed law.
  r.detectable = chi_square_detectable(shares, n1 * n2 / n, df, alpha, power);
  r.detectable.basis += "; effective sample size n1 n2 / (n1 + n2)";
  return r;
}

}  // namespace warpsim::stats
