// The calibration harness (cli/validate/calibration.hpp), CI's slice: the
// small grid's correct samplers are rejected at most at the stated rates, the
// harness's tables decide as the checks' own functions do, and the exact
// rejection probabilities at 0.001 hold for the checks (and not for the
// chi-square limit, which validate used before: the harness can fail).
#include <gtest/gtest.h>

#include <iostream>

#include "cli/validate/calibration.hpp"

using namespace warpsim::cli::validate::calibration;

TEST(Calibration, SmallGridRejectsCorrectSamplersAtMostAtTheLevel) {
  const auto grid = small_grid();
  constexpr std::uint64_t kRuns = 200;
  // every tally of the grid at once: 10 a cell, 2 levels
  const double tail = 0.001 / static_cast<double>(grid.size() * 10 * 2);
  int tallies = 0;
  for (const auto& cell : grid) {
    // the KS table at a tenth of the test's work: the sanitizers' Debug build
    // spent 100 s bisecting 10^8 draws of 16 categories at the full limit
    const auto r = run_cell(cell, {.runs = kRuns, .seed = 7, .threads = 2, .ks_table_work = 2e7});
    for (const auto* subject : {&r.validate, &r.stats}) {
      for (const auto& t : *subject) {
        if (t.ran == 0) continue;
        ++tallies;
        for (int l = 0; l < 2; ++l) {
          EXPECT_LE(t.rejected[l], rejection_bound(t.ran, kLevels[l], tail))
              << cell.family << " K=" << cell.k << " n=" << cell.n << ": " << t.check << " rejected " << t.rejected[l] << " of " << t.ran << " at " << kLevels[l];
        }
      }
    }
    for (const auto& t : r.validate) {
      if (t.check == "report") std::cout << cell.family << " K=" << cell.k << " n=" << cell.n << ": report rejected " << t.rejected[0] << " of " << t.ran << " at 0.05\n";
    }
  }
  EXPECT_GT(tallies, 70) << "the checks must run, not be skipped";
}

TEST(Calibration, TablesDecideAsTheChecksDo) {
  for (const Cell& cell : std::vector<Cell>{{"power", 64, 200}, {"one-heavy", 16, 50}, {"tiny-1e-3", 2, 10000}, {"uniform", 8, 100000}}) {
    RunOptions o{.runs = 60, .seed = 3, .threads = 2};
    const auto tables = run_cell(cell, o);
    o.decide_by_tables = false;
    const auto direct = run_cell(cell, o);
    ASSERT_EQ(tables.validate.size(), direct.validate.size());
    for (std::size_t c = 0; c < tables.validate.size(); ++c) {
      for (int l = 0; l < 2; ++l) {
        EXPECT_EQ(tables.validate[c].rejected[l], direct.validate[c].rejected[l]) << cell.family << " " << tables.validate[c].check;
        EXPECT_EQ(tables.stats[c].rejected[l], direct.stats[c].rejected[l]) << cell.family << " " << tables.stats[c].check;
      }
    }
  }
}

TEST(Calibration, ExactTailsHoldAtTheLevelWhereTheLimitDoesNot) {
  double worst_limit = 0;
  for (const auto& t : exact_tails(0.001, 1000)) {
    if (t.check == "chi-square limit") {
      worst_limit = std::max(worst_limit, t.rejection);
    } else if (t.check != "chi_square, its seeds") {
      EXPECT_LE(t.rejection, t.level) << t.law << " n=" << t.n << ": " << t.check;
    }
  }
  // {0.1, 0.9} with 100 draws: the limit rejects twice as often as it says
  EXPECT_GT(worst_limit, 1.5 * 0.001);
}

TEST(Calibration, TheBoundSeesADoubledRate) {
  // 1,000 runs at 0.05 (the full grid's): a doubled rate passes the bound
  // shared by 5,400 tallies with probability 0.89.
  const auto b = rejection_bound(1000, 0.05, 0.001 / 5400);
  EXPECT_GT(power_against_doubled(1000, 0.05, b), 0.85) << b;
  EXPECT_LT(b, 100u);
}

TEST(Calibration, RowsThatDifferRejectCorrectSamplersAtMostAtTheLevel) {
  // The per-row checks and the summed ones, on correct draws of rows that
  // differ (cli/validate/calibration.hpp): CI's slice of `--rows full`.
  const auto grid = rows_small_grid();
  const double tail = 0.001 / static_cast<double>(grid.size() * 11 * 2);
  for (const auto& cell : grid) {
    const auto r = run_rows_cell(cell, {.runs = 150, .seed = 9, .threads = 2});
    for (const auto& t : r.tallies) {
      if (t.ran == 0) continue;
      const double second = t.check == "report" || t.check == "score_normal" ? 0.001 : kLevels[1];
      EXPECT_LE(t.rejected[0], rejection_bound(t.ran, kLevels[0], tail)) << cell.family << " M=" << cell.m << " K=" << cell.k << ": " << t.check;
      EXPECT_LE(t.rejected[1], rejection_bound(t.ran, second, tail)) << cell.family << " M=" << cell.m << " K=" << cell.k << ": " << t.check;
    }
  }
}

// Values of continuous laws (ValuesCell): CI's slice of `--values full`, each
// of the five tests and the report at most at the stated rates; and the
// faults of `--values power` are what the harness says they are (the
// report sees a law that drifts along the stream at 10^5 values).
TEST(Calibration, ValuesSmallGridRejectsCorrectSamplersAtMostAtTheLevel) {
  const auto grid = values_small_grid();
  constexpr std::uint64_t kRuns = 200;
  const double tail = 0.001 / static_cast<double>(grid.size() * 6 * 2);
  int tallies = 0;
  for (const auto& cell : grid) {
    const auto r = run_values_cell(cell, {.runs = kRuns, .seed = 7, .threads = 2});
    for (const auto& t : r.tallies) {
      if (t.ran == 0) continue;
      ++tallies;
      const bool report = t.check == "report";
      EXPECT_LE(t.rejected[0], rejection_bound(t.ran, 0.05, tail)) << cell.law << " n=" << cell.n << " " << cell.stored << ": " << t.check;
      EXPECT_LE(t.rejected[1], rejection_bound(t.ran, report ? 0.001 : 0.01, tail)) << cell.law << " n=" << cell.n << " " << cell.stored << ": " << t.check;
    }
  }
  EXPECT_GE(tallies, 35) << "the tests must run, not be skipped";
}

TEST(Calibration, ValuesFaultsFail) {
  const auto drift = run_values_cell({"normal:0,1", 100000, "f64", "", "drift", 0}, {.runs = 4, .seed = 7, .threads = 2});
  const auto unnamed = run_values_cell({"gamma:0.01,1", 10000, "f32", "min-normal", "clamp-unnamed", 0}, {.runs = 4, .seed = 7, .threads = 2});
  EXPECT_EQ(drift.tallies.back().rejected[1], 4u) << "the report at 0.001";
  EXPECT_EQ(unnamed.tallies.back().rejected[1], 4u);
}
