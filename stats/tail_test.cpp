#include "stats/tail_test.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/math/distributions/binomial.hpp>

#include "stats/goodness_of_fit.hpp"

namespace warpsim::stats {

namespace {

// The share of [a, b] (a < b) inside [lo, hi).
double overlap(double a, double b, double lo, double hi) { return std::max(0.0, std::min(b, hi) - std::max(a, lo)) / (b - a); }

}  // namespace

int tail_decades(std::size_t n, double min_expected) {
  int j = 0;
  while (j < 300 && static_cast<double>(n) * std::pow(10.0, -(j + 1)) >= min_expected) ++j;
  return j;
}

double smallest_visible_tail(std::size_t n, double alpha) {
  if (n == 0 || !(alpha > 0 && alpha < 1)) throw std::invalid_argument("smallest_visible_tail: n >= 1 and alpha in (0, 1)");
  return std::log(1 / alpha) / static_cast<double>(n);
}

std::optional<TestResult> tail_test(std::span<const double> sample, const std::function<double(double)>& cdf, const std::function<double(double)>& sf,
                                    const TailTestOptions& o) {
  if (!(o.alpha > 0 && o.alpha < 1)) throw std::invalid_argument("tail_test: alpha must lie in (0, 1)");
  std::vector<double> x(sample.begin(), sample.end());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i])) throw std::invalid_argument("tail_test: draw " + std::to_string(i) + " is not a number");
  const int decades = tail_decades(x.size(), o.min_expected);
  if (decades == 0) return std::nullopt;
  std::sort(x.begin(), x.end());
  // edges[0] = 0, edges[k] = 10^-(J - k + 1): a tail's bin k is [edges[k], edges[k + 1]).
  std::vector<double> edges{0.0};
  for (int j = decades; j >= 1; --j) edges.push_back(std::pow(10.0, -j));
  const std::size_t tail_bins = edges.size() - 1, middle = tail_bins;
  // bins: the lower tail's (F from 0 up), the middle, the upper tail's (S from 0 up, so reversed in x)
  std::vector<double> observed(2 * tail_bins + 1, 0.0), probabilities(observed.size(), 0.0);
  for (std::size_t k = 0; k < tail_bins; ++k) probabilities[k] = probabilities[observed.size() - 1 - k] = edges[k + 1] - edges[k];
  probabilities[middle] = 1 - 2 * edges.back();
  const auto lower_bin = [&](double f) { return static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), f) - edges.begin()) - 1; };
  const double top = edges.back();
  for (std::size_t i0 = 0; i0 < x.size();) {
    std::size_t i1 = i0 + 1;
    while (i1 < x.size() && x[i1] == x[i0]) ++i1;
    const double m = static_cast<double>(i1 - i0);
    const auto [f_lo, f_hi, s_lo, s_hi] = law_across(x[i0], o.stored, o.clamp, cdf, sf);
    if (!(f_hi > f_lo) || !(s_lo > s_hi)) {
      // one point in F: the bin it falls in (F < 10^-1 lower, S < 10^-1 upper)
      if (f_lo < top) {
        observed[lower_bin(f_lo)] += m;
      } else if (s_lo < top) {
        observed[observed.size() - 1 - lower_bin(s_lo)] += m;
      } else {
        observed[middle] += m;
      }
    } else {
      double in_tails = 0;
      for (std::size_t k = 0; k < tail_bins; ++k) {
        const double a = overlap(f_lo, f_hi, edges[k], edges[k + 1]), b = overlap(s_hi, s_lo, edges[k], edges[k + 1]);
        observed[k] += m * a;
        observed[observed.size() - 1 - k] += m * b;
        in_tails += a + b;
      }
      observed[middle] += m * std::max(0.0, 1 - in_tails);
    }
    i0 = i1;
  }
  // Whole counts (the chi-square's simulation draws whole counts): the
  // shares spread from rounding intervals apportioned by largest remainder.
  {
    std::vector<std::size_t> order(observed.size());
    double whole = 0;
    for (std::size_t k = 0; k < observed.size(); ++k) {
      order[k] = k;
      whole += std::floor(observed[k]);
    }
    std::vector<double> rest(observed.size());
    for (std::size_t k = 0; k < observed.size(); ++k) rest[k] = observed[k] - std::floor(observed[k]);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rest[a] > rest[b]; });
    auto left = static_cast<std::size_t>(std::llround(static_cast<double>(x.size()) - whole));
    for (std::size_t k = 0; k < observed.size(); ++k) observed[k] = std::floor(observed[k]);
    for (std::size_t k = 0; k < order.size() && left > 0; ++k, --left) observed[order[k]] += 1;
  }
  GofOptions g;
  g.alpha = o.alpha;
  g.min_expected = o.min_expected;
  TestResult r = chi_square_test(observed, probabilities, g);
  r.test = "chi-square over the tails' decades";
  std::ostringstream bins;
  bins << "bins: each tail's decades 10^-1 .. 10^-" << decades << " and the middle; observed (lower tail outward in, middle, upper tail inward out):";
  for (double v : observed) bins << ' ' << std::round(v * 10) / 10;
  r.notes.push_back(bins.str());
  return r;
}

