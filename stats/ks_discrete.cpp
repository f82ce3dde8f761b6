#include "stats/ks_discrete.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/kolmogorov_smirnov.hpp>
#include <boost/random/binomial_distribution.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "stats/input_checks.hpp"
#include "stats/monte_carlo.hpp"

namespace warpsim::stats {

namespace {

// D >= d counts as "at least as extreme" up to this much rounding in D.
constexpr double kTieTolerance = 1e-12;

// One Boost binomial pmf evaluation, in units of the dynamic program's inner
// multiply-add (measured: about 50 on x86-64).
constexpr double kPdfCost = 50;

// pmf of Binomial(m, q) at x_lo..x_hi (x_hi <= m), written to out[0..]; starts
// at the mode (clamped into the range) so that the recurrence never starts in
// an underflowed tail.
void binomial_pmf_range(std::uint64_t m, double q, std::uint64_t x_lo, std::uint64_t x_hi, std::vector<double>& out) {
  out.assign(static_cast<std::size_t>(x_hi - x_lo + 1), 0.0);
  if (q <= 0) {
    if (x_lo == 0) out[0] = 1;
    return;
  }
  if (q >= 1) {
    if (m >= x_lo && m <= x_hi) out[static_cast<std::size_t>(m - x_lo)] = 1;
    return;
  }
  const auto mode = static_cast<std::uint64_t>(std::floor((static_cast<double>(m) + 1) * q));
  const std::uint64_t start = std::clamp(std::min(mode, m), x_lo, x_hi);
  const double ratio = q / (1 - q);
  // The pmf at the start from log-gamma in long double (a few hundred
  // nanoseconds; Boost's pdf, called once a reachable count, was most of the
  // program's time): relative error about 1e-19 x log(m!) at most.
  const long double md = static_cast<long double>(m), sd = static_cast<long double>(start);
  double v = static_cast<double>(std::exp(std::lgamma(md + 1) - std::lgamma(sd + 1) - std::lgamma(md - sd + 1) + sd * std::log(static_cast<long double>(q)) +
                                          (md - sd) * std::log1p(-static_cast<long double>(q))));
  out[static_cast<std::size_t>(start - x_lo)] = v;
  for (std::uint64_t x = start; x < x_hi && v > 0; ++x) {
    v *= static_cast<double>(m - x) / static_cast<double>(x + 1) * ratio;
    out[static_cast<std::size_t>(x + 1 - x_lo)] = v;
  }
  v = out[static_cast<std::size_t>(start - x_lo)];
  for (std::uint64_t x = start; x > x_lo && v > 0; --x) {
    v *= static_cast<double>(x) / static_cast<double>(m - x + 1) / ratio;
    out[static_cast<std::size_t>(x - 1 - x_lo)] = v;
  }
}

std::vector<long double> cumulative(std::span<const double> p) {
  std::vector<long double> f(p.size());
  long double s = 0;
  for (std::size_t i = 0; i < p.size(); ++i) f[i] = s += p[i];
  return f;
}

double total(std::span<const double> v) { return std::accumulate(v.begin(), v.end(), 0.0); }

}  // namespace

double ks_statistic(std::span<const double> observed, std::span<const double> probabilities) {
  const double n = total(observed);
  long double c = 0, f = 0, d = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    c += observed[i];
    f += probabilities[i];
    d = std::max(d, std::abs(c / n - f));
  }
  return static_cast<double>(d);
}

