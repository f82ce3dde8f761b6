#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "cli/validate/calibration.hpp"
#include "cli/validate/calibration_detail.hpp"
#include "cli/validate/law.hpp"
#include "cli/validate/rows.hpp"
#include "stats/stats.hpp"

namespace warpsim::cli::validate::calibration {

using detail::hash_text;
using detail::mix;

std::vector<RowsCell> rows_small_grid() {
  return {{"logits", 200, 40, 1}, {"tiny", 100, 16, 4}, {"logits", 10, 1000, 1}};
}

std::vector<RowsCell> rows_full_grid() {
  std::vector<RowsCell> g;
  const RowsCell shapes[] = {{"", 10, 2, 1},      {"", 10, 2, 4},       {"", 10, 1000, 1},   {"", 10, 1000, 4},    {"", 10, 100000, 1},
                             {"", 1000, 2, 1},    {"", 1000, 2, 4},     {"", 1000, 40, 1},   {"", 1000, 40, 4},    {"", 1000, 10000, 1},
                             {"", 100000, 2, 1},  {"", 100000, 40, 1},  {"", 100000, 40, 4}, {"", 1000000, 2, 1},  {"", 1000000, 10, 1}};
  for (const std::string f : {"logits", "tiny"})
    for (auto c : shapes) {
      c.family = f;
      // a run of 10^6 draws or weights takes 1-2 s of a core: 200 runs (a tripled rate still shows)
      if (c.m * c.k * c.s >= 1000000 || c.m * c.s >= 1000000) c.most_runs = 200;
      g.push_back(c);
    }
  return g;
}

std::vector<RowsCell> rows_power_grid() {
  std::vector<RowsCell> g;
  const RowsCell shapes[] = {{"logits", 300, 40, 1}, {"logits", 3000, 40, 1}, {"logits", 3000, 40, 4}, {"logits", 1000, 32768, 1}, {"logits", 100, 32768, 4}};
  for (const std::string fault : {"shifted", "swapped", "temperature", "seed"})
    for (auto c : shapes) {
      c.fault = fault;
      c.most_runs = 20;  // a failing report simulates up to its limits: seconds a run
      g.push_back(c);
    }
  return g;
}

RowsResult run_rows_cell(const RowsCell& cell, const RunOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  RunOptions o = options;
  if (cell.most_runs) o.runs = std::min(o.runs, cell.most_runs);
  if (cell.m < 2 || cell.k < 2 || cell.s < 1) throw std::invalid_argument("calibration: rows need M >= 2, K >= 2, S >= 1");
  const auto m = static_cast<std::size_t>(cell.m), k = static_cast<std::size_t>(cell.k);
  // The laws (M + 1 of them, for the shifted fault) and the laws the draws
  // follow, fixed for the cell.
  std::mt19937_64 law_rng(mix(o.seed, mix(hash_text(cell.family), mix(cell.m, cell.k))));
  std::normal_distribution<double> z(0, 2);
  std::uniform_real_distribution<double> log_t(std::log(0.25), std::log(4.0));
  std::vector<double> weights(m * k), drawn_from((m + 1) * k);
  std::vector<double> plain((m + 1) * k);  // temperature 1
  for (std::size_t r = 0; r <= m; ++r) {
    const double t = std::exp(log_t(law_rng));
    double top = -1e300;
    std::vector<double> logit(k);
    for (std::size_t i = 0; i < k; ++i) {
      logit[i] = cell.family == "tiny" && i % 4 == 1 ? -30.0 : z(law_rng);
      top = std::max(top, logit[i]);
    }
    for (std::size_t i = 0; i < k; ++i) {
      drawn_from[r * k + i] = std::exp((logit[i] - top) / t);
      plain[r * k + i] = std::exp(logit[i] - top);
      if (r < m) weights[r * k + i] = drawn_from[r * k + i];
    }
  }
  std::vector<stats::RowLaw> truth;  // what row r's draws follow
  for (std::size_t r = 0; r < m; ++r) {
    const double* w = cell.fault == "shifted" ? &drawn_from[(r + 1) * k]
                      : cell.fault == "swapped" ? &drawn_from[(r % 2 ? r - 1 : std::min(r + 1, m - 1)) * k]
                      : cell.fault == "temperature" ? &plain[r * k]
                                                     : &drawn_from[r * k];
    truth.emplace_back(std::span<const double>(w, k));
  }
  std::vector<double> mean(k, 0.0);  // the summed checks' law: every row the same number of draws
  // The score statistic sum log p_r(x_r) (the other candidate), for
  // comparison only: its mean and variance under the judged laws, and the
  // normal limit (two-sided). Not one of validate's checks.
  std::vector<double> log_p(m * k);
  double score_mean = 0, score_var = 0;
  std::vector<stats::RowLaw> judged;  // the judged laws, made once for every run's checks
  judged.reserve(m);
  for (std::size_t r = 0; r < m; ++r) {
    judged.emplace_back(std::span<const double>(&weights[r * k], k));
    const stats::RowLaw& law = judged.back();
    double mu = 0, second = 0;
    for (std::size_t i = 0; i < k; ++i) {
      mean[i] += law.p(i) / static_cast<double>(m);
      log_p[r * k + i] = law.p(i) > 0 ? std::log(law.p(i)) : -1e300;
      if (law.p(i) > 0) mu += law.p(i) * log_p[r * k + i], second += law.p(i) * log_p[r * k + i] * log_p[r * k + i];
    }
    score_mean += static_cast<double>(cell.s) * mu;
    score_var += static_cast<double>(cell.s) * (second - mu * mu);
  }
  const std::vector<std::string> names{"pit_heaviest", "pit_index", "rows_independent", "rows_score", "rows_binomial", "rows_chi_square",
                                       "chi_square",   "per_category_binomial", "ks_discrete", "score_normal"};
  std::vector<std::array<std::uint64_t, 2>> rejected(names.size() + 1, {0, 0});
  std::vector<std::uint64_t> ran(names.size() + 1, 0);
  std::mutex merge;
  std::atomic<std::uint64_t> next{0}, done{0};
  const std::uint64_t cell_seed = mix(o.seed, mix(hash_text(cell.family + cell.fault), mix(cell.m, mix(cell.k, cell.s))));
  auto worker = [&] {
    std::vector<std::array<std::uint64_t, 2>> rej(names.size() + 1, {0, 0});
    std::vector<std::uint64_t> ran_here(names.size() + 1, 0);
    for (std::uint64_t run; (run = next++) < o.runs;) {
      std::mt19937_64 rng(mix(cell_seed, run));
      LawCounter counter(cell.k);
      RowChecks rows(weights, cell.m, cell.k, {}, &judged);
      std::uint64_t e = 0;
      double score = 0;
      std::vector<std::pair<std::size_t, std::size_t>> kept;  // (row, index) of every draw, for the PITs' pass
      std::vector<double> shared(static_cast<std::size_t>(cell.s));  // row 2i's uniforms, for row 2i + 1
      for (std::size_t r = 0; r < m; ++r) {
        for (std::uint64_t j = 0; j < cell.s; ++j, ++e) {
          double u = stats::unit_uniform(rng);
          if (cell.fault == "seed") {  // rows 2i and 2i + 1: one uniform a draw
            if (r % 2 == 0) shared[j] = u;
            else u = shared[j];
          }
          const auto x = truth[r].inverse(u);
          score += log_p[r * k + x];
          counter.add(x);
          if (weights[r * k + x] > 0) rows.add(e, r, x);
          kept.emplace_back(r, x);
        }
      }
      if (rows.wants_pit_pass()) {
        for (std::size_t f = 0; f < kept.size(); ++f)
          if (weights[kept[f].first * k + kept[f].second] > 0) rows.pit(f, kept[f].first, kept[f].second);
      }
      const int checks = law_check_count(false) + rows.check_count();
      const double alpha = 1e-3;
      Report report;
      law_checks(counter.data(), mean, {.alpha_each = alpha / checks, .label = "grid", .rows_differ = true}, report);
      rows.finish(alpha / checks, "grid", report);
      bool any05 = false;
      for (const auto& ch : report.checks) {
        const auto it = std::find(names.begin(), names.end(), ch.name);
        if (it == names.end() || ch.outcome == Outcome::Skipped || !ch.test) continue;
        const auto c = static_cast<std::size_t>(it - names.begin());
        ++ran_here[c];
        for (std::size_t l = 0; l < 2; ++l) rej[c][l] += ch.test->p_value <= kLevels[l];
        any05 = any05 || ch.test->p_value <= 0.05 / checks;
      }
      if (score_var > 0) {  // the score's two-sided normal p-value, at 0.05 and 0.001 (a report's alpha)
        const double zs = std::abs(score - score_mean) / std::sqrt(score_var);
        const auto c = names.size() - 1;
        ++ran_here[c];
        rej[c][0] += zs >= 1.959963984540054;
        rej[c][1] += zs >= 3.290526731491926;
      }
      ++ran_here[names.size()];
      rej[names.size()][0] += any05;
      rej[names.size()][1] += !report.consistent();
      const auto d = ++done;
      if (o.progress && d % 10 == 0) o.progress(d);
    }
    std::lock_guard<std::mutex> lock(merge);
    for (std::size_t c = 0; c <= names.size(); ++c) {
      ran[c] += ran_here[c];
      for (std::size_t l = 0; l < 2; ++l) rejected[c][l] += rej[c][l];
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, o.threads); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  RowsResult out{cell, o.runs, {}, 0};
  for (std::size_t c = 0; c < names.size(); ++c) out.tallies.push_back({names[c], ran[c], {rejected[c][0], rejected[c][1]}});
  out.tallies.push_back({"report", ran[names.size()], {rejected[names.size()][0], rejected[names.size()][1]}});
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace warpsim::cli::validate::calibration
