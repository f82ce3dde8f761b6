// The calibration harness for values of continuous laws
// (cli/validate/calibration.hpp, ValuesCell).
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "cli/validate/calibration.hpp"
#include "cli/validate/calibration_detail.hpp"
#include "properties/value_mutants.hpp"
#include "stats/continuous_law.hpp"
#include "stats/continuous_verdict.hpp"
#include "stats/stored.hpp"
#include "stats/tail_test.hpp"

namespace warpsim::cli::validate::calibration {

using detail::hash_text;
using detail::mix;

namespace {

stats::Stored stored_of(const std::string& s) {
  if (s == "f64") return stats::Stored::Float64;
  if (s == "f32") return stats::Stored::Float32;
  if (s == "bf16") return stats::Stored::BFloat16;
  if (s == "f16") return stats::Stored::Float16;
  throw std::invalid_argument("calibration: no stored precision '" + s + "'");
}

// A 53-bit uniform in (0, 1).
double open_uniform(std::mt19937_64& gen) { return (static_cast<double>(gen() >> 11) + 0.5) * 0x1p-53; }

// One run's values, in stream order, and the clamp they are judged with.
std::vector<double> draw_values(const ValuesCell& c, const stats::ContinuousLaw& law, stats::Stored stored, stats::Clamp& judged_clamp,
                                std::uint64_t seed) {
  std::vector<double> x(static_cast<std::size_t>(c.n));
  if (c.fault.rfind("gamma/", 0) == 0) {
    for (const auto& m : properties::value_mutants()) {
      if (m.name != c.fault) continue;
      x = m.sampler.draw(law.parameters, c.n, seed, 0);
      for (auto& v : x) v = stats::round_to(v, stored);
      return x;
    }
    throw std::invalid_argument("calibration: no seeded bug '" + c.fault + "'");
  }
  std::mt19937_64 gen(seed);
  stats::ContinuousLaw bare = law;
  bare.quantile = nullptr;  // lower_quantile then bisects
  const double cut = c.fault == "cut-3.5" ? law.cdf(law.parameters[0] - 3.5 * law.parameters[1]) : 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double v;
    if (c.fault == "bf16-grid") {
      v = std::floor(open_uniform(gen) * 128) / 128;  // multiples of 2^-7 in [0, 1)
    } else {
      do {
        const double w = open_uniform(gen) / 2;
        v = gen() & 1 ? law.quantile(w) : law.upper_tail_quantile(w);
        // Boost's quantiles give 0 for a draw below the least normal double
        // (gamma of shape 0.01: 8.3e-4 of them); a correct float64 sampler
        // gives the subnormal it rounds to: found by bisection on the CDF
        if (v >= 0 && v < 0x1p-1022 && law.lower == 0 && law.cdf(0x1p-1022) > 0) v = stats::lower_quantile(bare, w);
        // cut-3.5: redrawn while in either tail of mass `cut`
      } while (cut > 0 && (law.cdf(v) < cut || law.sf(v) < cut));
    }
    if (c.fault == "drift") v += ((i / std::max<std::size_t>(1, x.size() / 100)) % 2 ? 0.05 : -0.05) * law.parameters[1];
    x[i] = stats::round_to(v, stored);
  }
  stats::Clamp clamp;
  if (c.clamp == "min-normal") {
    clamp.below = std::ldexp(1.0, stats::format_of(stored).emin);
  } else if (c.clamp.rfind("high:", 0) == 0) {
    clamp.above = std::stod(c.clamp.substr(5));
  } else if (!c.clamp.empty()) {
    throw std::invalid_argument("calibration: no clamp '" + c.clamp + "'");
  }
  for (auto& v : x) v = std::min(std::max(v, clamp.below), clamp.above);
  judged_clamp = c.fault == "clamp-unnamed" ? stats::Clamp{} : clamp;
  return x;
}

}  // namespace

std::vector<ValuesCell> values_small_grid() {
  // Each regime once, at sizes that run in seconds: few values, the tails'
  // decades and the two-level blocks, 16-bit ties, both clamps, a table.
  return {{"normal:1.5,2", 10, "f64", "", "none", 0},
          {"gamma:0.3,1", 300, "bf16", "", "none", 0},
          {"beta:0.5,0.5", 2000, "f32", "", "none", 0},
          {"exponential:3", 5000, "f16", "", "none", 0},
          {"gamma:0.01,1", 2000, "f32", "min-normal", "none", 0},
          {"beta:0.5,0.5", 3000, "f32", "high:0.99999988079071044921875", "none", 0},
          {"truncated-normal:0,1,-1,2", 1000, "f64", "", "none", 0}};
}

