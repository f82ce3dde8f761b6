// The calibration harness: how often the law checks of `warpsim validate`
// (and the tests of stats/ used directly) reject a correct sampler, across
// the laws and sample sizes users have (docs/validate.md, "Calibration").
//
// A correct sampler's counts are simulated, not drawn: the two-level
// batches' cell counts as 20 multinomials, then each cell's count spread over
// its categories as a multinomial (the same joint law as dealing draws one by
// one), so 10^8 draws cost what 10^2 do. Each cell of the grid (a law, K, n)
// runs a fixed number of times; each check's rejections are counted at levels
// 0.05 and 0.01, and the whole report's at alpha 0.05 and 0.01 (each check at
// alpha / m). A count is flagged when a correct check would pass it with
// probability below 0.001 / (the tallies of the grid): the bound, with the
// power to see a doubled rate stated beside it.
//
// Rows that differ (run_rows_cell, cli/validate/calibration_rows.cpp): draws
// simulated row by row and fed to the per-row checks as a file's are.
//
// The per-category binomial and KS checks are decided from tables made once
// a cell (stats::binomial_acceptance; the KS p-value's critical D), exactly
// as their functions would decide (tests/cli/calibration_test.cpp holds them
// equal), because calling them on 2^16 categories a run would take hours.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace warpsim::cli::validate::calibration {

// One law (rows = 1) or `rows` laws that differ, as probabilities.
struct GridLaw {
  std::string family;
  std::uint64_t k = 0;
  std::vector<std::vector<double>> rows;
};

// uniform, power (w_i = 1 / (i + 1)), one-heavy (one category of 0.99),
// tiny-1e-3 ... tiny-1e-12 (every other category that much lighter),
// rows-differ (each row a power law of its own exponent, rotated).
const std::vector<std::string>& families();
GridLaw make_law(const std::string& family, std::uint64_t k, int rows = 1);

struct Cell {
  std::string family;
  std::uint64_t k = 0;
  std::uint64_t n = 0;  // draws in all (rows-differ: n / rows a row)
  int rows = 1;
};

std::vector<Cell> small_grid();  // CI's slice: seconds
std::vector<Cell> full_grid();   // scripts/calibration.sh

inline constexpr double kLevels[2] = {0.05, 0.01};

struct Tally {
  std::string check;  // "chi_square", ..., "report" (validate); "chi-square", "g-test", ... (stats)
  std::uint64_t ran = 0;               // runs where the check ran (not skipped)
  std::uint64_t rejected[2] = {0, 0};  // at kLevels
};

// Both subjects from the same simulated samples: validate's checks and
// report (at --alpha 0.001's split, as a file gets them), and stats' tests
// with their defaults.
struct CellResult {
  Cell cell;
  std::uint64_t runs = 0;
  std::vector<Tally> validate;  // chi_square, per_category_binomial, ks_discrete, two_level, report
  std::vector<Tally> stats;     // chi-square, g-test, binomial, ks-discrete, two-level
  double seconds = 0;
};

struct RunOptions {
  std::uint64_t runs = 1000;
  std::uint64_t seed = 1;
  int threads = 1;
  bool decide_by_tables = true;  // false: call every check's function every run
  // The KS table's exact p-values stop at this much work (the test's own
  // limit: each step of its bisection costs what a run would); less makes
  // the table cheaper and sends more runs to the test.
  double ks_table_work = 2e8;
  std::function<void(std::uint64_t runs_done)> progress{};
};

CellResult run_cell(const Cell& cell, const RunOptions& options);

// The most rejections of `runs` at `level` a correct check shows but with
// probability at most `tail` (the binomial's upper tail).
std::uint64_t rejection_bound(std::uint64_t runs, double level, double tail);
// The probability that a check rejecting at twice `level` passes that bound.
double power_against_doubled(std::uint64_t runs, double level, std::uint64_t bound);

