#include "stats/binomial.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "stats/goodness_of_fit.hpp"
#include "stats/input_checks.hpp"

namespace warpsim::stats {

namespace {

void check_p_values(std::span<const double> p) {
  if (p.empty()) throw std::invalid_argument("no p-values");
  for (double v : p)
    if (!(v >= 0 && v <= 1)) throw std::invalid_argument("p-values must lie in [0, 1]");
}

// The first x in [lo, hi) where `is` holds, or hi: `is` false then true along
// [lo, hi) (whole numbers held in doubles). Gallops from `guess` outward, then
// bisects the bracket: about 2 log2 |answer - guess| evaluations.
template <class Pred>
double first_where(double lo, double hi, double guess, Pred&& is) {
  const double g = std::clamp(guess, lo, hi - 1);
  double a, z;  // the answer lies in [a, z]: is(a - 1) false or a == lo; is(z) true or z == hi
  double step = 1;
  if (is(g)) {
    for (z = g;; step *= 2) {
      const double c = g - step;
      if (c < lo) { a = lo; break; }
      if (!is(c)) { a = c + 1; break; }
      z = c;
    }
  } else {
    for (a = g + 1;; step *= 2) {
      const double c = g + step;
      if (c >= hi) { z = hi; break; }
      if (is(c)) { z = c; break; }
      a = c + 1;
    }
  }
  while (a < z) {
    const double mid = std::floor(a + (z - a) / 2);
    if (is(mid)) z = mid; else a = mid + 1;
  }
  return z;
}

}  // namespace

double binomial_two_sided_p_value(std::uint64_t k, std::uint64_t n, double p) {
  if (k > n) throw std::invalid_argument("binomial test: more successes than trials");
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument("binomial test: p must lie in [0, 1]");
  if (n == 0) return 1;
  const boost::math::binomial_distribution<double> b(static_cast<double>(n), p);
  const double kd = static_cast<double>(k), nd = static_cast<double>(n);
  const double mean = nd * p;
  if (kd == mean || p == 0 || p == 1) return (p == 0 && k > 0) || (p == 1 && k < n) ? 0.0 : 1.0;
  const double dk = boost::math::pdf(b, kd) * (1 + 1e-7);
  const auto below = [&](double x) { return boost::math::pdf(b, x) <= dk; };
  // The pmf falls away from the mode on either side: search the far side for
  // where it drops to dk, from the mirror image of k (a few pmf evaluations
  // where a bisection of [mean, n] takes log2 n).
  const double mirror = std::round(2 * mean - kd);
  if (kd < mean) {
    // y: the first outcome in [ceil(mean), n] with pmf <= dk (n + 1: none)
    const double y = first_where(std::ceil(mean), nd + 1, mirror, below);
    const double upper = y <= nd ? boost::math::cdf(boost::math::complement(b, y - 1)) : 0.0;
    return std::min(1.0, boost::math::cdf(b, kd) + upper);
  }
  // y: the last outcome in [0, floor(mean)] with pmf <= dk (-1: none)
  const double y = first_where(-1, std::floor(mean), mirror, [&](double x) { return !below(x + 1); });
  const double lower = y >= 0 ? boost::math::cdf(b, y) : 0.0;
  return std::min(1.0, lower + boost::math::cdf(boost::math::complement(b, kd - 1)));
}

BinomialAcceptance binomial_acceptance(std::uint64_t n, double p, double level) {
  if (!(p >= 0 && p <= 1)) throw std::invalid_argument("binomial acceptance: p must lie in [0, 1]");
  if (!(level >= 0 && level < 1)) throw std::invalid_argument("binomial acceptance: the level must lie in [0, 1)");
  if (p == 0) return {0, 0};
  if (p == 1) return {n, n};
  const double nd = static_cast<double>(n), mean = nd * p, sd = std::sqrt(nd * p * (1 - p));
  const double z = level > 0 ? boost::math::quantile(boost::math::complement(boost::math::normal(), level / 2)) : 40.0;
  const auto accepts = [&](double k) { return binomial_two_sided_p_value(static_cast<std::uint64_t>(k), n, p) > level; };
  const double floor_mean = std::floor(mean), ceil_mean = std::ceil(mean);
  // below the mean the p-value rises towards it; above, it falls away
  const double lo = first_where(0, floor_mean + 1, std::max(0.0, std::floor(mean - z * sd)), accepts);
  const double hi = first_where(ceil_mean, nd + 1, std::min(nd, std::ceil(mean + z * sd)), [&](double k) { return !accepts(k); }) - 1;
  return {static_cast<std::uint64_t>(std::min(lo, floor_mean)), static_cast<std::uint64_t>(std::max(hi, floor_mean))};
}

std::vector<double> holm_adjust(std::span<const double> p) {
  check_p_values(p);
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adj(m);
  double running = 0;
  for (std::size_t r = 0; r < m; ++r) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - r) * p[order[r]]));
    adj[order[r]] = running;
  }
  return adj;
}

