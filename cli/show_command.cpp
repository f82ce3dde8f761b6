#include "cli/show_command.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <random>
#include <sstream>

#include "cli/alias_view.hpp"
#include "cli/rejection_view.hpp"
#include "cli/sum_tree_view.hpp"
#include "cli/layout_frames.hpp"
#include "cli/validate/files.hpp"
#include "cli/errors.hpp"
#include "cli/input/weights.hpp"
#include "oracle/butterfly_draw.hpp"
#include "oracle/butterfly_table.hpp"
#include "oracle/pprime_draw.hpp"
#include "oracle/register_transpose.hpp"
#include "sim/register_grid.hpp"
#include "sim/symbolic.hpp"
#include "sim/warp.hpp"
#include "stats/input_checks.hpp"  // number_text

namespace warpsim::cli {

namespace {

using sim::Sym;

// Element i of lane r's array, symbolic or numeric.
template <class T>
struct Values;
template <>
struct Values<Sym> {
  Sym operator()(int r, int i) const { return Sym::element(r, i); }
};
template <>
struct Values<float> {
  std::vector<std::vector<float>> rows;
  float operator()(int r, int i) const { return rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)]; }
};

std::string cell_text(const Sym& s, bool partial_sums) { return s.to_string(partial_sums ? sim::SymStyle::Range : sim::SymStyle::Compact); }
std::string cell_text(float v, bool) { return sim::format_value(v); }

int owner_of(const Sym& s) { return s.runs().empty() ? -1 : s.runs().front().owner; }

// Which of a view's steps are drawn. Chosen before the algorithm runs, so
// that a step nobody asked for costs no grid: a view of K = 4096 weights on 64
// lanes has 4096 steps of 262,144 cells each.
struct StepPlan {
  std::vector<bool> keep;  // per step
  int next = 0;            // the step the next snapshot is

  bool wanted(int step) const { return step >= 0 && step < static_cast<int>(keep.size()) && keep[static_cast<std::size_t>(step)]; }
};

// Snapshots of a grid of values (a register array, or the lanes' local
// arrays): texts and (for Sym) owners, for the steps the plan keeps; the
// grid before a kept step is made too, to mark what changed. cell(r, l) is
// row r of lane l.
template <class T>
struct Recorder {
  std::function<const T&(int, int)> cell;
  int rows;
  int lanes;
  bool partial_sums;
  StepPlan* plan;
  std::function<bool(int)> written = {};        // rows not yet written show as "." (none if empty)
  std::vector<Frame> frames = {};                   // the kept steps
  std::optional<sim::RegisterGrid> previous = {};  // the step before, when it is needed

  static Recorder of(const sim::RegArray<T>& regs, int lanes, bool partial_sums, StepPlan* plan) {
    return {[&regs](int r, int l) -> const T& { return regs[r][l]; }, regs.size(), lanes, partial_sums, plan};
  }

  void snap(std::string title) {
    const int step = plan->next++;
    if (step >= static_cast<int>(plan->keep.size())) throw std::logic_error("show: a view took more steps than it counted");
    const bool keep = plan->wanted(step), feeds_next = plan->wanted(step + 1);
    if (!keep && !feeds_next) {
      previous.reset();
      return;
    }
    sim::RegisterGrid grid(static_cast<std::size_t>(rows));
    for (int r = 0; r < rows; ++r)
      for (int l = 0; l < lanes; ++l)
        grid[static_cast<std::size_t>(r)].push_back(!written || written(r) ? cell_text(cell(r, l), partial_sums) : std::string("."));
    if (keep) {
      Frame f;
      f.step = step;
      f.title = std::move(title);
      f.grid = grid;
      if constexpr (std::is_same_v<T, Sym>) {
        f.owner.assign(f.grid.size(), std::vector<int>(static_cast<std::size_t>(lanes), -1));
        for (int r = 0; r < rows; ++r)
          for (int l = 0; l < lanes; ++l)
            if (!written || written(r)) f.owner[static_cast<std::size_t>(r)][static_cast<std::size_t>(l)] = owner_of(cell(r, l));
      }
      if (previous)
        for (auto c : sim::changed_cells(*previous, grid)) f.changed.insert(c);
      frames.push_back(std::move(f));
    }
    if (feeds_next) previous = std::move(grid); else previous.reset();
  }
};

std::vector<std::string> butterfly_row_labels(int w) {
  std::vector<std::string> labels;
  const int levels = sim::log2_exact(w);
  for (int i = 0; i < w; ++i) {
    if (i == w - 1) {
      labels.push_back("S");
      continue;
    }
    const int m = i ^ (i + 1);
    labels.push_back(std::to_string(levels - sim::log2_exact((m + 1) / 2)));
  }
  return labels;
}