std::optional<double> ks_exact_p_value(std::span<const double> probabilities, std::uint64_t n, double d, double max_work) {
  const double dd = d - kTieTolerance;
  if (dd <= 0) return 1.0;
  const std::size_t k = probabilities.size();
  const auto f = cumulative(probabilities);
  // Accepted cumulative counts after category i: n F_i - n dd < c < n F_i + n dd.
  std::vector<std::uint64_t> lo(k), hi(k);
  const double nn = static_cast<double>(n);
  // Work: for every reachable count of the previous category, one binomial pmf
  // evaluated by Boost (about kPdfCost steps) and one pass over the new range.
  double work = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double centre = nn * static_cast<double>(f[i]);
    const double a = std::floor(centre - nn * dd) + 1, b = std::ceil(centre + nn * dd) - 1;
    lo[i] = static_cast<std::uint64_t>(std::clamp(a, 0.0, nn));
    hi[i] = static_cast<std::uint64_t>(std::clamp(b, 0.0, nn));
    if (a > nn || b < 0 || lo[i] > hi[i]) return 1.0;  // no sample is accepted: D >= d always
    const double width = static_cast<double>(hi[i] - lo[i] + 1);
    work += (i ? static_cast<double>(hi[i - 1] - lo[i - 1] + 1) : 1.0) * (kPdfCost + width);
    if (work > max_work) return std::nullopt;
  }
  // suffix[i] = probability left for categories i..k-1
  std::vector<long double> suffix(k + 1, 0);
  for (std::size_t i = k; i-- > 0;) suffix[i] = suffix[i + 1] + probabilities[i];
  std::vector<double> prob{1.0};  // distribution of the cumulative count, over [plo, phi]
  std::uint64_t plo = 0, phi = 0;
  std::vector<double> pmf;
  for (std::size_t i = 0; i < k; ++i) {
    const double q = suffix[i] > 0 ? std::clamp(static_cast<double>(probabilities[i] / suffix[i]), 0.0, 1.0) : 0.0;
    std::vector<double> next(static_cast<std::size_t>(hi[i] - lo[i] + 1), 0.0);
    for (std::uint64_t c = plo; c <= phi; ++c) {
      const double pc = prob[static_cast<std::size_t>(c - plo)];
      if (pc == 0) continue;
      const std::uint64_t from = std::max(lo[i], c), to = hi[i];
      if (from > to) continue;
      binomial_pmf_range(n - c, q, from - c, std::min(to - c, n - c), pmf);
      for (std::size_t x = 0; x < pmf.size(); ++x) next[static_cast<std::size_t>(from - lo[i]) + x] += pc * pmf[x];
    }
    prob = std::move(next);
    plo = lo[i];
    phi = hi[i];
  }
  const double accept = std::accumulate(prob.begin(), prob.end(), 0.0);
  return std::clamp(1.0 - accept, 0.0, 1.0);
}

MonteCarloP ks_monte_carlo_p_value(std::span<const double> probabilities, std::uint64_t n, double d,
                                   std::uint64_t replicates, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto f = cumulative(probabilities);
  std::vector<long double> suffix(probabilities.size() + 1, 0);
  for (std::size_t i = probabilities.size(); i-- > 0;) suffix[i] = suffix[i + 1] + probabilities[i];
  std::uint64_t hits = 0;
  const long double nn = static_cast<long double>(n);
  for (std::uint64_t rep = 0; rep < replicates; ++rep) {
    std::uint64_t left = n, c = 0;
    long double dmax = 0;
    for (std::size_t i = 0; i < probabilities.size() && left > 0; ++i) {
      const double q = suffix[i] > 0 ? std::clamp(static_cast<double>(probabilities[i] / suffix[i]), 0.0, 1.0) : 0.0;
      // Boost's BTRD sampler: constant time per draw for any n. (libstdc++'s
      // std::binomial_distribution never returns for n near 2^60.)
      const auto x = static_cast<std::uint64_t>(
          boost::random::binomial_distribution<std::int64_t, double>(static_cast<std::int64_t>(left), q)(rng));
      c += x;
      left -= x;
      dmax = std::max(dmax, std::abs(static_cast<long double>(c) / nn - f[i]));
    }
    hits += dmax >= d - kTieTolerance;
  }
  const double p = (1.0 + static_cast<double>(hits)) / (1.0 + static_cast<double>(replicates));
  return {p, std::sqrt(p * (1 - p) / static_cast<double>(replicates)), replicates};
}

double ks_dkw_p_value_bound(double n, double d) {
  const double dd = d - kTieTolerance;
  if (dd <= 0) return 1.0;
  return std::min(1.0, 2 * std::exp(-2 * n * dd * dd));
}

double ks_detectable_distance(double n, double alpha, double power) {
  return std::sqrt(std::log(2 / alpha) / (2 * n)) + std::sqrt(std::log(2 / (1 - power)) / (2 * n));
}

