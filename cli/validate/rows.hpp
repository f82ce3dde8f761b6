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
//   rows_chi_square   S >= 2 a row: each row's chi-square, summed, its null
//                     simulated from the rows' laws
//
// Draws stream; a row's law is built when its draws arrive (rows arrive in
// order in C-ordered .npy files and text lines). The PITs' uniforms come from
// rng/ (Philox) under a fixed key, the draw number the counter, so a report
// is reproducible and the uniforms are independent of the draws.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/validate/report.hpp"
#include "stats/row_laws.hpp"

namespace warpsim::cli::validate {

// The Philox key of the PITs' uniforms (the draw number is the counter).
inline constexpr std::uint64_t kPitSeed = 0x5049545f726f7773ULL;  // "PIT_rows"
inline constexpr int kPitBins = 1000;
// rows_chi_square keeps every row's law and counts: past these, it is skipped.
inline constexpr std::uint64_t kRowsChiSquareMaxWeights = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kRowsChiSquareMaxDraws = std::uint64_t{1} << 26;
// rows_chi_square simulates at most this many draws (a failing report's
// cost: a few seconds); it judges the first rows that fit (stats/row_laws.hpp).
inline constexpr double kRowsChiSquareWork = 5e7;
// rows_independent uses at most this many pairs of draws.
inline constexpr std::size_t kIndependencePairs = 100000;

class RowChecks {
 public:
  // weights: rows x cols (each a law); seeds: one a row, or empty.
  RowChecks(const std::vector<double>& weights, std::uint64_t rows, std::uint64_t cols, std::vector<std::uint64_t> seeds);
  ~RowChecks();
  // Draw e (numbered from 0 over the file) of row r is index x (in range, of
  // weight > 0: the file's checks report the others).
  void add(std::uint64_t e, std::uint64_t r, std::uint64_t x);
  // The checks this adds to a report (for the Bonferroni split): 4 where
  // some row holds 2 draws or more, else 3.
  int check_count();
  // Runs the checks at alpha_each, appends them and the rows' view.
  void finish(double alpha_each, const std::string& label, Report& report);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace warpsim::cli::validate