std::vector<double> benjamini_hochberg_adjust(std::span<const double> p) {
  check_p_values(p);
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adj(m);
  double running = 1;
  for (std::size_t r = m; r-- > 0;) {
    running = std::min(running, static_cast<double>(m) / static_cast<double>(r + 1) * p[order[r]]);
    adj[order[r]] = std::min(1.0, running);
  }
  return adj;
}

CategoryVerdicts per_category_binomial(std::span<const double> observed, std::span<const double> probabilities,
                                       double alpha, Correction correction, double power) {
  const auto n = static_cast<std::uint64_t>(check_counts(observed));
  check_probabilities(probabilities);
  check_alpha(alpha);
  if (observed.size() != probabilities.size()) throw std::invalid_argument("observed counts and probabilities differ in length");
  CategoryVerdicts v;
  v.p_values.resize(observed.size());
  // Each category's exact test is a few incomplete beta functions in long
  // double (a vocabulary's 131,072 took 0.7 s on one core): the categories
  // are shared among the cores, each p-value the same whoever computes it.
  const auto range = [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) v.p_values[i] = binomial_two_sided_p_value(static_cast<std::uint64_t>(observed[i]), n, probabilities[i]);
  };
  const std::size_t threads = observed.size() < 4096 ? 1 : std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64);
  if (threads == 1) {
    range(0, observed.size());
  } else {
    std::vector<std::thread> pool;
    std::exception_ptr failure;
    std::mutex m;
    const std::size_t chunk = (observed.size() + threads - 1) / threads;
    for (std::size_t t = 0; t < threads; ++t) {
      const std::size_t first = t * chunk, last = std::min(observed.size(), first + chunk);
      if (first >= last) break;
      pool.emplace_back([&, first, last] {
        try {
          range(first, last);
        } catch (...) {
          const std::lock_guard<std::mutex> lock(m);
          failure = std::current_exception();
        }
      });
    }
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
  }
  v.adjusted = correction == Correction::Holm ? holm_adjust(v.p_values) : benjamini_hochberg_adjust(v.p_values);
  for (std::size_t i = 0; i < v.adjusted.size(); ++i)
    if (v.adjusted[i] <= alpha) v.rejected.push_back(i);
  TestResult& r = v.summary;
  r.test = correction == Correction::Holm ? "binomial (Holm)" : "binomial (Benjamini-Hochberg)";
  r.alpha = alpha;
  r.sample_size = static_cast<std::size_t>(n);
  r.p_value = *std::min_element(v.adjusted.begin(), v.adjusted.end());
  r.p_value_method = "exact";
  r.statistic = static_cast<double>(v.rejected.size());
  r.reject = !v.rejected.empty();
  r.notes.push_back(std::to_string(v.rejected.size()) + " of " + std::to_string(observed.size()) +
                    " categories rejected after the correction");
  // A relative error e in category i moves its count by e n p_i; the test at
  // level alpha / K (Bonferroni, which Holm's first step is) sees it with the
  // given power when e n p_i >= (z_{1 - alpha / 2K} + z_power) sqrt(n p_i (1 - p_i)).
  const boost::math::normal z;
  const double k = static_cast<double>(observed.size());
  const double za = boost::math::quantile(boost::math::complement(z, alpha / (2 * k)));
  const double zb = boost::math::quantile(z, power);
  double worst = 0;
  for (double p : probabilities)
    if (p > 0 && p < 1) worst = std::max(worst, (za + zb) * std::sqrt((1 - p) / (static_cast<double>(n) * p)));
  r.detectable.power = power;
  r.detectable.max_relative_error = worst;
  r.detectable.basis = "normal approximation to each binomial at level alpha / K";
  return v;
}

TestResult fisher_combination(std::span<const double> p, double alpha) {
  check_p_values(p);
  check_alpha(alpha);
  TestResult r;
  r.test = "fisher";
  r.alpha = alpha;
  r.sample_size = p.size();
  double s = 0;
  for (double v : p) s += -2 * std::log(std::max(v, 1e-300));
  r.statistic = s;
  r.df = 2.0 * static_cast<double>(p.size());
  r.p_value = boost::math::cdf(boost::math::complement(boost::math::chi_squared(*r.df), s));
  r.reject = r.p_value <= alpha;
  return r;
}