TestResult ks_discrete_test(std::span<const double> observed, std::span<const double> probabilities, const KsOptions& o) {
  const double n = check_counts(observed);
  check_probabilities(probabilities);
  check_alpha(o.alpha);
  if (observed.size() != probabilities.size()) throw std::invalid_argument("observed counts and probabilities differ in length");
  TestResult r;
  r.test = "ks-discrete";
  r.alpha = o.alpha;
  r.sample_size = static_cast<std::size_t>(n);
  r.statistic = ks_statistic(observed, probabilities);
  const double k = static_cast<double>(probabilities.size());
  const auto min_replicates = std::min(o.monte_carlo_replicates, o.min_monte_carlo_replicates);
  if (auto exact = ks_exact_p_value(probabilities, static_cast<std::uint64_t>(n), r.statistic, o.max_exact_work)) {
    r.p_value = *exact;
    r.p_value_method = "exact";
    r.notes.push_back("exact p-value for the discrete null");
  } else if (k * static_cast<double>(min_replicates) <= o.max_monte_carlo_work) {
    // Sequential (Besag-Clifford): a few dozen replicates where p is large, up
    // to as many as the work limit allows (each costs one binomial draw per
    // category), at most the requested number.
    const auto affordable = static_cast<std::uint64_t>(o.max_monte_carlo_work / k);
    const auto replicates = std::clamp(affordable, min_replicates, std::max(o.monte_carlo_replicates, replicates_to_resolve(o.alpha)));
    const std::uint64_t seed = o.seed.value_or(seed_from_counts(observed, 2));
    const MultinomialSampler null(probabilities);
    const auto f = cumulative(probabilities);
    const auto total = static_cast<std::uint64_t>(n);
    std::vector<double> counts(probabilities.size());
    const auto mc = sequential_p_value(
        r.statistic - kTieTolerance,
        [&](std::mt19937_64& rng) {
          null.draw(rng, total, counts);
          long double c = 0, d = 0;
          for (std::size_t i = 0; i < counts.size(); ++i) {
            c += counts[i];
            d = std::max(d, std::abs(c / static_cast<long double>(n) - f[i]));
          }
          return static_cast<double>(d);
        },
        {.max_replicates = replicates, .stop_after = 10, .seed = seed});
    r.p_value = mc.p_value;
    r.p_value_method = "Monte Carlo, " + std::to_string(mc.replicates) + " samples";
    r.p_value_standard_error = std::sqrt(mc.p_value * (1 - mc.p_value) / static_cast<double>(mc.replicates));
    r.notes.push_back("Monte-Carlo p-value from " + std::to_string(mc.replicates) + " replicates (seed " + std::to_string(seed) +
                      (mc.stopped_early ? ", stopped at 10 as extreme: Besag-Clifford" : "") +
                      "); the exact computation exceeds the work limit");
  } else {
    r.p_value = ks_dkw_p_value_bound(n, r.statistic);
    r.p_value_method = "DKW bound";
    r.notes.push_back("p-value bounded above by the Dvoretzky-Kiefer-Wolfowitz-Massart inequality, 2 exp(-2 n D^2) "
                      "(conservative, any law): " +
                      std::to_string(probabilities.size()) +
                      " categories put the exact and Monte-Carlo computations past their work limits");
  }
  r.reject = r.p_value <= o.alpha;
  r.detectable.power = o.power;
  r.detectable.kolmogorov_distance = ks_detectable_distance(n, o.alpha, o.power);
  r.detectable.basis = "Dvoretzky-Kiefer-Wolfowitz inequality with Massart's constant: finite-sample, any law";
  return r;
}

