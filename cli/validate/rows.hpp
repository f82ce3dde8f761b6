// The per-row checks of a file of draws whose weight rows differ: every draw
// judged by its own row's law (stats/row_laws.hpp), with one draw a row (an
// LLM's decode step) or S.
//
//   pit_heaviest      the draws' randomised PITs, each row's categories
//                     heaviest first, against the uniform law: a row drawn
//                     from another row's law, a temperature ignored
//   pit_index         the same in index order: mass moved between
//                     neighbouring indices
//   rows_independent  pairs of rows (0, 1), (2, 3), ... draw by draw: rows
//                     must not share their randomness (with --row-seeds,
//                     pairs of equal seeds are left out)
//   rows_score        the draws' log-probabilities under their rows, summed,
//                     against their expectation, its null simulated from the
//                     rows' laws: a temperature ignored (the strongest check
//                     against it with one draw a row), a row drawn from
//                     another's law
//   rows_binomial     every (row, category) by its exact binomial test,
//                     Bonferroni over the cells: one category of one row far
//                     off (with one draw a row: a draw of a category whose
//                     probability is below alpha / cells)
//   rows_chi_square   S >= 2 a row: each row's chi-square, summed, its null
//                     simulated from the rows' laws
//
// Draws stream; a row's law is built when its draws arrive (rows arrive in
// order in C-ordered .npy files and text lines). The PITs' uniforms come from
// rng/ (Philox), keyed by a fingerprint of the draws, the draw number the
// counter: a report is reproducible.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/validate/report.hpp"
#include "stats/row_laws.hpp"

namespace warpsim::cli::validate {

// Above this probability of the draws' likeliest outcome, the PIT checks are not run.
inline constexpr double kPitMostLikelyOutcome = 1e-6;
inline constexpr int kPitBins = 1000;
// rows_score and rows_chi_square keep every row's law and counts: past these, they are skipped.
inline constexpr std::uint64_t kRowsChiSquareMaxWeights = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kRowsChiSquareMaxDraws = std::uint64_t{1} << 26;
// rows_score and rows_chi_square simulate at most this many draws each (a
// failing report's cost: a few seconds); they judge the first rows that fit
// (stats/row_laws.hpp).
inline constexpr double kRowsChiSquareWork = 5e7;
// rows_independent uses at most this many pairs of draws.
inline constexpr std::size_t kIndependencePairs = 100000;

// Two passes over the draws. The PITs' uniforms must be independent of the
// draws and yet vary from one file of draws to another: with one fixed
// stream, rows whose law is nearly one category (a low temperature) give
// nearly the same PITs in every file, and a correct sampler failed 20 times
// in 100 at 0.05 (200 rows of 40). So the first pass reads every draw (and
// keeps the counts), the uniforms are then keyed by a fingerprint of all the
// draws, and the second pass takes the PITs. Where the draws are nearly
// fixed (their likeliest outcome together has probability above 1e-6) no
// fingerprint varies enough, and the PIT checks are not run.
class RowChecks {
 public:
  // weights: rows x cols (each a law); seeds: one a row, or empty. `built`:
  // the rows' laws made already (the calibration harness reuses them across
  // runs), or null; which checks run does not depend on it.
  RowChecks(const std::vector<double>& weights, std::uint64_t rows, std::uint64_t cols, std::vector<std::uint64_t> seeds,
            const std::vector<stats::RowLaw>* built = nullptr);
  ~RowChecks();
  // Pass 1: draw e (numbered from 0 over the file) of row r is index x (in
  // range, of weight > 0: the file's checks report the others).
  void add(std::uint64_t e, std::uint64_t r, std::uint64_t x);
  // Whether the second pass is wanted (false: the draws are nearly fixed).
  bool wants_pit_pass();
  // Pass 2: the same draws again, in the same order.
  void pit(std::uint64_t e, std::uint64_t r, std::uint64_t x);
  // The checks this adds to a report (for the Bonferroni split): 6 where
  // some row holds 2 draws or more, else 5.
  int check_count();
  // Runs the checks at alpha_each, appends them and the rows' view.
  // `no_pit_pass`: why the second pass did not happen ("" if it did, or was
  // not wanted).
  void finish(double alpha_each, const std::string& label, Report& report, const std::string& no_pit_pass = "");

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace warpsim::cli::validate
