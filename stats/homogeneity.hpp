// Do two samples of category counts come from one law? Pearson chi-square on
// the 2 x K table (what compares GPU draws with oracle draws directly).
// Categories empty in both samples are left out; categories whose smaller
// expected count is below `min_expected` are pooled into one (reported).
#pragma once

#include <span>

#include "stats/test_result.hpp"

namespace warpsim::stats {

TestResult chi_square_homogeneity(std::span<const double> counts1, std::span<const double> counts2, double alpha = 0.05,
                                  double min_expected = 5.0, double power = 0.9);

}  // namespace warpsim::stats