double reach_mass(std::size_t n, double alpha) {
  if (n == 0 || !(alpha > 0 && alpha < 1)) throw std::invalid_argument("reach_mass: n >= 1 and alpha in (0, 1)");
  return std::log(4 / alpha) / static_cast<double>(n);
}

std::optional<TestResult> reach_test(std::span<const double> sample, const std::function<double(double)>& cdf, const std::function<double(double)>& sf,
                                     const TailTestOptions& o) {
  if (!(o.alpha > 0 && o.alpha < 1)) throw std::invalid_argument("reach_test: alpha must lie in (0, 1)");
  if (sample.empty()) return std::nullopt;
  const double r = reach_mass(sample.size(), o.alpha);
  if (r >= 0.25) return std::nullopt;
  // Each value's share of F < r and of S < r, its rounding interval spread
  // evenly over F (a clamp's from F = 0), as the tails' bins count it.
  double low = 0, high = 0;
  for (const double x : sample) {
    if (std::isnan(x)) throw std::invalid_argument("reach_test: a draw is not a number");
    const auto [f_lo, f_hi, s_lo, s_hi] = law_across(x, o.stored, o.clamp, cdf, sf);
    if (f_hi > f_lo) {
      low += overlap(f_lo, f_hi, 0, r);
    } else {
      low += f_lo < r;
    }
    if (s_lo > s_hi) {
      high += overlap(s_hi, s_lo, 0, r);
    } else {
      high += s_lo < r;
    }
  }
  // Whole counts, rounded up: a share never turns a pass into a failure.
  const double n = static_cast<double>(sample.size());
  const boost::math::binomial_distribution<double> b(n, r);
  const double k_low = std::max(0.0, std::ceil(low - 1e-9)), k_high = std::max(0.0, std::ceil(high - 1e-9));
  const double p_low = boost::math::cdf(b, k_low), p_high = boost::math::cdf(b, k_high);
  TestResult t;
  t.test = "reach: each tail's region of mass ln(4 / alpha) / n, too few draws there";
  t.statistic = std::min(k_low, k_high);
  t.p_value = std::min(1.0, 2 * std::min(p_low, p_high));
  t.p_value_method = "exact (binomial, one-sided, the two tails' doubled)";
  t.alpha = o.alpha;
  t.reject = t.p_value < o.alpha;
  t.sample_size = sample.size();
  t.detectable.basis = "a sampler that never draws into a region of mass r = " + std::to_string(r) + " in either tail fails with certainty";
  std::ostringstream note;
  note << "draws with F below " << r << ": " << k_low << ", with S below it: " << k_high << " (" << n * r << " expected each)";
  t.notes.push_back(note.str());
  return t;
}

}  // namespace warpsim::stats
