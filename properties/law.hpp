// In law: the draws of one distribution, repeated over many rows (in_law) or
// drawn S times from one row (in_law_of_row_draws), against its
// probabilities, by a stats/ test with its power statement. For any sampler,
// Replayable or not. With a fixed seed the check is deterministic; over seeds
// it rejects a correct sampler with probability alpha.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "properties/checks.hpp"
#include "properties/sampler.hpp"
#include "stats/stats.hpp"

namespace warpsim::properties {

struct LawOptions {
  int draws = 20000;   // rows, each a copy of the distribution (in_law), or draws of one row (in_law_of_row_draws)
  double alpha = 1e-3;  // false-positive rate over seeds
};

namespace detail {

// The chi-square verdict on draws `idx` of one law (`weights`), `what` naming
// them in a failure.
template <class T>
Verdict chi_square_verdict(std::span<const T> weights, const std::vector<int>& idx, double alpha, const std::string& what,
                           stats::TestResult* result) {
  std::vector<double> counts(weights.size(), 0.0), p(weights.size());
  for (int i : idx) counts[static_cast<std::size_t>(i)] += 1;
  long double total = 0;
  for (T w : weights) total += w;
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<double>(static_cast<long double>(weights[i]) / total);
  // Probabilities from fp32 weights may sum to 1 only within rounding.
  double ps = 0;
  for (double x : p) ps += x;
  for (double& x : p) x /= ps;
  stats::GofOptions g;
  g.alpha = alpha;
  const auto r = stats::chi_square_test(counts, p, g);
  if (result) *result = r;
  if (r.reject) {
    return Verdict::fail("in_law", -1, "chi-square rejects the draws at alpha = " + std::to_string(alpha) + ": p = " + std::to_string(r.p_value) +
                                           " over " + what);
  }
  return Verdict::pass("in_law");
}

}  // namespace detail

// The law through the one draw: o.draws rows, each a copy of the weights.
template <class T>
Verdict in_law(const Sampler& s, std::span<const T> weights, std::uint64_t seed, const LawOptions& o = {},
               stats::TestResult* result = nullptr) {
  Matrix<T> m{o.draws, static_cast<int>(weights.size()), {}};
  m.weights.reserve(static_cast<std::size_t>(o.draws) * weights.size());
  for (int r = 0; r < o.draws; ++r) m.weights.insert(m.weights.end(), weights.begin(), weights.end());
  const auto idx = s.draw(m, seed);
  if (auto v = in_range(m, idx); !v.ok) return v;
  return detail::chi_square_verdict(weights, idx, o.alpha, std::to_string(o.draws) + " draws", result);
}

// The law through S draws a row (Sampler::draw_rows): one row of the
// weights, S = o.draws draws of it -- torch.multinomial's use, where the
// draws of one row must be independent of each other, not only of the rows'.
template <class T>
Verdict in_law_of_row_draws(const Sampler& s, std::span<const T> weights, std::uint64_t seed, const LawOptions& o = {},
                            stats::TestResult* result = nullptr) {
  const Matrix<T> m{1, static_cast<int>(weights.size()), std::vector<T>(weights.begin(), weights.end())};
  const auto idx = s.draw_rows(m, seed, o.draws);
  if (auto v = in_range(m, o.draws, idx); !v.ok) return v;
  return detail::chi_square_verdict(weights, idx, o.alpha, std::to_string(o.draws) + " draws of one row", result);
}

}  // namespace warpsim::properties