template <class T>
std::vector<Frame> butterfly_frames(int w, int k, oracle::ButterflyVariant v, const Values<T>& values, StepPlan plan) {
  std::vector<Frame> frames;
  for (int j = 0; j < k; j += w) {
    sim::RegArray<T> a("a", w);
    for (int reg = 0; reg < w; ++reg)
      for (int lane = 0; lane < w; ++lane) a[reg][lane] = values(reg, j + lane);  // transposed access
    auto rec = Recorder<T>::of(a, w, true, &plan);
    const std::string block = k > w ? "block at " + std::to_string(j) + ": " : "";
    rec.snap(block + "after the transposed loads (Fig. 1b)");
    sim::Warp warp({.width = w});
    oracle::butterfly_build(warp, a, v, [&](int level, int pair) {
      const int bit = 1 << level, d = 2 * bit * pair + bit - 1;
      rec.snap(block + "level " + std::to_string(level) + ": shfl_xor " + std::to_string(bit) + " on rows " +
               std::to_string(d) + " and " + std::to_string(d + bit));
    });
    for (auto& f : rec.frames) frames.push_back(std::move(f));
  }
  return frames;
}

template <class T>
std::vector<Frame> transpose_frames(int w, const Values<T>& values, StepPlan plan) {
  sim::RegArray<T> a("a", w);
  for (int reg = 0; reg < w; ++reg)
    for (int lane = 0; lane < w; ++lane) a[reg][lane] = values(reg, lane);
  auto rec = Recorder<T>::of(a, w, false, &plan);
  rec.snap("the transposed layout (Fig. 1b)");
  sim::Warp warp({.width = w});
  oracle::register_transpose(warp, a, [&](int pass) {
    rec.snap("pass " + std::to_string(pass) + ": lanes k and k^" + std::to_string(1 << pass) + " trade registers");
  });
  return rec.frames;
}

template <class T>
std::vector<Frame> prefix_frames(int w, int k, const Values<T>& values, StepPlan plan) {
  sim::RegArray<T> p("p", k);
  for (int i = 0; i < k; ++i)
    for (int lane = 0; lane < w; ++lane) p[i][lane] = values(lane, i);
  auto rec = Recorder<T>::of(p, w, true, &plan);
  rec.snap("each lane's own weights (the normal layout, Fig. 1a)");
  sim::Warp warp({.width = w});
  for (int i = 1; i < k; ++i) {
    warp.add(p[i], p[i], sim::PerLane<T>(p[i - 1]));
    rec.snap("p[" + std::to_string(i) + "] += p[" + std::to_string(i - 1) + "]");
  }
  return rec.frames;
}

// p' entries: "R" for the remnant's, then each block's rows as the table
// labels them (tree levels), its last "sum" (the running sum Alg. 8 stores).
std::vector<std::string> remnant_row_labels(int w, int k) {
  std::vector<std::string> labels(static_cast<std::size_t>(k % w), "R");
  const auto table = butterfly_row_labels(w);
  for (int b = 0; b < k / w; ++b)
    for (int d = 0; d < w; ++d) labels.push_back(d == w - 1 ? "sum" : "b" + std::to_string(b) + " " + table[static_cast<std::size_t>(d)]);
  return labels;
}

// Seed 000's Alg. 8 for any K (the butterfly view where W does not divide
// K): the lanes' p' arrays, an entry a row and a lane a column, after each
// store the oracle makes -- the remnant's entries one by one, then each
// block's butterfly table and the running sum (Fig. 9's division).
template <class T>
std::vector<Frame> remnant_frames(int w, int k, oracle::ButterflyVariant v, const Values<T>& values, StepPlan plan) {
  sim::Warp warp({.width = w});
  sim::LocalArray<T> p("p'", static_cast<std::size_t>(k));
  sim::Reg<T> sum("sum");
  int stored = 0;  // p'[0, stored) written so far
  Recorder<T> rec{[&p](int r, int l) -> const T& { return p.at(l, static_cast<std::size_t>(r)); }, k, w, true, &plan};
  rec.written = [&stored](int r) { return r < stored; };
  rec.snap("p' before Alg. 8: " + std::to_string(k % w) + " remnant entries first, then " + std::to_string(k / w) + " blocks of " +
           std::to_string(w) + " (seed 000, Fig. 9)");
  auto load = [&](sim::Reg<T>& dst, int row, int j) {
    for (int l = 0; l < w; ++l) dst[l] = row < 0 ? values(l, j) : values(row, j + l);
  };
  oracle::butterfly_prepare(warp, k, load, p, sum, v, {}, [&](const std::string& what, const sim::LocalArray<T>&) {
    stored = stored < k % w ? stored + 1 : stored + w;
    rec.snap(what);
  });
  return rec.frames;
}

