// Two-level testing of one law's draws (TestU01's idea, made exact for
// categories of any expected count).
//
// The draws are dealt into batches (draw e to batch e mod B); under the null
// the batches' counts are independent multinomials. First level: each batch's
// Pearson chi-square over a few cells of about equal probability (categories
// grouped in index order), its p-value randomised Monte Carlo
// (stats/monte_carlo.hpp), so exactly Uniform(0, 1) under the null however few
// draws a batch holds. Second level: those B p-values against the uniform law
// (p_value_uniformity, exact). What it sees that one chi-square of all the
// draws cannot: draws too regular (every batch too close to its expectation,
// p-values piled near 1) and draws whose law changes with e mod B.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "stats/test_result.hpp"

namespace warpsim::stats {

// Groups categories into at most `cells` runs of consecutive indices, each of
// probability at least about 1 / cells (a heavier category is a cell alone);
// categories of probability 0 join the run they fall in. Returns each
// category's cell.
std::vector<std::uint32_t> group_in_index_order(std::span<const double> probabilities, int cells);

struct TwoLevelOptions {
  double alpha = 0.05;
  int bins = 4;                     // second level: equal bins of [0, 1]
  double min_cell_expected = 5;     // the first level's cells: as many as keep a batch's expected count a cell above this (2 at least)
  std::uint64_t replicates = 199;   // simulated samples a batch
  std::optional<std::uint64_t> seed{};  // the randomisation's (default: from the counts, stats/monte_carlo.hpp)
};

struct TwoLevelResult {
  TestResult summary;                // the second level's test
  std::vector<double> batch_p_values;  // randomised, one a batch
  int cells = 0;                     // the first level's cells
  // Not run: every batch's counts are nearly fixed (below). summary.notes say why.
  bool nearly_fixed = false;
};

// The randomisation is seeded from the counts (stats/monte_carlo.hpp), so
// where the batches' counts are nearly fixed (10^3 draws of {1, 1e-6}: every
// batch 50 and 0) the second-level p-value is nearly one fixed number, and a
// correct sampler would fail every time or never. The test is therefore not
// run where the likeliest outcome of all the batches together may have
// probability above this (bounded by each batch's likeliest count of its
// least predictable cell): over samples the rate then stays within about
// sqrt(1e-6 alpha) of alpha's.
inline constexpr double kTwoLevelMostLikelyOutcome = 1e-6;

// `batch_counts`: batches x C counts (row-major) over C cells whose null
// probabilities are `cell_probabilities`. The cells are merged further (in
// order) where a batch expects fewer than `min_cell_expected` draws a cell.
TwoLevelResult two_level_test(std::span<const double> batch_counts, int batches, std::span<const double> cell_probabilities,
                              const TwoLevelOptions& options = {});

}  // namespace warpsim::stats