TestResult stouffer_combination(std::span<const double> p, double alpha) {
  check_p_values(p);
  check_alpha(alpha);
  TestResult r;
  r.test = "stouffer";
  r.alpha = alpha;
  r.sample_size = p.size();
  const boost::math::normal z;
  double s = 0;
  for (double v : p) s += boost::math::quantile(boost::math::complement(z, std::clamp(v, 1e-300, 1.0 - 1e-16)));
  r.statistic = s / std::sqrt(static_cast<double>(p.size()));
  r.p_value = boost::math::cdf(boost::math::complement(z, r.statistic));
  r.reject = r.p_value <= alpha;
  return r;
}

namespace {

// P(sum of squared bin counts >= s_observed) for N values spread uniformly over
// `bins` equal bins: a dynamic program over the bins, each bin's count given
// what is left being Binomial(left, 1 / bins left). Empty past `max_work`.
std::optional<double> equal_bins_square_sum_tail(std::uint64_t n, int bins, std::uint64_t s_observed, double max_work) {
  const std::uint64_t smax = n * n;
  const double work = static_cast<double>(bins) * static_cast<double>(n + 1) * static_cast<double>(smax + 1) * static_cast<double>(n + 2) / 2;
  if (work > max_work) return std::nullopt;
  const std::size_t width = static_cast<std::size_t>(smax + 1);
  std::vector<double> prob(static_cast<std::size_t>(n + 1) * width, 0.0), next(prob.size());
  prob[static_cast<std::size_t>(n) * width] = 1;  // n left, sum 0
  for (int b = 0; b < bins; ++b) {
    std::fill(next.begin(), next.end(), 0.0);
    const double q = 1.0 / static_cast<double>(bins - b);
    for (std::uint64_t left = 0; left <= n; ++left) {
      const double* row = &prob[static_cast<std::size_t>(left) * width];
      for (std::uint64_t sum = 0; sum <= smax; ++sum) {
        if (row[sum] == 0) continue;
        if (b == bins - 1) {  // the last bin takes what is left
          next[static_cast<std::size_t>(sum + left * left)] += row[sum];
          continue;
        }
        const boost::math::binomial_distribution<double> take(static_cast<double>(left), q);
        for (std::uint64_t x = 0; x <= left; ++x) {
          next[static_cast<std::size_t>(left - x) * width + static_cast<std::size_t>(sum + x * x)] +=
              row[sum] * boost::math::pdf(take, static_cast<double>(x));
        }
      }
    }
    std::swap(prob, next);
  }
  double tail = 0;  // after the last bin nothing is left: row 0
  for (std::uint64_t sum = s_observed; sum <= smax; ++sum) tail += prob[static_cast<std::size_t>(sum)];
  return std::clamp(tail, 0.0, 1.0);
}

}  // namespace

TestResult p_value_uniformity(std::span<const double> p, double alpha, int bins) {
  check_p_values(p);
  check_alpha(alpha);
  if (bins < 2) throw std::invalid_argument("uniformity needs at least 2 bins");
  const auto nb = static_cast<std::size_t>(bins);
  std::vector<double> counts(nb, 0.0), probs(nb, 1.0 / bins);
  for (double v : p) counts[static_cast<std::size_t>(std::min(bins - 1, static_cast<int>(v * bins)))] += 1;
  const auto n = static_cast<std::uint64_t>(p.size());
  TestResult r;
  r.test = "p-value uniformity (" + std::to_string(bins) + " bins)";
  r.alpha = alpha;
  r.sample_size = p.size();
  r.df = bins - 1.0;
  std::uint64_t square_sum = 0;
  for (double c : counts) square_sum += static_cast<std::uint64_t>(c) * static_cast<std::uint64_t>(c);
  // X^2 = (bins / N) sum O_i^2 - N: the tail of X^2 is the tail of sum O_i^2.
  r.statistic = static_cast<double>(bins) / static_cast<double>(n) * static_cast<double>(square_sum) - static_cast<double>(n);
  if (auto exact = equal_bins_square_sum_tail(n, bins, square_sum, 5e7)) {
    r.p_value = *exact;
    r.p_value_method = "exact";
    r.notes.push_back("exact p-value: the bins' counts are multinomial when the p-values are uniform");
  } else {
    GofOptions o;
    o.alpha = alpha;
    o.min_expected = 0;  // every bin kept: the simulated null needs no pooling
    o.method = PValueMethod::MonteCarlo;
    const TestResult mc = chi_square_test(counts, probs, o);
    r.p_value = mc.p_value;
    r.p_value_standard_error = mc.p_value_standard_error;
    r.p_value_method = mc.p_value_method;
    r.notes = mc.notes;
  }
  r.reject = r.p_value <= alpha;
  r.detectable.basis = "no power statement: the test is about the p-values' law, not a sampler's";
  return r;
}

}  // namespace warpsim::stats