// Seed 000's Sec. 2: each lane's one-array p' (an entry a row, a lane a
// column) after the copy and after each level of the build.
template <class T>
std::vector<Frame> pprime_frames(int w, int k, const Values<T>& values, StepPlan plan) {
  sim::Warp warp({.width = w});
  sim::LocalArray<T> p("p'", static_cast<std::size_t>(k));
  Recorder<T> rec{[&p](int r, int l) -> const T& { return p.at(l, static_cast<std::size_t>(r)); }, k, w, true, &plan};
  oracle::pprime_build(warp, k, [&](sim::Reg<T>& dst, int j) { for (int l = 0; l < w; ++l) dst[l] = values(l, j); }, p,
                       [&](int level, const sim::LocalArray<T>&) {
                         if (level == 0) {
                           rec.snap("p'[k] := a[k]: each lane's own weights (the normal layout)");
                         } else {
                           const int half = 1 << (level - 1);
                           rec.snap("level " + std::to_string(level) + ": p'[(2i) " + std::to_string(half) + " - 1] += p'[(2i - 1) " +
                                    std::to_string(half) + " - 1] for i = 1.." + std::to_string(k >> level));
                         }
                       });
  return rec.frames;
}

// The u each lane searches with in the views that run a draw: 24-bit
// uniforms from std::mt19937(seed + 1), the same in every view of one seed.
sim::Reg<float> view_uniforms(int w, unsigned seed) {
  sim::Reg<float> u("u");
  std::mt19937 rng(seed + 1);
  for (int l = 0; l < w; ++l) u[l] = static_cast<float>(rng() >> 8) * 0x1p-24f;
  return u;
}

// A view's weights, lane after lane, as one row-major matrix.
std::vector<float> flat_rows(const std::vector<std::vector<float>>& rows) {
  std::vector<float> flat;
  for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  return flat;
}

std::vector<int> select_steps(const std::string& step, int count) {
  if (step == "all") {
    std::vector<int> s(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) s[static_cast<std::size_t>(i)] = i;
    return s;
  }
  if (step == "final") return {count - 1};
  std::size_t used = 0;
  int n = -1;
  try {
    n = std::stoi(step, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != step.size() || n < 0 || n >= count) {
    throw UsageError("--step must be all, final or a step number from 0 to " + std::to_string(count - 1) + ", got '" +
                     printable(step) + "'");
  }
  return {n};
}

// How many steps each view has, and rows per step, before it runs.
struct ViewShape {
  int steps;
  int rows;
};

ViewShape view_shape(const std::string& algorithm, int w, int k) {
  const int levels = sim::log2_exact(w);
  if (algorithm == "pprime") return {1 + 2 * sim::log2_exact(k), k};  // the copy, log2 K levels, log2 K search steps
  if (algorithm == "butterfly" && k % w != 0) return {k % w + k / w + 2, k};  // p' before, each store, the draws
  if (algorithm == "butterfly") return {k, w};       // per W x W block: the loads, then W - 1 shuffle steps
  if (algorithm == "transpose") return {1 + levels, w};
  if (algorithm == "prefix") return {k, k};
  return {1 + levels, w};                             // butterfly-search: the table, then log2 W search steps
}

StepPlan plan_for(const std::vector<int>& steps, int count) {
  StepPlan plan;
  plan.keep.assign(static_cast<std::size_t>(count), false);
  for (int s : steps) plan.keep[static_cast<std::size_t>(s)] = true;
  return plan;
}

std::string show_limits() {
  return "Limits: --k from 1 to " + std::to_string(kShowMaxK) + " (sum-tree: 2^20; alias, alias-sample and rejection: " +
         std::to_string(kAliasViewMaxItems) + " items; rejection: --calls 1 to 16, " + std::to_string(kRejectionViewMaxIterations) +
         " iterations); at most " + std::to_string(kShowMaxCells) +
         " cells drawn at once (steps x register rows x lanes: --step all and --format html draw every step); "
         "--weights holds exactly W x K numbers, each finite, non-negative and within fp32's range (the views "
         "compute in fp32).";
}

}  // namespace

