#include "stats/two_level.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "stats/binomial.hpp"
#include "stats/input_checks.hpp"
#include "stats/monte_carlo.hpp"

namespace warpsim::stats {

std::vector<std::uint32_t> group_in_index_order(std::span<const double> p, int cells) {
  if (cells < 1) throw std::invalid_argument("grouping needs at least one cell");
  std::vector<long double> after(p.size() + 1, 0.0L);  // mass of the categories after i
  for (std::size_t i = p.size(); i-- > 0;) after[i] = after[i + 1] + p[i];
  const long double target = after[0] / cells;
  std::vector<std::uint32_t> out(p.size());
  std::uint32_t cell = 0;
  long double mass = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const bool room = cell + 1 < static_cast<std::uint32_t>(cells);
    if (room && mass > 0 && p[i] >= target) {  // a heavy category starts a cell of its own
      ++cell;
      mass = 0;
    }
    out[i] = cell;
    mass += p[i];
    if (cell + 1 < static_cast<std::uint32_t>(cells) && mass >= target * (1 - 1e-12L) && after[i + 1] > 0) {
      ++cell;
      mass = 0;
    }
  }
  return out;
}

namespace {

double pearson(std::span<const double> observed, std::span<const double> expected) {
  double s = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) s += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
  return s;
}

}  // namespace

TwoLevelResult two_level_test(std::span<const double> batch_counts, int batches, std::span<const double> cell_p, const TwoLevelOptions& o) {
  check_alpha(o.alpha);
  if (batches < 2) throw std::invalid_argument("two-level test: needs at least 2 batches");
  if (cell_p.empty() || batch_counts.size() != static_cast<std::size_t>(batches) * cell_p.size()) {
    throw std::invalid_argument("two-level test: batch counts must be batches x cells");
  }
  check_counts(batch_counts, "batch counts");
  const std::size_t c = cell_p.size();
  std::vector<double> sizes(static_cast<std::size_t>(batches));
  for (int b = 0; b < batches; ++b) {
    const auto row = batch_counts.subspan(static_cast<std::size_t>(b) * c, c);
    sizes[static_cast<std::size_t>(b)] = std::accumulate(row.begin(), row.end(), 0.0);
  }
  // Merge the cells (in order) so that the smallest batch expects at least
  // min_cell_expected draws in each; 2 cells at least.
  const double smallest = *std::min_element(sizes.begin(), sizes.end());
  const int want = static_cast<int>(std::clamp(std::floor(smallest / std::max(o.min_cell_expected, 1e-300)), 2.0, std::max(2.0, static_cast<double>(c))));
  std::vector<std::uint32_t> group(c);
  if (static_cast<std::size_t>(want) < c) {
    group = group_in_index_order(cell_p, want);
  } else {
    for (std::size_t i = 0; i < c; ++i) group[i] = static_cast<std::uint32_t>(i);
  }
  const std::size_t g = group.back() + 1;
  std::vector<double> q(g, 0.0);
  for (std::size_t i = 0; i < c; ++i) q[group[i]] += cell_p[i];
  // cells of probability 0 cannot be simulated or divided by: left out (a
  // draw in one is the zero_never_drawn check's business)
  std::vector<std::size_t> keep;
  for (std::size_t j = 0; j < g; ++j)
    if (q[j] > 0) keep.push_back(j);

  TwoLevelResult out;
  out.cells = static_cast<int>(keep.size());
  TestResult& r = out.summary;
  if (keep.size() < 2) {
    r.test = "two-level";
    r.alpha = o.alpha;
    r.notes.push_back("one cell of positive probability: every batch's chi-square is 0, nothing to test");
    return out;
  }
  std::vector<double> kept_p(keep.size());
  for (std::size_t j = 0; j < keep.size(); ++j) kept_p[j] = q[keep[j]];
  const double total_p = std::accumulate(kept_p.begin(), kept_p.end(), 0.0);
  for (double& v : kept_p) v /= total_p;
  // log of a bound on the likeliest outcome of all the batches: a batch's
  // likeliest count vector is no likelier than the likeliest count of any one
  // of its cells
  double log_likeliest = 0;
  for (double size : sizes) {
    double batch = 0;  // log of the smallest, over cells, of the cell's modal probability
    for (double pj : kept_p) {
      if (size == 0 || pj >= 1) continue;
      const boost::math::binomial_distribution<double> cell(size, pj);
      const double mode = std::min(size, std::floor((size + 1) * pj));
      batch = std::min(batch, std::log(boost::math::pdf(cell, mode)));
    }
    log_likeliest += batch;
  }
  if (log_likeliest > std::log(kTwoLevelMostLikelyOutcome)) {
    out.nearly_fixed = true;
    r.test = "two-level";
    r.alpha = o.alpha;
    r.notes.push_back("the batches' counts are nearly fixed (their likeliest outcome together may have probability " +
                      number_text(std::exp(log_likeliest)) + "): a randomised p-value would be one fixed number, not a test");
    return out;
  }
  const MultinomialSampler null(kept_p);
  std::mt19937_64 rng(o.seed.value_or(seed_from_counts(batch_counts, 3)));
  std::vector<double> observed(keep.size()), expected(keep.size()), simulated(keep.size()), merged(g);
  for (int b = 0; b < batches; ++b) {
    std::fill(merged.begin(), merged.end(), 0.0);
    for (std::size_t i = 0; i < c; ++i) merged[group[i]] += batch_counts[static_cast<std::size_t>(b) * c + i];
    double n_b = 0;
    for (std::size_t j = 0; j < keep.size(); ++j) n_b += observed[j] = merged[keep[j]];
    for (std::size_t j = 0; j < keep.size(); ++j) expected[j] = n_b * kept_p[j];
    const auto size = static_cast<std::uint64_t>(n_b);
    const double t = n_b > 0 ? pearson(observed, expected) : 0.0;
    out.batch_p_values.push_back(randomised_p_value(
        t, o.replicates,
        [&](std::mt19937_64& g_rng) {
          if (size == 0) return 0.0;
          null.draw(g_rng, size, simulated);
          return pearson(simulated, expected);
        },
        rng));
  }
  r = p_value_uniformity(out.batch_p_values, o.alpha, o.bins);
  r.test = "two-level";
  r.sample_size = static_cast<std::size_t>(std::accumulate(sizes.begin(), sizes.end(), 0.0));
  r.notes.insert(r.notes.begin(), std::to_string(batches) + " batches, each batch's chi-square over " + std::to_string(keep.size()) +
                                      " cells with a randomised Monte Carlo p-value (" + std::to_string(o.replicates) +
                                      " simulated samples), then the p-values in " + std::to_string(o.bins) + " equal bins");
  return out;
}

}  // namespace warpsim::stats
