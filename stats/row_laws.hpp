// Tests that judge every draw by its own row's law: M rows of K categories,
// S >= 1 draws a row (an LLM's decode step draws once a row).
//
// The randomised probability integral transform (PIT) of a draw x under its
// row's law p, u = F(x-) + v p(x) with v ~ Uniform(0, 1) independent of x, is
// exactly Uniform(0, 1) when x follows p, for any fixed order of the
// categories (F sums the categories before x in that order); the u of
// independent draws are independent. So every draw, whatever its row, adds
// one uniform, and their uniformity is one exact test of all the rows at
// once. Two orders, each sensitive to its own faults:
//   - index order: mass moved between neighbouring indices (an off-by-one,
//     a row drawn from a row whose law is a shifted copy);
//   - heaviest first (ties by index): a law too peaked or too flat (a
//     temperature ignored), a row drawn from another row's law (its heavy
//     categories are not this row's).
// The u are binned into B equal bins (their counts are then exactly
// multinomial with equal probabilities) and judged by the discrete KS test
// and Pearson's chi-square with exact or simulated p-values (stats/).
//
// With S >= 2, each row's own chi-square, summed over the rows,
//   T = sum_r sum_i (O_ri - S p_ri)^2 / (S p_ri) = sum_r (sum_i O_ri^2 / (S p_ri) - S),
// takes only the categories a row drew; its null is simulated from the rows'
// own laws (S inverse-CDF draws a row), so it is valid however few draws a
// category expects.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "stats/test_result.hpp"

namespace warpsim::stats {

// One row's law, ready for the per-draw tests.
class RowLaw {
 public:
  // Weights (not all 0, finite, non-negative), normalised here in long double.
  explicit RowLaw(std::span<const double> weights);
  std::size_t size() const { return p_.size(); }
  double p(std::size_t i) const { return p_[i]; }
  // The mass of the categories before i: in index order, or heaviest first.
  double before_index(std::size_t i) const { return before_index_[i]; }
  double before_heavier(std::size_t i) const { return before_heavier_[i]; }
  // The category whose index-order interval holds u in [0, 1) (the inverse CDF).
  std::size_t inverse(double u) const;

 private:
  std::vector<double> p_, before_index_, before_heavier_;
};

enum class PitOrder { Index, Heaviest };

// u = F(x-) + v p(x) in the given order, clamped into [0, 1).
double randomised_pit(const RowLaw& law, std::size_t x, double v, PitOrder order);

// The PIT values of a stream of draws, binned: B equal bins for each order.
class PitHistogram {
 public:
  explicit PitHistogram(int bins = 1000);
  void add(const RowLaw& law, std::size_t x, double v);
  std::uint64_t draws() const { return draws_; }
  std::span<const double> counts(PitOrder order) const { return order == PitOrder::Index ? index_ : heaviest_; }
  int bins() const { return static_cast<int>(index_.size()); }

 private:
  std::vector<double> index_, heaviest_;
  std::uint64_t draws_ = 0;
};

// The binned PIT values against the uniform law: the discrete KS test over
// the bins in order (a p-value exact, simulated, or the DKW bound).
TestResult pit_uniformity_test(std::span<const double> bin_counts, double alpha);

// The rows' own chi-squares summed (S_r >= 2 draws in row r): `counts[r]`
// holds row r's (category, count) pairs for the categories it drew, S_r
// their sum. Sequential Monte Carlo p-value from the rows' laws (S_r draws a
// row by inverse CDF), seeded from the counts unless `seed` is given. Its
// replicates: 10 / alpha where `max_work` simulated draws allow, and never
// fewer than 2 / alpha (so that it can reject): the first rows are taken,
// as many as hold at most max_work alpha / 2 draws (at alpha 1.4e-4 and
// 2e8, 14,000 draws), and the result says so. Rows with no counts are
// left out.
struct RowCounts {
  std::vector<std::pair<std::uint32_t, double>> drawn;  // (category, count), categories distinct
};
TestResult rows_chi_square_test(std::span<const RowLaw> laws, std::span<const RowCounts> counts, double alpha,
                                std::optional<std::uint64_t> seed = std::nullopt, double max_work = 2e8);

// The score: T = sum over the draws of log p_r(x_r), two-sided: |T - E T|,
// its null simulated as the rows' chi-square's is (same limits). A row drawn
// from another row's law, or a temperature ignored either way, moves T off
// its expectation; with one draw a row it is the most powerful of these
// tests against an ignored temperature (docs/validate.md).
TestResult rows_score_test(std::span<const RowLaw> laws, std::span<const RowCounts> counts, double alpha,
                           std::optional<std::uint64_t> seed = std::nullopt, double max_work = 2e8);

// Every cell (row, category) by its own exact two-sided binomial test, its
// count against S_r p_ri, Bonferroni across the cells of every row with a
// draw (Holm's first step: the family-wise decision). Only cells whose own
// pmf leaves room for a p-value at the level are computed (the rest cannot
// reject). The summary's p-value is the smallest adjusted one; `worst` gets
// the rows of the smallest raw p-values, smallest first (at most `keep`).
struct RowCell {
  std::size_t row = 0;
  std::uint32_t category = 0;
  double count = 0, expected = 0, p_value = 1;
};
TestResult rows_binomial_test(std::span<const RowLaw> laws, std::span<const RowCounts> counts, double alpha, std::vector<RowCell>* worst = nullptr,
                              std::size_t keep = 10);

// Draws of different rows are independent. For disjoint pairs of rows (a, b)
// and each draw position j, d = (u_aj - u_bj)^2 over the two draws' PITs in
// index order has mean 1/6 when the rows are independent (U, U' uniform); a
// sampler that draws both rows with one uniform (a per-row seed ignored)
// makes it near 0. Statistic |mean d - 1/6|, its null simulated (sequential
// Monte Carlo, n pairs of uniforms a replicate: at least 2 / alpha
// replicates, at most 10 / alpha; the first max_work alpha / 2 pairs are
// judged, and the result says so).
TestResult rows_independence_test(std::span<const double> squared_differences, double alpha,
                                  std::optional<std::uint64_t> seed = std::nullopt, double max_work = 5e7);

}  // namespace warpsim::stats