CLI::App* add_show_command(CLI::App& app, ShowOptions& o) {
  auto* show_cmd = app.add_subcommand("show", "Show lane/register layouts step by step");
  show_cmd->footer(show_limits());
  show_cmd->add_option("algorithm", o.algorithm,
                       "the view:\n"
                       "  butterfly         seed 000's butterfly table, block by block (Alg. 8); K not a multiple of W: the remnant and\n"
                       "                    each lane's p' as Alg. 8 stores it, then Alg. 9's search and its fall back to the remnant\n"
                       "  butterfly-search  the search inside one butterfly table (Alg. 10)\n"
                       "  transpose         the register transpose by shfl_xor (Fig. 2)\n"
                       "  prefix            per-lane prefix sums, the baseline (Alg. 1)\n"
                       "  pprime            each lane's one-array p' (Sec. 2): built level by level, then searched\n"
                       "  sum-tree          the sum tree's descent: 32 draws of one row, a depth a step\n"
                       "  alias             an alias table's construction (seed 001; --method)\n"
                       "  alias-sample      draws from it: a draw's row, threshold and alias; --section-rows: the sections' binomial splits\n"
                       "  rejection         Bringmann-Larsen's attempts on a warp over time, idle lanes marked (--cached: seed 004's\n"
                       "                    pre-cached loop)")
      ->required()
      ->check(CLI::IsMember({"butterfly", "butterfly-search", "transpose", "prefix", "pprime", "sum-tree", "alias", "alias-sample", "rejection"}));
  show_cmd->add_option("--lanes,-w", o.lanes, "warp width W, a power of two from 2 to 64")
      ->check(CLI::IsMember({2, 4, 8, 16, 32, 64}))
      ->capture_default_str();
  show_cmd->add_option("--k", o.k, "weights per distribution, K (default W; alias 8, sum-tree 16384)")->check(CLI::Range(1, 1 << 20));
  show_cmd->add_option("--variant", o.variant, "butterfly views: standard (default) or addsub")
      ->check(CLI::IsMember({"standard", "addsub"}));
  show_cmd->add_option("--step", o.step, "which step: N, all or final")->capture_default_str();
  show_cmd->add_option("--highlight", o.highlight, "mark the cells that belong to this lane (0 = A)");
  show_cmd->add_option("--format", o.format, "output format")
      ->check(CLI::IsMember({"text", "svg", "html", "json"}))
      ->capture_default_str();
  show_cmd->add_option("--color", o.colour_when, "text: colour each cell by its owner lane: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  auto* weights_opt = show_cmd->add_option("--weights", o.weights_file,
                                           "numeric weights: W x K numbers, lane after lane (CSV or whitespace; - for stdin)");
  show_cmd->add_option("--seed", o.seed, "numeric weights from a generator with this seed")->excludes(weights_opt);
  show_cmd->add_option("--method", o.method, "alias: walker | vose | sweep (default) | psa | psa+")
      ->check(CLI::IsMember({"walker", "vose", "sweep", "psa", "psa+"}));
  show_cmd->add_option("--splits", o.splits, "alias, psa and psa+: the number of sections (default 2)");
  show_cmd->add_option("--group", o.group, "alias, psa+: the items packed greedily together (default 4)");
  show_cmd->add_option("--section-rows", o.section_rows, "alias-sample: sectioned sampling, sections of at most this many rows");
  show_cmd->add_option("--draws", o.draws, "alias-sample with --section-rows: the batch's draws (default 64)");
  show_cmd->add_flag("--cached", o.cached, "rejection: seed 004's pre-cached loop (default: uncached)");
  show_cmd->add_option("--calls", o.calls, "rejection: the warp's calls, a draw a lane each (default 3, at most 16)");
  return show_cmd;
}

