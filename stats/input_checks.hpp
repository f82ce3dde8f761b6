// Validation shared by the tests: counts and probabilities must make sense,
// or the test refuses with a message that says what is wrong.
#pragma once

#include <span>

namespace warpsim::stats {

// Throws std::invalid_argument unless every count is finite, non-negative and
// whole, and at least one is positive.
void check_counts(std::span<const double> observed, const char* what = "observed counts");

// Throws std::invalid_argument unless every probability is finite and
// non-negative and they sum to 1 within 1e-9 (normalising is the caller's
// explicit choice, never done here).
void check_probabilities(std::span<const double> probabilities);

void check_alpha(double alpha);

}  // namespace warpsim::stats
