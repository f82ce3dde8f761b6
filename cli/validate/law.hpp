// The law check: counts of draws per category against their expectation.
//
// The draws of row r come from p_r = w_r / sum(w_r). The counts summed over
// every draw are compared with E[count_i] = sum over draws of p_{r,i}, by
//   1. Pearson's chi-square (stats/, categories of expected count < 5 pooled),
//   2. an exact two-sided binomial test per category, Holm-adjusted (raw and
//      adjusted p-values both reported),
//   3. a two-level test (where every draw has one law): the draws are dealt
//      into 20 interleaved batches (draw e goes to batch e mod 20), each batch
//      gets a chi-square p-value, and the 20 p-values are tested for
//      uniformity.
// Each at alpha / (number of statistical checks in the report), so the
// report's false-positive rate is at most alpha (Bonferroni).
//
// Rows that differ: a sum of draws from different laws has a smaller
// variance than the multinomial with the mean law (sum p(1-p) <= n pbar(1-pbar)),
// so tests 1 and 2 are conservative there, and the two-level test is not run.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cli/validate/report.hpp"

namespace warpsim::cli::validate {

inline constexpr int kBatches = 20;
// The two-level test keeps batches x K counts: run for K up to this.
inline constexpr std::uint64_t kTwoLevelMaxCategories = 1 << 20;

// Counts draws of categories 0..K-1 (the caller checks the range first).
class LawCounter {
 public:
  LawCounter(std::uint64_t categories, bool two_level);
  void add(std::uint64_t category) {
    counts_[category] += 1;
    if (two_level_) {
      batch_counts_[batch_ * k_ + category] += 1;
      if (++batch_ == kBatches) batch_ = 0;  // draw e goes to batch e mod 20
    }
    ++draws_;
  }
  // Adds counts built elsewhere (a GPU histogram), without batches.
  void add_counts(std::span<const std::uint64_t> counts);
  std::uint64_t draws() const { return draws_; }
  const std::vector<double>& counts() const { return counts_; }
  bool two_level() const { return two_level_; }
  std::span<const double> batch(int b) const { return {batch_counts_.data() + static_cast<std::size_t>(b) * k_, k_}; }

 private:
  std::size_t k_;
  bool two_level_;
  std::uint64_t draws_ = 0;
  std::size_t batch_ = 0;
  std::vector<double> counts_;
  std::vector<double> batch_counts_;
};

// Runs the statistical checks on `counts` against `probabilities` (summing to
// 1: the expected law of one draw), each at `alpha_each`; appends the checks
// to `report` and the law (categories, batch p-values) to report.laws.
void law_checks(const LawCounter& counts, std::span<const double> probabilities, double alpha_each, const std::string& label,
                bool rows_differ, Report& report);

// The statistical checks one law adds (for the Bonferroni split).
int law_check_count(bool two_level);

// p = w / sum(w) in long double, renormalised so that the doubles sum to 1.
std::vector<double> probabilities_of(std::span<const double> weights);

}  // namespace warpsim::cli::validate
