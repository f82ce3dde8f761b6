#include "stats/input_checks.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

namespace warpsim::stats {

std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

double check_counts(std::span<const double> observed, const char* what) {
  if (observed.empty()) throw std::invalid_argument(std::string(what) + ": empty");
  double total = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double c = observed[i];
    if (!std::isfinite(c) || c < 0 || c != std::floor(c)) {
      throw std::invalid_argument(std::string(what) + ": entry " + std::to_string(i) + " (" + number_text(c) +
                                  ") is not a non-negative whole number");
    }
    if (c > kMaxCount - total) {
      throw std::invalid_argument(std::string(what) + ": the total passes 2^53 = 9007199254740992 at entry " +
                                  std::to_string(i) + " (" + number_text(c) +
                                  "); counts and their total must lie in [0, 2^53], where every sum is exact");
    }
    total += c;
  }
  if (total <= 0) throw std::invalid_argument(std::string(what) + ": all zero");
  return total;
}

void check_pooled_total(double n1, double n2) {
  if (n1 > kMaxCount - n2) {
    throw std::invalid_argument("the two samples hold " + number_text(n1) + " + " + number_text(n2) +
                                " draws, more than 2^53 = 9007199254740992 together");
  }
}

void check_probabilities(std::span<const double> probabilities) {
  if (probabilities.empty()) throw std::invalid_argument("probabilities: empty");
  double total = 0;
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    const double p = probabilities[i];
    if (!std::isfinite(p) || p < 0) {
      throw std::invalid_argument("probabilities: entry " + std::to_string(i) + " (" + number_text(p) +
                                  ") is not finite and non-negative");
    }
    total += p;
  }
  if (!(std::abs(total - 1.0) <= 1e-9)) {
    throw std::invalid_argument("probabilities sum to " + number_text(total) + ", not 1 (normalise them explicitly)");
  }
}

long double checked_weights_total(std::span<const double> weights, const char* what) {
  long double total = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double w = weights[i];
    if (!std::isfinite(w) || w < 0) {
      throw std::invalid_argument(std::string(what) + ": entry " + std::to_string(i) + " (" + number_text(w) + ") is not finite and non-negative");
    }
    total += w;
  }
  if (!(total > 0)) throw std::invalid_argument(std::string(what) + ": they sum to 0");
  return total;
}

void check_alpha(double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("alpha must lie strictly between 0 and 1");
}

}  // namespace warpsim::stats
