#include "cli/weights.hpp"

#include <cmath>
#include <limits>
#include <random>

#include "cli/errors.hpp"
#include "cli/number_file.hpp"
#include "stats/input_checks.hpp"  // number_text

namespace warpsim::cli {

// W x K weights, lane after lane, as the fp32 values the views compute with.
// A weight must be finite, non-negative and survive the conversion to fp32:
// 1e39 would become inf, 1e-46 would become 0.
std::vector<std::vector<float>> read_weight_rows(const InputSource& inputs, const std::string& path, int w, int k) {
  const auto n = static_cast<std::size_t>(w) * static_cast<std::size_t>(k);
  const auto all = read_numbers(inputs, path, {.max_count = n});
  const std::string file = "weights file '" + printable(path, 200) + "'";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const double v = all[i];
    const std::string which = file + ": weight " + std::to_string(i) + " (" + stats::number_text(v) + ")";
    if (!std::isfinite(v) || v < 0) throw UsageError(which + " is not finite and non-negative");
    if (v > static_cast<double>(std::numeric_limits<float>::max())) {
      throw UsageError(which + " is larger than the largest fp32 value, 3.4028235e38: the views compute in fp32");
    }
    if (v > 0 && static_cast<float>(v) == 0.0f) {
      throw UsageError(which + " is positive but rounds to 0 in fp32 (the smallest positive fp32 value is 1.4e-45): the "
                               "views compute in fp32");
    }
  }
  if (all.size() != n) {
    throw UsageError(file + " holds " + std::to_string(all.size()) + " numbers; W x K = " + std::to_string(n) +
                     " are needed (lane r's K weights, lane after lane)");
  }
  std::vector<std::vector<float>> rows(static_cast<std::size_t>(w));
  for (int r = 0; r < w; ++r) {
    for (int i = 0; i < k; ++i) rows[static_cast<std::size_t>(r)].push_back(static_cast<float>(all[static_cast<std::size_t>(r * k + i)]));
  }
  return rows;
}

std::vector<std::vector<float>> generated_weight_rows(std::uint64_t seed, int w, int k) {
  std::mt19937 rng(static_cast<std::mt19937::result_type>(seed));
  std::vector<std::vector<float>> rows(static_cast<std::size_t>(w), std::vector<float>(static_cast<std::size_t>(k)));
  for (auto& row : rows)
    for (auto& x : row) x = static_cast<float>(rng() % 10);
  return rows;
}

}  // namespace warpsim::cli
