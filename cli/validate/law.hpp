// The law check: counts of draws per category against their expectation.
//
// The draws of row r come from p_r = w_r / sum(w_r). The counts summed over
// every draw are compared with E[count_i] = sum over draws of p_{r,i}, by
//   1. chi_square: Pearson's chi-square (stats/goodness_of_fit.hpp:
//      categories of expected count < 5 pooled, the p-value by simulating the
//      pooled cells' multinomial where that fits the work limit, else the
//      chi-square limit, which many cells make accurate),
//   2. per_category_binomial: an exact two-sided binomial test per category,
//      Holm-adjusted (raw and adjusted p-values both reported),
//   3. ks_discrete: the discrete Kolmogorov-Smirnov test in index order
//      (exact p-value, else Monte Carlo, else the DKW bound), which sees mass
//      moved to neighbouring indices (an off-by-one in a search) with fewer
//      draws than 1 and 2,
//   4. two_level (where every draw has one law and its draws arrive in
//      order): the draws dealt into 20 interleaved batches (draw e to batch
//      e mod 20), each batch's chi-square over at most 64 cells with a
//      randomised Monte Carlo p-value, and the 20 p-values against the
//      uniform law (stats/two_level.hpp).
// Every p-value is valid at every sample size (docs/validate.md,
// "Calibration", measures it). Each check runs at alpha / (the number of
// checks of the report), so the report's false-positive rate is at most alpha
// (Bonferroni). A check that cannot say anything (one category of positive
// probability, too few draws) is reported skipped, with why.
//
// Rows that differ: a sum of draws from different laws has a smaller
// variance than the multinomial with the mean law (sum p(1-p) <= n pbar(1-pbar)),
// so checks 1-3 are conservative there, and the two-level test is not run.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/validate/report.hpp"

namespace warpsim::cli::validate {

inline constexpr int kBatches = 20;
inline constexpr int kTwoLevelCells = 64;  // the most cells a batch's chi-square has

// What the law check reads: the counts, and for the two-level test each
// batch's counts per cell (categories grouped in index order).
struct LawCounts {
  std::vector<double> counts;          // per category
  std::uint64_t draws = 0;
  bool batched = false;                // batch_counts kept (one law, draws in order)
  std::vector<std::uint32_t> cell_of;  // category -> cell
  int cells = 0;
  std::vector<double> batch_counts;    // kBatches x cells
};

// Counts draws of categories 0..K-1 (the caller checks the range first).
class LawCounter {
 public:
  // Without batches: rows that differ, or counts made elsewhere.
  explicit LawCounter(std::uint64_t categories);
  // One law for every draw (probabilities of the K categories): with batches.
  explicit LawCounter(std::span<const double> probabilities);
  void add(std::uint64_t category) {
    d_.counts[category] += 1;
    if (d_.batched) {
      d_.batch_counts[batch_ * static_cast<std::size_t>(d_.cells) + d_.cell_of[category]] += 1;
      if (++batch_ == kBatches) batch_ = 0;  // draw e goes to batch e mod 20
    }
    ++d_.draws;
  }
  // Adds counts built elsewhere (a GPU histogram): the draws' order is lost,
  // and with it the batches.
  void add_counts(std::span<const std::uint64_t> counts);
  // Adds counts and batch counts made elsewhere as add() makes them, in
  // order (the draws counted on a device: cli/validate/device.hpp).
  void add_batched_counts(std::span<const std::uint64_t> counts, std::span<const std::uint64_t> batch_counts);
  // The next draw added is draw `first` of the law (its global index, where
  // processes share the draws): it goes to batch first mod 20.
  void start_at(std::uint64_t first) { batch_ = static_cast<std::size_t>(first % kBatches); }
  std::uint64_t draws() const { return d_.draws; }
  const LawCounts& data() const { return d_; }

 private:
  LawCounts d_;
  std::size_t batch_ = 0;
};

struct LawCheckOptions {
  double alpha_each = 1e-3;     // each check's level
  std::string label;            // which distribution, in words
  bool rows_differ = false;
  // The Monte Carlo p-values' seed; by default each is made from the counts
  // (stats/monte_carlo.hpp), so that a report is reproducible and the rate
  // over samples is alpha's.
  std::optional<std::uint64_t> seed{};
  // The calibration harness decides these two from tables of its own
  // (cli/validate/calibration.hpp) and turns them off here.
  bool binomial = true, ks = true;
};

// Runs the statistical checks on `counts` against `probabilities` (summing to
// 1: the expected law of one draw); appends the checks to `report` and the
// law (categories, batch p-values) to report.laws.
void law_checks(const LawCounts& counts, std::span<const double> probabilities, const LawCheckOptions& options, Report& report);

// The statistical checks one law adds (for the Bonferroni split): 4 with
// batches, else 3.
int law_check_count(bool batched);

// p = w / sum(w) in long double, renormalised so that the doubles sum to 1.
std::vector<double> probabilities_of(std::span<const double> weights);

}  // namespace warpsim::cli::validate