namespace {

// The layout in the format asked for.
int render(const Layout& layout, const ShowOptions& o, std::ostream& out) {
  if (o.format == "text") {
    out << render_text(layout, o.colour);
  } else if (o.format == "json") {
    out << render_json(layout);
  } else if (o.format == "svg") {
    out << render_svg(layout);
  } else {
    out << render_html(layout);
  }
  return 0;
}

// show alias: the weights (one a line) or K generated ones, and the construction.
int run_show_alias(const ShowOptions& o, std::ostream& out, const InputSource& inputs) {
  if (o.variant) throw UsageError("--variant applies to the butterfly views only, not to alias");
  if (o.highlight) throw UsageError("--highlight marks a lane; the alias views have none to mark");
  const bool sampling = o.algorithm == "alias-sample", rejection = o.algorithm == "rejection";
  if (!rejection && (o.cached || o.calls)) throw UsageError("--cached and --calls apply to show rejection");
  if (rejection && (o.section_rows || o.draws || o.method || o.splits || o.group))
    throw UsageError("--section-rows, --draws, --method, --splits and --group apply to the alias views, not to rejection");
  if (!sampling && (o.section_rows || o.draws)) throw UsageError("--section-rows and --draws apply to show alias-sample");
  if (o.draws && !o.section_rows) throw UsageError("--draws applies to sectioned sampling (--section-rows); the baseline draws one a lane");
  const std::string method = o.method.value_or("sweep");
  if (o.splits && method != "psa" && method != "psa+") throw UsageError("--splits applies to --method psa and psa+");
  if (o.group && method != "psa+") throw UsageError("--group applies to --method psa+");
  std::vector<double> w;
  if (!o.weights_file.empty()) {
    const auto read = read_weights(inputs, o.weights_file, std::nullopt);
    if (!read.vector && read.rows != 1) throw UsageError(read.quoted + " holds a matrix; the " + o.algorithm + " view takes one distribution (a line of weights, or one weight a line)");
    w = read.values;
  } else {
    const int k = o.k.value_or(8);
    if (k < 1 || static_cast<std::size_t>(k) > kAliasViewMaxItems) {
      throw UsageError("--k must lie between 1 and " + std::to_string(kAliasViewMaxItems) + " for the alias view");
    }
    const auto rows = generated_weight_rows(o.seed.value_or(1), 1, k);  // kept: a range-for over .front() of a temporary dangles
    for (float x : rows.front()) w.push_back(x);
    bool any = false;
    for (double x : w) any = any || x > 0;
    if (!any) w[0] = 1;
  }
  const std::size_t n = w.size();
  const std::size_t splits = o.splits.value_or(std::min<std::size_t>(2, n)), group = o.group.value_or(std::min<std::size_t>(4, n));
  if (splits < 1 || splits > n) throw UsageError("--splits must lie in [1, N] = [1, " + std::to_string(n) + "]");
  if (group < 1 || group > n) throw UsageError("--group must lie in [1, N] = [1, " + std::to_string(n) + "]");
  if (o.section_rows && *o.section_rows < 1) throw UsageError("--section-rows must be at least 1");
  if (o.draws && (*o.draws < 1 || *o.draws > 1000000)) throw UsageError("--draws must lie in [1, 10^6]");
  Layout all = rejection ? rejection_layout(w, o.lanes, o.cached, o.seed.value_or(1), o.calls.value_or(3))
               : sampling ? alias_sample_layout(w, method, splits, group, o.lanes, o.seed.value_or(1), o.section_rows, o.draws.value_or(64))
                        : alias_layout(w, method, splits, group);
  const std::vector<int> steps = o.format == "html" ? select_steps("all", all.steps) : select_steps(o.step, all.steps);
  if (o.format == "svg" && steps.size() != 1) throw UsageError("--format svg draws one step: give --step N or final");
  Layout layout = all;
  layout.frames.clear();
  for (int s : steps) layout.frames.push_back(all.frames[static_cast<std::size_t>(s)]);
  return render(layout, o, out);
}

// show sum-tree: one row's weights (one a line) or K generated ones, and 32 draws going down.
int run_show_sum_tree(const ShowOptions& o, std::ostream& out, const InputSource& inputs) {
  if (o.variant) throw UsageError("--variant applies to the butterfly views only, not to sum-tree");
  std::vector<float> w;
  if (!o.weights_file.empty()) {
    const auto read = read_weights(inputs, o.weights_file, std::nullopt);
    if (!read.vector && read.rows != 1) throw UsageError(read.quoted + " holds a matrix; the sum-tree view takes one row (a line of weights, or one weight a line)");
    for (double x : read.values) {
      if (!(std::fabs(x) <= std::numeric_limits<float>::max())) throw UsageError(read.quoted + " holds " + stats::number_text(x) + ": beyond fp32's range");
      w.push_back(static_cast<float>(x));
    }
  } else {
    const int k = o.k.value_or(16384);
    w = generated_weight_rows(o.seed.value_or(1), 1, k).front();
  }
  Layout all = sum_tree_layout(w, o.seed.value_or(1), o.highlight);
  const std::vector<int> steps = o.format == "html" ? select_steps("all", all.steps) : select_steps(o.step, all.steps);
  if (o.format == "svg" && steps.size() != 1) throw UsageError("--format svg draws one step: give --step N or final");
  Layout layout = all;
  layout.frames.clear();
  for (int s : steps) layout.frames.push_back(all.frames[static_cast<std::size_t>(s)]);
  return render(layout, o, out);
}

}  // namespace