// The exact probability of a rejection at `level` (0.001), summed over every
// outcome of n draws from a law of 2 or 3 categories: the checks'
// p-values, and the chi-square limit's for comparison. The Monte Carlo
// chi-square's twice: averaged over its simulation (what its validity is
// about, exactly), and with the seeds it takes from the counts (one draw of
// that average: it scatters around it).
struct ExactTail {
  std::string law;
  std::uint64_t n = 0;
  std::string check;
  double level = 0;
  double rejection = 0;
};
// `most_outcomes`: only the sizes with at most this many outcomes (CI's slice: 1,000).
std::vector<ExactTail> exact_tails(double level = 0.001, std::uint64_t most_outcomes = UINT64_MAX);

// Rows that differ, judged draw by draw (cli/validate/rows.hpp), beside the
// summed-law checks: M rows of K categories, S draws a row. Laws: "logits",
// the softmax of N(0, 2^2) logits at a temperature of the row's own (1/4 to
// 4, log-uniform); "tiny", the same with every fourth logit at -30 first. A
// correct sampler (fault "none") or a fault: "shifted" (row r drawn from row
// r + 1's law), "swapped" (rows 2i and 2i + 1 trade laws), "temperature"
// (the temperature ignored), "seed" (rows 2i and 2i + 1 drawn with one
// uniform). Draws are simulated (inverse CDF) and fed to the checks as a
// file's are; the report runs at alpha 0.001, as a user gets it.
struct RowsCell {
  std::string family;
  std::uint64_t m = 0, k = 0, s = 1;
  std::string fault = "none";
  std::uint64_t most_runs = 0;  // where a run costs seconds: at most this many (0: as asked)
};
std::vector<RowsCell> rows_small_grid();
std::vector<RowsCell> rows_full_grid();   // correct samplers: M = 10..10^6, K = 2..10^5, S = 1 and 4
std::vector<RowsCell> rows_power_grid();  // the faults

struct RowsResult {
  RowsCell cell;
  std::uint64_t runs = 0;
  // pit_heaviest, pit_index, rows_independent, rows_chi_square, chi_square,
  // per_category_binomial, ks_discrete: rejections at kLevels; then
  // "report": at alpha 0.05 and 0.001 (its default)
  std::vector<Tally> tallies;
  double seconds = 0;
};
RowsResult run_rows_cell(const RowsCell& cell, const RunOptions& options);

// Values of continuous laws (cli/validate/calibration_values.cpp), judged by
// stats::judge_continuous as `validate --values` judges a file. A correct
// sampler's values are drawn, not simulated: the law's own quantile at 53-bit
// uniforms, each tail from its own side (a fair bit picks F^-1(w / 2) or
// S^-1(w / 2)), then rounded to the stored precision and, where the cell
// says so, clamped as a clamping sampler does and judged with the clamp. A
// fault is a wrong sampler instead, to measure power:
//   cut-3.5        a normal with nothing past 3.5 sigma (a table's or a
//                  ziggurat's end)
//   drift          blocks of n / 100 values shifted by +-0.05 sigma in turn
//   bf16-grid      uniforms on multiples of 2^-7 (JAX's bf16 uniform), judged
//                  as the uniform rounded to bf16
//   clamp-unnamed  the clamping sampler's values judged without the clamp
//   gamma/NAME     a seeded bug of properties/value_mutants.hpp (float64)
struct ValuesCell {
  std::string law;               // a stats::continuous_law spec
  std::uint64_t n = 0;
  std::string stored = "f64";    // f64, f32, bf16, f16
  std::string clamp;             // "", "min-normal" (low) or "high:VALUE"
  std::string fault = "none";
  std::uint64_t most_runs = 0;   // where a run costs seconds: at most this many (0: as asked)
};
std::vector<ValuesCell> values_small_grid();  // CI's slice: seconds
std::vector<ValuesCell> values_full_grid();   // every law, n = 10..10^6, four precisions, the clamps
std::vector<ValuesCell> values_power_grid();  // the faults

struct ValuesResult {
  ValuesCell cell;
  std::uint64_t runs = 0;
  // kolmogorov_smirnov, anderson_darling, tails, reach, two_level: each
  // test's own p-value at kLevels; then "report": the verdict at alpha 0.05
  // and 0.001 (its default), each test at a fifth
  std::vector<Tally> tallies;
  double seconds = 0;
};
ValuesResult run_values_cell(const ValuesCell& cell, const RunOptions& options);

}  // namespace warpsim::cli::validate::calibration
