// Validation shared by the tests: counts and probabilities must make sense,
// or the test refuses with a message that says what is wrong.
//
// The supported range of counts: every count and every sample's total is a
// whole number from 0 to 2^53 (kMaxCount). Counts arrive as doubles, and 2^53
// is where doubles stop holding every integer; within it every sum the tests
// form is exact. Outside it a test refuses (std::invalid_argument) instead of
// computing with a total that has silently wrapped or rounded.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace warpsim::stats {

inline constexpr double kMaxCount = 9007199254740992.0;  // 2^53

// Throws std::invalid_argument unless every count is finite, non-negative and
// whole, at least one is positive, and the total is at most kMaxCount.
// Returns the total (exact).
double check_counts(std::span<const double> observed, const char* what = "observed counts");

// Throws std::invalid_argument unless the two samples' totals together are at
// most kMaxCount (the two-sample tests count the pooled sample).
void check_pooled_total(double n1, double n2);

// Throws std::invalid_argument unless every probability is finite and
// non-negative and they sum to 1 within 1e-9 (normalising is the caller's
// explicit choice, never done here).
void check_probabilities(std::span<const double> probabilities);

// The sum, in long double, of weights that need not sum to 1; throws
// std::invalid_argument ("<what>: ...") unless every one is finite and
// non-negative and their sum is positive.
long double checked_weights_total(std::span<const double> weights, const char* what);

void check_alpha(double alpha);

// The shortest text that reads back as the same double ("1e+20", "0.1",
// "4.9e-324"), for messages: std::to_string prints 1e20 with 27 digits and a
// subnormal as 0.000000.
std::string number_text(double v);

}  // namespace warpsim::stats
