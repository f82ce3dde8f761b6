// warpsim_calibration: the calibration harness of cli/validate/calibration.hpp
// over a grid, one line a tally (docs/validate.md, "Calibration"; the full
// grid is scripts/calibration.sh).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "cli/validate/calibration.hpp"

using namespace warpsim::cli::validate::calibration;

int main(int argc, char** argv) {
  CLI::App app{"The calibration harness: how often validate's checks and stats' tests reject correct samplers"};
  std::string grid = "small", subject = "both";
  std::uint64_t runs = 1000, seed = 1;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::string> only;
  std::uint64_t k_min = 0, k_max = UINT64_MAX;
  std::vector<std::uint64_t> only_n;
  bool exact = false;
  std::string rows, values;
  std::size_t from = 1, count = 100000;
  app.add_option("--grid", grid, "small (CI's slice) or full")->check(CLI::IsMember({"small", "full"}))->capture_default_str();
  app.add_option("--subject", subject, "validate, stats or both")->check(CLI::IsMember({"validate", "stats", "both"}))->capture_default_str();
  app.add_option("--runs", runs, "runs a cell")->check(CLI::Range(std::uint64_t{10}, std::uint64_t{10'000'000}))->capture_default_str();
  app.add_option("--seed", seed, "the simulations' seed")->capture_default_str();
  app.add_option("--threads", threads, "threads")->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--only", only, "only these families (--values: these laws, by name: gamma, beta, ...)");
  app.add_option("--k-min", k_min, "only cells of K >= this (a grid run in parts)");
  app.add_option("--k-max", k_max, "only cells of K <= this");
  app.add_option("--n", only_n, "only cells of these n (the laws' grid and --values)");
  app.add_flag("--exact-tails", exact, "instead: the exact rejection probabilities at 0.001 of laws of 2 and 3 categories");
  app.add_option("--rows", rows, "instead: rows that differ, judged draw by draw: the small grid, the full one (correct samplers) or the faults")
      ->check(CLI::IsMember({"small", "full", "power"}));
  app.add_option("--values", values, "instead: values of continuous laws, judged as --values files are: the small grid, the full one or the faults")
      ->check(CLI::IsMember({"small", "full", "power"}));
  app.add_option("--from", from, "--values: start at this cell of the chosen ones (1 = the first; to resume a run cut short)")->check(CLI::Range(1, 100000));
  app.add_option("--cells", count, "--values: at most this many cells from --from on")->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);

  if (exact) {
    std::printf("law\tn\tcheck\tlevel\trejection\tratio\n");
    for (const auto& t : exact_tails(0.001)) std::printf("%s\t%lu\t%s\t%g\t%.4g\t%.3f\n", t.law.c_str(), t.n, t.check.c_str(), t.level, t.rejection, t.rejection / t.level);
    return 0;
  }
  if (!values.empty()) {
    std::vector<ValuesCell> cells;
    for (const auto& c : values == "small" ? values_small_grid() : values == "full" ? values_full_grid() : values_power_grid())
      if ((only_n.empty() || std::find(only_n.begin(), only_n.end(), c.n) != only_n.end()) &&
          (only.empty() || std::find(only.begin(), only.end(), c.law.substr(0, c.law.find(':'))) != only.end()))
        cells.push_back(c);
    cells.erase(cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(std::min(from - 1, cells.size())));
    if (cells.size() > count) cells.resize(count);
    // every tally of the full grid at once (6 a cell, 2 levels)
    const double tail = 0.001 / static_cast<double>(values_full_grid().size() * 6 * 2);
    std::printf("law\tn\tstored\tclamp\tfault\tcheck\truns\tran\trej@0.05\tbound@0.05\trej@0.01\tbound@0.01\tverdict\tseconds\n");
    int flagged = 0;
    std::size_t done = 0;
    for (const auto& c : cells) {
      RunOptions o{.runs = runs, .seed = seed, .threads = threads};
      const auto t0 = std::chrono::steady_clock::now();
      o.progress = [&](std::uint64_t d) {
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "\r[%zu/%zu] %s n=%lu %s %s %s: %lu runs, %.0f s   ", done + 1, cells.size(), c.law.c_str(), c.n, c.stored.c_str(),
                     c.clamp.c_str(), c.fault.c_str(), d, el);
      };
      const auto r = run_values_cell(c, o);
      ++done;
      for (const auto& t : r.tallies) {
        // the report's second level is its default alpha, 0.001 (the column says 0.01 for the tests)
        const bool report = t.check == "report";
        const auto b05 = rejection_bound(t.ran, 0.05, tail), b01 = rejection_bound(t.ran, report ? 0.001 : 0.01, tail);
        const bool bad = c.fault == "none" && t.ran > 0 && (t.rejected[0] > b05 || t.rejected[1] > b01);
        flagged += bad;
        std::printf("%s\t%lu\t%s\t%s\t%s\t%s\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%s\t%.1f\n", c.law.c_str(), c.n, c.stored.c_str(),
                    c.clamp.empty() ? "-" : c.clamp.c_str(), c.fault.c_str(), t.check.c_str(), r.runs, t.ran, t.rejected[0], b05, t.rejected[1], b01,
                    c.fault != "none" ? "power" : t.ran == 0 ? "skipped" : bad ? "FLAGGED" : "ok", r.seconds);
      }
      std::fflush(stdout);
    }
    std::fprintf(stderr, "\n%d tallies flagged\n", flagged);
    return flagged ? 1 : 0;
  }
  if (!rows.empty()) {
    const auto cells = rows == "small" ? rows_small_grid() : rows == "full" ? rows_full_grid() : rows_power_grid();
    // correct samplers: every tally at once, as for the laws' grid (11 a cell, 2 levels)
    const double tail = 0.001 / static_cast<double>(rows_full_grid().size() * 11 * 2);
    std::printf("family\tM\tK\tS\tfault\tcheck\truns\tran\trej@0.05\tbound@0.05\trej@0.01\tbound@0.01\tverdict\tseconds\n");
    int flagged = 0;
    std::size_t done = 0;
    for (const auto& c : cells) {
      RunOptions o{.runs = runs, .seed = seed, .threads = threads};
      const auto t0 = std::chrono::steady_clock::now();
      o.progress = [&](std::uint64_t d) {
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "\r[%zu/%zu] %s M=%lu K=%lu S=%lu %s: %lu runs, %.0f s   ", done + 1, cells.size(), c.family.c_str(), c.m, c.k, c.s,
                     c.fault.c_str(), d, el);
      };
      const auto r = run_rows_cell(c, o);
      ++done;
      for (const auto& t : r.tallies) {
        // the report's second level is its default alpha, 0.001 (and the score's, set beside it)
        const bool report = t.check == "report" || t.check == "score_normal";
        const auto b05 = rejection_bound(t.ran, 0.05, tail), b01 = rejection_bound(t.ran, report ? 0.001 : 0.01, tail);
        const bool bad = c.fault == "none" && t.ran > 0 && (t.rejected[0] > b05 || t.rejected[1] > b01);
        flagged += bad;
        std::printf("%s\t%lu\t%lu\t%lu\t%s\t%s\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%s\t%.1f\n", c.family.c_str(), c.m, c.k, c.s, c.fault.c_str(),
                    t.check.c_str(), r.runs, t.ran, t.rejected[0], b05, t.rejected[1], b01,  // r.runs: the cell's (capped) runs
                    c.fault != "none" ? "power" : t.ran == 0 ? "skipped" : bad ? "FLAGGED" : "ok", r.seconds);
      }
      std::fflush(stdout);
    }
    std::fprintf(stderr, "\n%d tallies flagged\n", flagged);
    return flagged ? 1 : 0;
  }
  const auto whole = grid == "small" ? small_grid() : full_grid();
  std::vector<Cell> cells;
  for (const auto& c : whole)
    if ((only.empty() || std::find(only.begin(), only.end(), c.family) != only.end()) && c.k >= k_min && c.k <= k_max &&
        (only_n.empty() || std::find(only_n.begin(), only_n.end(), c.n) != only_n.end()))
      cells.push_back(c);
  const bool want_validate = subject != "stats", want_stats = subject != "validate";
  // Every tally of the grid is tested at once: the bound's tail is 0.001
  // shared among them (5 a subject a cell, 2 levels), the whole grid's even
  // where a run takes part of it.
  const double tail = 0.001 / static_cast<double>(whole.size() * 2 * 5 * 2);
  std::printf("subject\tfamily\tK\tn\trows\tcheck\truns\tran\trej@0.05\tbound@0.05\trej@0.01\tbound@0.01\tpower2x@0.05\tverdict\tseconds\n");
  int flagged = 0;
  std::size_t done = 0;
  for (const auto& c : cells) {
    RunOptions o{.runs = runs, .seed = seed, .threads = threads};
    const auto t0 = std::chrono::steady_clock::now();
    o.progress = [&](std::uint64_t d) {
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "\r[%zu/%zu] %s K=%lu n=%lu: %lu/%lu runs, %.0f s   ", done + 1, cells.size(), c.family.c_str(), c.k, c.n, d, runs, el);
    };
    const auto r = run_cell(c, o);
    ++done;
    auto print = [&](const char* subject_name, const std::vector<Tally>& tallies) {
      for (const auto& t : tallies) {
        const auto b05 = rejection_bound(t.ran, kLevels[0], tail), b01 = rejection_bound(t.ran, kLevels[1], tail);
        const bool bad = t.ran > 0 && (t.rejected[0] > b05 || t.rejected[1] > b01);
        flagged += bad;
        std::printf("%s\t%s\t%lu\t%lu\t%d\t%s\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%.3f\t%s\t%.1f\n", subject_name, c.family.c_str(), c.k, c.n, c.rows,
                    t.check.c_str(), r.runs, t.ran, t.rejected[0], b05, t.rejected[1], b01, t.ran ? power_against_doubled(t.ran, kLevels[0], b05) : 0.0,
                    t.ran == 0 ? "skipped" : bad ? "FLAGGED" : "ok", r.seconds);
      }
    };
    if (want_validate) print("validate", r.validate);
    if (want_stats) print("stats", r.stats);
    std::fflush(stdout);
  }
  std::fprintf(stderr, "\n%d tallies flagged\n", flagged);
  return flagged ? 1 : 0;
}
