#include "stats/continuous_verdict.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <algorithm>
#include <limits>
#include <optional>
#include <vector>
#include <functional>

#include "stats/ad_continuous.hpp"
#include "stats/ks_continuous.hpp"
#include "stats/tail_test.hpp"
#include "stats/two_level_continuous.hpp"

namespace warpsim::stats {

ContinuousVerdict judge_continuous(std::span<const double> values, const ContinuousLaw& law, const ContinuousVerdictOptions& o) {
  std::span<const double> x = values;
  if (x.empty()) throw std::invalid_argument("judge_continuous: no values");
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i])) throw std::invalid_argument("judge_continuous: value " + std::to_string(i) + " is not finite");
  ContinuousVerdict v;
  v.alpha_each = o.alpha / 5;
  // The tests take F and S at the same points, each value's interval
  // ends, in increasing order: each computed once (Boost's gamma CDF is a
  // microsecond a call), found from where the last lookup ended.
  std::vector<double> sorted(x.begin(), x.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> points;
  points.reserve(2 * sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i && sorted[i] == sorted[i - 1]) continue;
    const auto [lo, hi] = stored_interval(sorted[i], o.stored);
    points.push_back(lo);
    points.push_back(hi);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  const double unknown = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> f_at(points.size(), unknown), s_at(points.size(), unknown);
  std::size_t cursor = 0;
  const auto find = [&](double t) -> std::optional<std::size_t> {
    for (int step = 0; step < 4 && cursor < points.size() && points[cursor] < t; ++step) ++cursor;
    if (cursor >= points.size() || points[cursor] != t) {
      cursor = static_cast<std::size_t>(std::lower_bound(points.begin(), points.end(), t) - points.begin());
      if (cursor >= points.size() || points[cursor] != t) return std::nullopt;
    }
    return cursor;
  };
  const std::function<double(double)> cdf = [&](double t) {
    const auto i = find(t);
    if (!i) return law.cdf(t);
    if (std::isnan(f_at[*i])) f_at[*i] = law.cdf(t);
    return f_at[*i];
  };
  const std::function<double(double)> sf = [&](double t) {
    const auto i = find(t);
    if (!i) return law.sf(t);
    if (std::isnan(s_at[*i])) s_at[*i] = law.sf(t);
    return s_at[*i];
  };
  x = sorted;
  v.ks = ks_continuous_test(x, cdf, {.alpha = v.alpha_each, .stored = o.stored, .clamp = o.clamp});
  v.ad = ad_continuous_test(x, cdf, sf, {.alpha = v.alpha_each, .stored = o.stored, .clamp = o.clamp});
  v.tails = tail_test(x, cdf, sf, {.alpha = v.alpha_each, .stored = o.stored, .clamp = o.clamp});
  v.reach = reach_test(x, cdf, sf, {.alpha = v.alpha_each, .stored = o.stored, .clamp = o.clamp});
  v.two_level = two_level_continuous_test(values, cdf, {.alpha = v.alpha_each, .stored = o.stored, .clamp = o.clamp});
  if (v.reach) {
    v.reach_tail = reach_mass(x.size(), v.alpha_each);
    v.invisible_tail = smallest_visible_tail(x.size(), v.alpha_each);
    v.lower_edge = lower_quantile(law, *v.reach_tail);
    v.upper_edge = upper_quantile(law, *v.reach_tail);
  }
  if (o.clamp.below > -INFINITY) {
    ClampMass c{o.clamp.below, 0, 0};
    for (double y : x) c.count += y <= o.clamp.below;
    c.law_mass = law.cdf(stored_interval(o.clamp.below, o.stored).second);
    v.clamped_below = c;
  }
  if (o.clamp.above < INFINITY) {
    ClampMass c{o.clamp.above, 0, 0};
    for (double y : x) c.count += y >= o.clamp.above;
    c.law_mass = law.sf(stored_interval(o.clamp.above, o.stored).first);
    v.clamped_above = c;
  }
  return v;
}

}  // namespace warpsim::stats
