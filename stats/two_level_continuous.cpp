#include "stats/two_level_continuous.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "stats/ad_continuous.hpp"
#include "stats/monte_carlo.hpp"

namespace warpsim::stats {

int two_level_blocks(std::size_t n) {
  if (n < 1000) return 0;
  return static_cast<int>(std::clamp<std::size_t>(n / 1000, 10, 100));
}

std::optional<TestResult> two_level_continuous_test(std::span<const double> values, const std::function<double(double)>& cdf,
                                                    const TwoLevelContinuousOptions& o) {
  if (!(o.alpha > 0 && o.alpha < 1)) throw std::invalid_argument("two_level_continuous_test: alpha must lie in (0, 1)");
  const int blocks = two_level_blocks(values.size());
  if (blocks == 0) return std::nullopt;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::isnan(values[i])) throw std::invalid_argument("two_level_continuous_test: value " + std::to_string(i) + " is not a number");
  std::mt19937_64 gen(o.seed.value_or(seed_from_counts(values, 0x2c0a7)));
  std::uniform_real_distribution<double> across(0.0, 1.0);
  // The randomised PIT of each value, in stream order.
  std::vector<double> u(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto a = law_across(values[i], o.stored, o.clamp, cdf, std::function<double(double)>{});
    u[i] = a.f_lo + (a.f_hi - a.f_lo) * across(gen);
  }
  const std::function<double(double)> uniform_cdf = [](double t) { return std::clamp(t, 0.0, 1.0); };
  const std::function<double(double)> uniform_sf = [](double t) { return std::clamp(1 - t, 0.0, 1.0); };
  std::vector<double> p(static_cast<std::size_t>(blocks));
  const std::size_t n = values.size();
  for (int b = 0; b < blocks; ++b) {
    const std::size_t first = n * static_cast<std::size_t>(b) / static_cast<std::size_t>(blocks);
    const std::size_t last = n * static_cast<std::size_t>(b + 1) / static_cast<std::size_t>(blocks);
    p[static_cast<std::size_t>(b)] = ad_continuous_test(std::span<const double>(u).subspan(first, last - first), uniform_cdf, uniform_sf).p_value;
  }
  TestResult r = ad_continuous_test(p, uniform_cdf, uniform_sf, {.alpha = o.alpha});
  r.test = "two-level: Anderson-Darling of the blocks' Anderson-Darling p-values";
  r.p_value_method = "Marsaglia & Marsaglia (2004) at both levels, of randomised PITs";
  r.sample_size = values.size();
  const double smallest = *std::min_element(p.begin(), p.end());
  const std::size_t at = static_cast<std::size_t>(std::min_element(p.begin(), p.end()) - p.begin());
  std::ostringstream note;
  note << blocks << " blocks of about " << n / static_cast<std::size_t>(blocks) << " values in stream order; the smallest block p-value " << smallest
       << " (block " << at << ", values " << n * at / static_cast<std::size_t>(blocks) << " on)";
  r.notes.insert(r.notes.begin(), note.str());
  r.detectable.basis = "no closed form: its power against a law that changes along the stream is measured (tests/stats/tail_test_test.cpp)";
  return r;
}

}  // namespace warpsim::stats
