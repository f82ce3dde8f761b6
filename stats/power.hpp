// Power of chi-square-family tests through the noncentral chi-square
// distribution (Boost.Math), and what that lets a pass rule out.
//
// Under an alternative q against null p (K categories, n draws) the Pearson
// and G statistics are asymptotically noncentral chi-square with
// lambda = n * sum (q_i - p_i)^2 / p_i. By Cauchy-Schwarz,
// (sum |q_i - p_i|)^2 <= sum (q_i - p_i)^2 / p_i, so an alternative at
// total-variation distance delta has lambda >= 4 n delta^2: every alternative
// with delta >= sqrt(lambda_power / (4 n)) is detected with at least that
// power. A relative error e in category i alone (the rest scaled to
// compensate) has lambda = n e^2 p_i / (1 - p_i).
#pragma once

#include <span>
#include <string>

#include "stats/test_result.hpp"

namespace warpsim::stats {

// P(chi-square(df) >= s): 0 for an infinite statistic; a NaN statistic is a
// bug in the caller (std::logic_error), never a p-value.
double chi_square_p_value(double df, double s);

// Critical value of chi-square(df) at level alpha.
double chi_square_critical(double df, double alpha);

// Power of a level-alpha chi-square test with df degrees of freedom when the
// statistic is noncentral chi-square(df, lambda).
double chi_square_power(double df, double alpha, double lambda);

// The lambda at which that power is reached.
double noncentrality_for_power(double df, double alpha, double power);

// Detectable biases for a test over categories with these probabilities
// (after pooling), n draws, df degrees of freedom.
DetectableBias chi_square_detectable(std::span<const double> probabilities, double n, double df, double alpha,
                                     double power = 0.9);

// Draws needed so that every alternative at total-variation distance >= tv is
// detected with the given power. A double: for small tv it passes every
// integer type (1e-10 needs about 10^21 draws). Needs alpha < power.
double sample_size_for_total_variation(double df, double alpha, double power, double tv);

// Why a power statement says nothing when alpha >= power (the test rejects
// everything with probability >= alpha already).
std::string power_vacuous_note(double alpha, double power);

}  // namespace warpsim::stats
