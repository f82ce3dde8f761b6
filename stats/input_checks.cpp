#include "stats/input_checks.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace warpsim::stats {

void check_counts(std::span<const double> observed, const char* what) {
  if (observed.empty()) throw std::invalid_argument(std::string(what) + ": empty");
  double total = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double c = observed[i];
    if (!std::isfinite(c) || c < 0 || c != std::floor(c)) {
      throw std::invalid_argument(std::string(what) + ": entry " + std::to_string(i) + " (" + std::to_string(c) +
                                  ") is not a non-negative whole number");
    }
    total += c;
  }
  if (total <= 0) throw std::invalid_argument(std::string(what) + ": all zero");
}

void check_probabilities(std::span<const double> probabilities) {
  if (probabilities.empty()) throw std::invalid_argument("probabilities: empty");
  double total = 0;
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    const double p = probabilities[i];
    if (!std::isfinite(p) || p < 0) {
      throw std::invalid_argument("probabilities: entry " + std::to_string(i) + " (" + std::to_string(p) +
                                  ") is not finite and non-negative");
    }
    total += p;
  }
  if (std::abs(total - 1.0) > 1e-9) {
    throw std::invalid_argument("probabilities sum to " + std::to_string(total) + ", not 1 (normalise them explicitly)");
  }
}

void check_alpha(double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("alpha must lie strictly between 0 and 1");
}

}  // namespace warpsim::stats
