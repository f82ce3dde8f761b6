// The verdict on values against a continuous law, as `warpsim validate
// --values` gives it: five tests, each at alpha / 5 (Bonferroni: the
// verdict's false-positive rate is at most alpha; less where a test does not
// run, below 50 values for the tails, 1,000 for the two-level test):
//   Kolmogorov-Smirnov   the largest gap in F; states the distance a pass rules out
//   Anderson-Darling     the gap weighted toward the tails
//   tails                each decade of each tail its own bin (stats/tail_test.hpp)
//   reach                each tail's region of mass ln(4 / alpha) / n not left empty
//   two_level            blocks of the stream, each its own law (stats/two_level_continuous.hpp)
// Each value stands for the reals that round to it (stats/stored.hpp), and a
// clamping sampler's clamped values for the mass beyond the clamp. The
// verdict also says which tail masses the draws are too few to show at all.
// tests/stats/continuous_calibration_test.cpp measures its false-positive
// rate over the laws, sizes and precisions users have.
//
// Usage:
//   auto v = stats::judge_continuous(values, stats::continuous_law("normal:0,1"), {.alpha = 1e-3});
//   if (v.reject()) ...
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "stats/continuous_law.hpp"
#include "stats/stored.hpp"
#include "stats/test_result.hpp"

namespace warpsim::stats {

struct ContinuousVerdictOptions {
  double alpha = 1e-3;
  Stored stored = Stored::Exact;
  Clamp clamp{};
};

struct ClampMass {
  double at = 0;            // the clamp
  std::uint64_t count = 0;  // the values at or beyond it
  double law_mass = 0;      // the law's mass at or beyond it (to the value's rounding interval's end)
};

struct ContinuousVerdict {
  double alpha_each = 0;  // each test's level
  TestResult ks, ad;
  std::optional<TestResult> tails;  // nullopt below 50 values
  std::optional<TestResult> reach;  // nullopt while its region would be a quarter of the law
  std::optional<TestResult> two_level;  // nullopt below 1,000 values
  // What the draws can show of the tails: `reach_tail` = ln(4 / alpha_each) / n,
  // and where each tail of that mass begins: a sampler that never draws
  // below lower_edge (or above upper_edge) fails the reach test with
  // certainty. `invisible_tail` = ln(1 / alpha_each) / n: a tail of less than
  // that mass holds no draw, with probability above alpha_each, from a correct
  // sampler too, so no test of n draws can show it missing. nullopt where the
  // reach test does not run.
  std::optional<double> reach_tail, invisible_tail, lower_edge, upper_edge;
  std::optional<ClampMass> clamped_below, clamped_above;
  bool reject() const { return ks.reject || ad.reject || (tails && tails->reject) || (reach && reach->reject) || (two_level && two_level->reject); }
};

/// `values` in the order the sampler wrote them (the two-level test's
/// blocks); finite (std::invalid_argument otherwise).
ContinuousVerdict judge_continuous(std::span<const double> values, const ContinuousLaw& law, const ContinuousVerdictOptions& options = {});

}  // namespace warpsim::stats