int run_show(const ShowOptions& o, std::ostream& out, const InputSource& inputs) {
  if (o.algorithm == "alias" || o.algorithm == "alias-sample" || o.algorithm == "rejection") return run_show_alias(o, out, inputs);
  if (o.section_rows || o.draws) throw UsageError("--section-rows and --draws apply to show alias-sample");
  if (o.cached || o.calls) throw UsageError("--cached and --calls apply to show rejection");
  if (o.algorithm == "sum-tree") {
    if (o.method || o.splits || o.group) throw UsageError("--method, --splits and --group apply to show alias");
    return run_show_sum_tree(o, out, inputs);
  }
  if (o.method || o.splits || o.group) throw UsageError("--method, --splits and --group apply to show alias");
  const int w = o.lanes;
  if (w < 2 || w > 64 || (w & (w - 1)) != 0) throw UsageError("--lanes must be a power of two from 2 to 64");
  const int k = o.k.value_or(w);
  if (k < 1 || k > kShowMaxK) {
    throw UsageError("--k must lie between 1 and " + std::to_string(kShowMaxK) + " for show " + o.algorithm + ", got " + std::to_string(k) +
                     " (show sum-tree takes rows of up to 2^20)");
  }
  if (o.highlight && (*o.highlight < 0 || *o.highlight >= w)) {
    throw UsageError("--highlight must name a lane from 0 to " + std::to_string(w - 1));
  }
  const bool butterfly_view = o.algorithm == "butterfly" || o.algorithm == "butterfly-search";
  if (o.variant && !butterfly_view) throw UsageError("--variant applies to the butterfly views only, not to " + o.algorithm);
  if (!o.weights_file.empty() && o.seed) throw UsageError("give --weights or --seed, not both");
  if (o.algorithm == "pprime" && (k & (k - 1)) != 0) throw UsageError("the one-array p' needs K a power of two (log2 K levels), got --k " + std::to_string(k));
  if (o.algorithm == "transpose" && k != w) throw UsageError("the register transpose moves a W x W block: --k must equal --lanes");
  if (o.algorithm == "butterfly-search" && k != w) {
    throw UsageError("the butterfly search view searches one W x W block: --k must equal --lanes");
  }

  // What will be drawn, and whether it fits, before anything runs.
  const ViewShape shape_of_view = view_shape(o.algorithm, w, k);
  const std::vector<int> steps = o.format == "html" ? select_steps("all", shape_of_view.steps) : select_steps(o.step, shape_of_view.steps);
  if (o.format == "svg" && steps.size() != 1) throw UsageError("--format svg draws one step: give --step N or final");
  const double cells = static_cast<double>(steps.size()) * shape_of_view.rows * w;
  if (cells > kShowMaxCells) {
    throw UsageError("this view would draw " + std::to_string(steps.size()) + " steps of " + std::to_string(shape_of_view.rows) +
                     " x " + std::to_string(w) + " cells, " + stats::number_text(cells) + " in all; warpsim show draws at most " +
                     std::to_string(kShowMaxCells) + " cells at once: choose one step (--step N or final" +
                     (o.format == "html" ? ", with --format text, json or svg" : "") + ") or a smaller --k or --lanes");
  }

  const bool numeric = !o.weights_file.empty() || o.seed.has_value();
  Values<float> nums;
  if (!o.weights_file.empty()) {
    nums.rows = read_weight_rows(inputs, o.weights_file, w, k);
  } else if (o.seed || o.algorithm == "butterfly-search" || o.algorithm == "pprime" || (o.algorithm == "butterfly" && k % w != 0)) {
    nums.rows = generated_weight_rows(o.seed.value_or(1), w, k);
  }
  const auto variant = o.variant.value_or("standard") == "addsub" ? oracle::ButterflyVariant::AddSub : oracle::ButterflyVariant::Standard;

  Layout layout;
  layout.lanes = w;
  layout.steps = shape_of_view.steps;
  std::vector<Frame> shape;  // symbolic run: owners and changed cells
  std::vector<Frame> text;   // what to print: the numeric run, or the same
  const StepPlan plan = plan_for(steps, shape_of_view.steps);
  if (o.algorithm == "butterfly" && k % w != 0) {
    layout.algorithm = std::string("butterfly draw with a remnant, ") + oracle::variant_name(variant) +
                       " variant: each lane's p' as Alg. 8 stores it, then Alg. 9's search (seed 000)";
    layout.row_labels = remnant_row_labels(w, k);
    const int last_store = shape_of_view.steps - 2;
    shape = remnant_frames<Sym>(w, k, variant, {}, plan);
    if (numeric) text = remnant_frames<float>(w, k, variant, nums, plan);
    // The draw step: the final p' with each lane's drawn entry outlined.
    const StepPlan final_only = plan_for({last_store}, last_store + 1);
    Frame base_sym = remnant_frames<Sym>(w, k, variant, {}, final_only).back();
    Frame base_num = remnant_frames<float>(w, k, variant, nums, final_only).back();
    if (plan.wanted(last_store + 1)) {
      sim::GlobalMemory mem;
      const auto m = oracle::upload_matrix<float>(mem, flat_rows(nums.rows), w, k);
      const sim::Reg<float> u = view_uniforms(w, o.seed.value_or(1));
      sim::Warp warp({.width = w});
      const auto draws = oracle::butterfly_draw(warp, mem, m, 0, u, variant);
      std::string title = "Alg. 9: u' = sum * u; the block by binary search on the running sums, the butterfly search inside it, the "
                          "remnant searched where u' lies below the block. Outlined: the lane's block's running sum, or the remnant entry where "
                          "its search fell back. Draws:";
      base_sym.changed.clear();
      base_sym.highlighted.clear();
      for (int l = 0; l < w; ++l) {
        if (o.highlight && l != *o.highlight) continue;
        const int z = draws.index[static_cast<std::size_t>(l)];
        const int r = k % w;
        base_sym.highlighted.insert({z < r ? z : r + (z - r) / w * w + w - 1, l});
        title += std::string(" ") + sim::lane_letter(l) + " " + std::to_string(z) + (z < k % w ? " (remnant)" : "");
      }
      base_sym.step = base_num.step = last_store + 1;
      base_sym.title = base_num.title = title;
      if (!numeric) base_sym.title += " (the draws of weights from --seed 1)";
      shape.push_back(base_sym);
      if (numeric) text.push_back(base_num);
    }
  } else if (o.algorithm == "pprime") {
    layout.algorithm = "the one-array p' of each lane and its search (seed 000, Sec. 2)";
    const int levels = sim::log2_exact(k);
    for (int j = 0; j < k; ++j) layout.row_labels.push_back(std::to_string(j - (((j + 1) & -(j + 1)) - 1)) + ".." + std::to_string(j));
    shape = pprime_frames<Sym>(w, k, {}, plan);
    if (numeric) text = pprime_frames<float>(w, k, nums, plan);
    // The search on the built array: each step outlines the entry each lane
    // reads (p'[mid]); the title follows one lane.
    Frame base_sym = pprime_frames<Sym>(w, k, {}, plan_for({levels}, levels + 1)).back();
    Frame base_num = pprime_frames<float>(w, k, nums, plan_for({levels}, levels + 1)).back();
    base_sym.changed.clear();
    sim::Warp warp({.width = w});
    sim::LocalArray<float> p("p'", static_cast<std::size_t>(k));
    oracle::pprime_build(warp, k, [&](sim::Reg<float>& dst, int j) { for (int l = 0; l < w; ++l) dst[l] = nums(l, j); }, p);
    const sim::Reg<float> u = view_uniforms(w, o.seed.value_or(1));
    const int watched = o.highlight.value_or(0);
    std::vector<std::set<Cell>> reads(static_cast<std::size_t>(levels));
    std::vector<std::string> notes(static_cast<std::size_t>(levels));
    const auto z = oracle::pprime_search(warp, p, k, u, [&](int step, int lane, int mid, bool left) {
      reads[static_cast<std::size_t>(step)].insert({mid, lane});
      if (lane == watched) {
        notes[static_cast<std::size_t>(step)] = std::string("lane ") + sim::lane_letter(lane) + ": mid = " + std::to_string(mid) +
                                                (left ? ", u' < compareValue: k := mid" : ", u' >= compareValue: j := mid + 1, lowValue := compareValue");
      }
    });
    for (int s = 0; s < levels; ++s) {
      if (!plan.wanted(levels + 1 + s)) continue;
      Frame fs = base_sym, fn = base_num;
      fs.step = fn.step = levels + 1 + s;
      fs.changed = reads[static_cast<std::size_t>(s)];
      for (const auto& c : fs.changed)
        if (c.second == watched) fs.highlighted.insert(c);
      fs.title = fn.title = "search step " + std::to_string(s) + ": compareValue = lowValue + p'[mid] (marked: each lane's p'[mid]); " +
                            notes[static_cast<std::size_t>(s)] +
                            (s + 1 == levels ? std::string("; lane ") + sim::lane_letter(watched) + " draws " + std::to_string(z[watched]) : "") +
                            (numeric ? "" : " (the search on weights from --seed 1)");
      shape.push_back(fs);
      if (numeric) text.push_back(fn);
    }
  } else if (o.algorithm == "butterfly") {
    layout.algorithm = std::string("butterfly table, ") + oracle::variant_name(variant) + " variant (seed 000, Sec. 3, Alg. 8)";
    layout.row_labels = butterfly_row_labels(w);
    shape = butterfly_frames<Sym>(w, k, variant, {}, plan);
    if (numeric) text = butterfly_frames<float>(w, k, variant, nums, plan);
  } else if (o.algorithm == "transpose") {
    layout.algorithm = "register transpose (seed 000, Fig. 2)";
    shape = transpose_frames<Sym>(w, {}, plan);
    if (numeric) text = transpose_frames<float>(w, nums, plan);
  } else if (o.algorithm == "prefix") {
    layout.algorithm = "per-lane prefix sums, the baseline (seed 000, Alg. 1)";
    shape = prefix_frames<Sym>(w, k, {}, plan);
    if (numeric) text = prefix_frames<float>(w, k, nums, plan);
  } else if (o.algorithm == "butterfly-search") {
    layout.algorithm = std::string("butterfly search, ") + oracle::variant_name(variant) + " variant (seed 000, Alg. 10)";
    layout.row_labels = butterfly_row_labels(w);
    const StepPlan table_only = plan_for({w - 1}, w);  // the finished table: the last of the block's W steps
    auto table_sym = butterfly_frames<Sym>(w, k, variant, {}, table_only);
    auto table_num = butterfly_frames<float>(w, k, variant, nums, table_only);
    Frame base_sym = table_sym.back(), base_num = table_num.back();
    base_sym.changed.clear();
    base_sym.step = base_num.step = 0;
    // Run the oracle's draw on this block, watching which entries lanes take.
    sim::GlobalMemory mem;
    const auto m = oracle::upload_matrix<float>(mem, flat_rows(nums.rows), w, k);
    const sim::Reg<float> u = view_uniforms(w, o.seed.value_or(1));
    std::vector<std::set<Cell>> picks(static_cast<std::size_t>(sim::log2_exact(w)));
    std::vector<Cell> watched_pick(picks.size(), Cell{-1, -1});
    std::vector<std::string> notes(picks.size());
    const int watched = o.highlight.value_or(0);
    sim::Warp warp({.width = w});
    const auto draws = oracle::butterfly_draw(warp, mem, m, 0, u, variant, {}, [&](int step, int lane, int row, int from) {
      picks[static_cast<std::size_t>(step)].insert({row, from});
      if (lane == watched) {
        watched_pick[static_cast<std::size_t>(step)] = {row, from};
        notes[static_cast<std::size_t>(step)] = "lane " + std::string(1, sim::lane_letter(lane)) + " takes row " +
                                                std::to_string(row) + " from lane " + std::string(1, sim::lane_letter(from));
      }
    });
    base_sym.title = base_num.title = "the table; u' = sum * u, lane " + std::string(1, sim::lane_letter(watched)) +
                                      " draws " + std::to_string(draws.index[static_cast<std::size_t>(watched)]);
    std::vector<Frame> all_sym{base_sym}, all_num{base_num};
    for (std::size_t s = 0; s < picks.size(); ++s) {
      Frame fs = base_sym, fn = base_num;
      fs.step = fn.step = static_cast<int>(s) + 1;
      fs.changed = picks[s];
      fs.highlighted = {watched_pick[s]};
      fs.title = fn.title = "search step " + std::to_string(s) + ": every lane takes one entry (outlined); " + notes[s];
      all_sym.push_back(fs);
      all_num.push_back(fn);
    }
    for (int s : steps) {
      shape.push_back(all_sym[static_cast<std::size_t>(s)]);
      text.push_back(all_num[static_cast<std::size_t>(s)]);
    }
  } else {
    throw UsageError("unknown algorithm '" + printable(o.algorithm) + "' (butterfly, butterfly-search, transpose, prefix)");
  }
  if (text.empty()) text = shape;
  if (shape.size() != steps.size() || text.size() != steps.size()) throw std::logic_error("show: the view drew other steps than asked");

  for (std::size_t i = 0; i < shape.size(); ++i) {
    Frame f = text[i];
    f.owner = shape[i].owner;
    f.changed = shape[i].changed;
    f.highlighted = shape[i].highlighted;  // set by views that pick cells themselves
    if (o.highlight && f.highlighted.empty()) {
      for (std::size_t r = 0; r < f.owner.size(); ++r)
        for (std::size_t l = 0; l < f.owner[r].size(); ++l)
          if (f.owner[r][l] == *o.highlight) f.highlighted.insert({static_cast<int>(r), static_cast<int>(l)});
    }
    layout.frames.push_back(std::move(f));
  }

  return render(layout, o, out);
}

}  // namespace warpsim::cli