std::optional<double> ks_two_sample_exact_p_value(std::span<const double> counts1, std::span<const double> counts2,
                                                  double d, double max_work) {
  if (counts1.size() != counts2.size()) throw std::invalid_argument("the two samples' counts differ in length");
  const auto n1 = static_cast<std::uint64_t>(check_counts(counts1, "first sample's counts"));
  const auto n2 = static_cast<std::uint64_t>(check_counts(counts2, "second sample's counts"));
  check_pooled_total(static_cast<double>(n1), static_cast<double>(n2));
  const std::uint64_t big_n = n1 + n2;
  if (static_cast<double>(big_n) * static_cast<double>(n1 + 1) > max_work) return std::nullopt;
  const double dd = d - kTieTolerance;
  if (dd <= 0) return 1.0;
  // prob[i]: probability of i first-sample values among the first t pooled
  // ones, over the paths still accepted. A path is checked only where a block
  // of tied values (one category) ends.
  std::vector<double> prob(n1 + 1, 0.0), next(n1 + 1);
  prob[0] = 1;
  std::uint64_t t = 0;
  for (std::size_t c = 0; c < counts1.size(); ++c) {
    const auto block = static_cast<std::uint64_t>(counts1[c]) + static_cast<std::uint64_t>(counts2[c]);
    for (const std::uint64_t end = t + block; t < end; ++t) {
      std::fill(next.begin(), next.end(), 0.0);
      const double remaining = static_cast<double>(big_n - t);
      const std::uint64_t i_lo = t > n2 ? t - n2 : 0, i_hi = std::min(t, n1);
      for (std::uint64_t i = i_lo; i <= i_hi; ++i) {
        const double p = prob[i];
        if (p == 0) continue;
        const double right = static_cast<double>(n1 - i) / remaining;  // next value from sample 1
        if (i < n1) next[i + 1] += p * right;
        if (t - i < n2) next[i] += p * (1 - right);
      }
      std::swap(prob, next);
    }
    if (block == 0) continue;
    for (std::uint64_t i = 0; i <= std::min(n1, t); ++i) {
      const std::uint64_t j = t - i;
      if (j > n2) continue;
      if (std::abs(static_cast<double>(i) / static_cast<double>(n1) - static_cast<double>(j) / static_cast<double>(n2)) >= dd) prob[i] = 0;
    }
  }
  return std::clamp(1.0 - prob[n1], 0.0, 1.0);
}

TestResult ks_two_sample_test(std::span<const double> counts1, std::span<const double> counts2, const KsOptions& o) {
  const double n1 = check_counts(counts1, "first sample's counts");
  const double n2 = check_counts(counts2, "second sample's counts");
  check_pooled_total(n1, n2);
  check_alpha(o.alpha);
  if (counts1.size() != counts2.size()) throw std::invalid_argument("the two samples' counts differ in length");
  TestResult r;
  r.test = "ks-two-sample";
  r.alpha = o.alpha;
  r.sample_size = static_cast<std::size_t>(n1 + n2);
  long double c1 = 0, c2 = 0, d = 0;
  for (std::size_t i = 0; i < counts1.size(); ++i) {
    c1 += counts1[i];
    c2 += counts2[i];
    d = std::max(d, std::abs(c1 / n1 - c2 / n2));
  }
  r.statistic = static_cast<double>(d);
  const double en = n1 * n2 / (n1 + n2);
  if (auto exact = ks_two_sample_exact_p_value(counts1, counts2, r.statistic, o.max_exact_work)) {
    r.p_value = *exact;
    r.p_value_method = "exact";
    r.notes.push_back("exact permutation p-value, ties included");
  } else {
    r.p_value = boost::math::cdf(boost::math::complement(boost::math::kolmogorov_smirnov_distribution<double>(en), r.statistic));
    r.p_value_method = "Kolmogorov limit";
    r.notes.push_back("asymptotic p-value (Kolmogorov's limit, n1 n2 / (n1 + n2) = " + std::to_string(en) +
                      "); conservative where values tie");
  }
  r.reject = r.p_value <= o.alpha;
  r.detectable.power = o.power;
  // Each empirical CDF is within t_k of its law with probability 1 - beta/2 (DKW).
  const double beta = 1 - o.power;
  r.detectable.kolmogorov_distance = std::sqrt(std::log(2 / o.alpha) / (2 * en)) + std::sqrt(std::log(4 / beta) / (2 * n1)) +
                                     std::sqrt(std::log(4 / beta) / (2 * n2));
  r.detectable.basis = "critical value from Kolmogorov's asymptotic bound, each sample's deviation from its law by the "
                       "Dvoretzky-Kiefer-Wolfowitz-Massart inequality";
  return r;
}

}  // namespace warpsim::stats
