#include "cli/demo_command.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/errors.hpp"
#include "cli/report_json.hpp"
#include "oracle/layouts.hpp"
#include "oracle/register_transpose.hpp"
#include "sim/register_grid.hpp"
#include "sim/warp.hpp"

namespace warpsim::cli {

namespace {

void print_counters(std::ostream& out, const sim::Counters& c) {
  out << "counters: " << c.total_instructions() << " instructions (";
  bool first = true;
  for (std::size_t i = 0; i < sim::kOpCount; ++i) {
    if (c.instructions[i] == 0) continue;
    out << (first ? "" : ", ") << c.instructions[i] << " " << sim::op_name(static_cast<sim::Op>(i));
    first = false;
  }
  out << "), " << c.shuffles() << " shuffles, " << c.lane_operations << " lane operations\n";
}

}  // namespace

CLI::App* add_demo_command(CLI::App& app, DemoOptions& o) {
  auto* demo_cmd = app.add_subcommand("demo", "Register transpose (seed 000, Fig. 2) shown pass by pass");
  demo_cmd->add_option("--lanes,-w", o.lanes, "warp width W, a power of two from 2 to 64")
      ->check(CLI::IsMember({2, 4, 8, 16, 32, 64}))
      ->capture_default_str();
  demo_cmd->add_option("--format", o.format, "output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  demo_cmd->add_flag("--trace", o.trace, "also list every simulated instruction");
  return demo_cmd;
}

int run_demo(const DemoOptions& options, std::ostream& out) {
  const int w = options.lanes;
  if (w < 2 || w > 64 || (w & (w - 1)) != 0) throw UsageError("--lanes must be a power of two from 2 to 64");
  sim::Warp warp({.width = w, .trace = options.trace});
  auto a = oracle::transposed_layout(w);

  std::vector<sim::RegisterGrid> grids{sim::to_grid(a, w)};
  oracle::register_transpose(warp, a, [&](int) { grids.push_back(sim::to_grid(a, w)); });
  const bool correct = grids.back() == sim::to_grid(oracle::normal_layout(w), w);

  if (options.format == "json") {
    nlohmann::json passes = nlohmann::json::array();
    for (std::size_t p = 1; p < grids.size(); ++p) {
      nlohmann::json changed = nlohmann::json::array();
      for (auto [r, l] : sim::changed_cells(grids[p - 1], grids[p])) changed.push_back({r, l});
      passes.push_back({{"pass", p - 1}, {"xor_mask", 1 << (p - 1)}, {"grid", grids[p]}, {"changed", changed}});
    }
    nlohmann::json trace = nlohmann::json::array();
    for (const auto& s : warp.trace()) trace.push_back(to_json(s, w));
    nlohmann::json doc = {{"demo", "register_transpose"},
                          {"lanes", w},
                          {"initial", grids.front()},
                          {"passes", passes},
                          {"reaches_normal_layout", correct},
                          {"counters", to_json(warp.counters())}};
    if (options.trace) doc["trace"] = trace;
    out << doc.dump(2) << '\n';
    return correct ? 0 : 1;
  }

  out << "warpsim demo: register transpose (seed 000, Fig. 2) on a warp of " << w << " lanes\n\n"
      << "Start: the transposed layout that coalesced loads leave (Fig. 1b).\n"
      << "Register r of lane c holds element c of lane r's array (lanes are lettered A, B, ...).\n\n"
      << sim::format_grid(grids.front()) << '\n';
  for (std::size_t p = 1; p < grids.size(); ++p) {
    const int bit = 1 << (p - 1);
    out << "Pass " << p - 1 << ": lanes k and k^" << bit << " trade the registers whose index differs in bit "
        << p - 1 << " (" << w / 2 << " shfl_xor); * marks a changed register\n\n"
        << sim::format_grid(grids[p], sim::changed_cells(grids[p - 1], grids[p])) << '\n';
  }
  out << (correct ? "Done: every lane now holds its own array (the normal layout, Fig. 1a).\n"
                  : "ERROR: the result is not the normal layout.\n");
  print_counters(out, warp.counters());
  if (options.trace) {
    out << "\ntrace (" << warp.trace().size() << " instructions):\n";
    for (const auto& s : warp.trace()) {
      out << "  #" << s.step << " [" << sim::format_mask(s.active, w) << "] " << s.label;
      std::size_t n = 0;
      for (const auto& rc : s.changes) n += rc.lanes.size();
      if (n) out << "  (" << n << " lanes changed)";
      if (!s.note.empty()) out << "  ; " << s.note;
      out << '\n';
    }
  }
  return correct ? 0 : 1;
}

}  // namespace warpsim::cli