std::vector<ValuesCell> values_full_grid() {
  std::vector<ValuesCell> g;
  const char* laws[] = {"uniform:0,1", "normal:1.5,2", "exponential:3", "gamma:0.01,1", "gamma:0.3,1", "gamma:5,0.5",
                        "beta:0.5,0.5", "beta:3,0.7", "truncated-normal:0,1,-1,2", "truncated-normal:0,1,3,9"};
  const std::uint64_t ns[] = {10, 100, 1000, 10000, 100000, 1000000};
  for (const char* law : laws)
    for (const std::uint64_t n : ns)
      for (const char* stored : {"f64", "f32", "bf16", "f16"}) g.push_back({law, n, stored, "", "none", n >= 1000000 ? 100u : 0u});
  for (const std::uint64_t n : ns) {
    g.push_back({"gamma:0.01,1", n, "f32", "min-normal", "none", n >= 1000000 ? 100u : 0u});
    g.push_back({"beta:0.5,0.5", n, "f32", "high:0.99999988079071044921875", "none", n >= 1000000 ? 100u : 0u});
  }
  return g;
}

std::vector<ValuesCell> values_power_grid() {
  std::vector<ValuesCell> g;
  for (const std::uint64_t n : {10000u, 100000u, 1000000u}) {
    g.push_back({"normal:0,1", n, "f64", "", "cut-3.5", 0});
    g.push_back({"normal:0,1", n, "f64", "", "drift", 0});
    g.push_back({"uniform:0,1", n, "bf16", "", "bf16-grid", 0});
    g.push_back({"gamma:0.01,1", n, "f32", "min-normal", "clamp-unnamed", 0});
    g.push_back({"gamma:0.5,1", n, "f64", "", "gamma/squeeze-x2", 0});
    g.push_back({"gamma:0.5,1", n, "f64", "", "gamma/boost-forgotten", 0});
  }
  return g;
}

ValuesResult run_values_cell(const ValuesCell& c, const RunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto law = stats::continuous_law(c.law);
  if (!law.quantile || !law.upper_tail_quantile) throw std::invalid_argument("calibration: law '" + c.law + "' has no quantile");
  const stats::Stored stored = stored_of(c.stored);
  const std::uint64_t runs = c.most_runs ? std::min(o.runs, c.most_runs) : o.runs;
  const char* names[] = {"kolmogorov_smirnov", "anderson_darling", "tails", "reach", "two_level", "report"};
  constexpr int kTests = 5;
  std::mutex lock;
  ValuesResult r{c, runs, {}, 0};
  for (const char* name : names) r.tallies.push_back({name, 0, {0, 0}});
  std::atomic<std::uint64_t> next{0}, done{0};
  const std::uint64_t cell_seed = mix(o.seed, hash_text(c.law + "|" + std::to_string(c.n) + "|" + c.stored + "|" + c.clamp + "|" + c.fault));
  std::vector<Tally> zero;
  for (const char* name : names) zero.push_back({name, 0, {0, 0}});
  const auto work = [&] {
    std::vector<Tally> mine = zero;  // (not r.tallies: another thread may have merged into it)
    for (std::uint64_t run; (run = next++) < runs;) {
      stats::Clamp clamp;
      const auto x = draw_values(c, law, stored, clamp, mix(cell_seed, run));
      const auto v = stats::judge_continuous(x, law, {.alpha = 0.05, .stored = stored, .clamp = clamp});
      const std::optional<stats::TestResult> tests[kTests] = {v.ks, v.ad, v.tails, v.reach, v.two_level};
      bool any[2] = {false, false};
      for (int t = 0; t < kTests; ++t) {
        if (!tests[t]) continue;
        ++mine[static_cast<std::size_t>(t)].ran;
        for (int l = 0; l < 2; ++l) mine[static_cast<std::size_t>(t)].rejected[l] += tests[t]->p_value < kLevels[l];
        any[0] = any[0] || tests[t]->p_value < 0.05 / kTests;
        any[1] = any[1] || tests[t]->p_value < 0.001 / kTests;
      }
      // The report at 0.001 sizes its reach region for 0.001 / 5, not 0.05 / 5:
      // that test again at its own level (the others' p-values do not
      // depend on alpha).
      if (v.reach && !any[1]) {
        const auto at_default = stats::reach_test(x, law.cdf, law.sf, {.alpha = 0.001 / kTests, .stored = stored, .clamp = clamp});
        any[1] = at_default && at_default->reject;
      }
      ++mine[kTests].ran;
      mine[kTests].rejected[0] += any[0];
      mine[kTests].rejected[1] += any[1];
      const auto d = ++done;
      if (o.progress && (d % 16 == 0 || d == runs)) {
        std::lock_guard<std::mutex> g(lock);
        o.progress(d);
      }
    }
    std::lock_guard<std::mutex> g(lock);
    for (std::size_t t = 0; t < mine.size(); ++t) {
      r.tallies[t].ran += mine[t].ran;
      for (int l = 0; l < 2; ++l) r.tallies[t].rejected[l] += mine[t].rejected[l];
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < o.threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace warpsim::cli::validate::calibration
