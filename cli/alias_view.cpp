#include "cli/alias_view.hpp"

#include <cstdio>
#include <stdexcept>

#include "cli/errors.hpp"
#include "oracle/alias/psa_plus.hpp"
#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/sectioned_warp.hpp"
#include "oracle/alias/sweep.hpp"
#include "oracle/alias/vose.hpp"
#include "oracle/alias/walker.hpp"

namespace warpsim::cli {

namespace {

std::string share(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// PSA's partition and splits as a frame: each listed item's place on l or h
// with its prefix sum (D or E, in buckets), the items each section starts
// from highlighted, the splits and their spills in the title.
cli::Frame split_frame(const cli::Frame& prev, const oracle::alias::Partition& p, oracle::alias::u128 cap, std::size_t sections) {
  using namespace oracle::alias;
  const double c = static_cast<double>(cap);
  auto buckets = [&](u128 x) { return share(static_cast<double>(x) / c); };
  cli::Frame f = prev;
  f.changed.clear();
  for (std::size_t a = 0; a < p.light.size(); ++a) {
    const int r = static_cast<int>(p.light[a]);
    f.grid[static_cast<std::size_t>(r)][0] = std::to_string(r) + ": l" + std::to_string(a) + " D=" + buckets(p.deficit[a + 1]);
    f.changed.insert({r, 0});
  }
  for (std::size_t b = 0; b < p.heavy.size(); ++b) {
    const int r = static_cast<int>(p.heavy[b]);
    f.grid[static_cast<std::size_t>(r)][0] = std::to_string(r) + ": h" + std::to_string(b) + " E=" + buckets(p.excess[b + 1]);
    f.changed.insert({r, 0});
  }
  const std::size_t n = p.size();
  sections = std::max<std::size_t>(1, std::min(sections, std::max<std::size_t>(n, 1)));
  std::string list;
  for (std::size_t q = 0; q < sections && n > 0; ++q) {
    const auto s = split(p, q * n / sections);
    if (q) list += "; ";
    list += "(" + std::to_string(s.i) + ", " + std::to_string(s.j);
    if (s.j < p.heavy.size()) {
      list += ", spill " + buckets(p.excess[s.j + 1] + cap - p.deficit[s.i]);
      f.highlighted.insert({static_cast<int>(p.heavy[s.j]), 0});
    }
    if (s.i < p.light.size()) f.highlighted.insert({static_cast<int>(p.light[s.i]), 0});
    list += ")";
  }
  f.title = "the lists l (" + std::to_string(p.light.size()) + ") and h (" + std::to_string(p.heavy.size()) +
            ") with prefix sums D and E in buckets; the sections start at (i, j) = " + (n ? list : "nothing left");
  return f;
}

}  // namespace

// The table the views show, built by `method` from the weights in exact
// units, with the order its rows were written in.
namespace {

struct ViewTable {
  oracle::alias::Units u;
  oracle::alias::WriteOrder order;
  oracle::alias::PsaPlusStats st;
  oracle::alias::Table t;
};

ViewTable view_table(const std::vector<double>& weights, const std::string& method, std::size_t splits, std::size_t group) {
  using namespace oracle::alias;
  const std::size_t n = weights.size();
  if (n > kAliasViewMaxItems) {
    throw UsageError("show alias draws at most " + std::to_string(kAliasViewMaxItems) + " items; the weights hold " + std::to_string(n) +
                     " (warpsim alias build prints any table)");
  }
  ViewTable v;
  try {
    v.u = to_units<double>(weights);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("the weights: ") + e.what());
  }
  v.t = method == "walker" ? walker(v.u, &v.order)
        : method == "vose" ? vose(v.u, &v.order)
        : method == "sweep" ? sweep(v.u, &v.order)
        : method == "psa"   ? psa(v.u, splits, {}, &v.order)
                            : psa_plus(v.u, group, splits, {}, &v.st, &v.order);
  return v;
}

}  // namespace

Layout alias_layout(const std::vector<double>& weights, const std::string& method, std::size_t splits, std::size_t group) {
  using namespace oracle::alias;
  const std::size_t n = weights.size();
  const ViewTable v = view_table(weights, method, splits, group);
  const Units& u = v.u;
  const WriteOrder& order = v.order;
  const PsaPlusStats& st = v.st;
  const Table& t = v.t;
  const auto cap = static_cast<double>(t.capacity);
  Layout layout;
  layout.algorithm = "alias table by " + method + " (seed 001, Sec. 2.4" +
                     (method == "psa" ? "; " + std::to_string(splits) + " sections" : method == "psa+" ? "; groups of " + std::to_string(group) + ", one lane each" : "") + ")";
  layout.lanes = 2;
  layout.column_labels = {"own share", "alias's share"};
  layout.owners = static_cast<int>(n);
  for (std::size_t k = 0; k < n; ++k) layout.row_labels.push_back("row " + std::to_string(k));

  Frame f;
  f.grid.assign(n, {"", ""});
  f.owner.assign(n, {-1, -1});
  for (std::size_t k = 0; k < n; ++k) {
    const double m = static_cast<double>(n) * static_cast<double>(u.units[k]) / cap;  // mass in buckets
    f.grid[k][0] = std::to_string(k) + ": " + share(m) + (m > 1 ? " heavy" : " light");
    f.owner[k][0] = static_cast<int>(k);
  }
  f.title = "the items' weights in buckets of W/N: light (at most 1) and heavy";
  std::vector<Frame> frames{f};
  std::vector<bool> written(n, false);
  // What each item has left to give (in buckets), as the rows are written.
  std::vector<double> left(n);
  for (std::size_t k = 0; k < n; ++k) left[k] = static_cast<double>(n) * static_cast<double>(u.units[k]) / cap;
  const bool psa_like = method == "psa" || method == "psa+";
  const std::size_t split_at = method == "psa" ? 0 : method == "psa+" ? st.greedy_rows : order.size() + 1;
  for (std::size_t step = 0; step <= order.size(); ++step) {
    if (psa_like && step == split_at) {
      frames.push_back(method == "psa" ? split_frame(frames.back(), partition(u), t.capacity, splits)
                                       : split_frame(frames.back(), st.leftovers, t.capacity, splits));
      if (method == "psa+") frames.back().title = "after " + std::to_string(st.greedy_rows) + " greedy rows, " + frames.back().title;
    }
    if (step == order.size()) break;
    const std::uint32_t r = order[step];
    Frame g = frames.back();
    g.changed.clear();
    g.highlighted.clear();
    const double own = static_cast<double>(t.keep[r]) / cap;
    g.grid[r][0] = std::to_string(r) + ": " + share(own);
    g.grid[r][1] = own < 1 ? std::to_string(t.alias[r]) + ": " + share(1 - own) : "";
    g.owner[r] = {static_cast<int>(r), own < 1 ? static_cast<int>(t.alias[r]) : -1};
    g.changed = {{static_cast<int>(r), 0}, {static_cast<int>(r), 1}};
    std::string spill;
    if (own < 1) {
      left[t.alias[r]] -= 1 - own;
      spill = " and has " + share(left[t.alias[r]]) + " left";
    }
    g.title = "row " + std::to_string(r) + ": item " + std::to_string(r) + " keeps " + share(own) +
              (own < 1 ? ", item " + std::to_string(t.alias[r]) + " fills " + share(1 - own) + spill : ", the whole bucket");
    written[r] = true;
    frames.push_back(std::move(g));
  }
  Frame last = frames.back();
  last.changed.clear();
  last.highlighted.clear();
  for (std::size_t k = 0; k < n; ++k) {
    if (written[k]) continue;  // never written: the bucket is its own item's, whole
    last.grid[k] = {std::to_string(k) + ": 1", ""};
    last.owner[k] = {static_cast<int>(k), -1};
    last.changed.insert({static_cast<int>(k), 0});
    last.changed.insert({static_cast<int>(k), 1});
  }
  const std::size_t aliased = rows_with_alias(t);
  last.title = "the table: " + std::to_string(aliased) + " rows with an alias, " + std::to_string(n - aliased) +
               " keep their whole bucket; exact (" + (check_table(t, u).empty() ? "every item's mass is N u_i" : "CHECK FAILED") + ")";
  frames.push_back(std::move(last));
  for (std::size_t s = 0; s < frames.size(); ++s) frames[s].step = static_cast<int>(s);
  layout.steps = static_cast<int>(frames.size());
  layout.frames = std::move(frames);
  return layout;
}

}  // namespace warpsim::cli

namespace warpsim::cli {

Layout alias_sample_layout(const std::vector<double>& weights, const std::string& method, std::size_t splits, std::size_t group, int lanes,
                           std::uint64_t seed, std::optional<std::size_t> section_rows, std::uint64_t draws) {
  using namespace oracle::alias;
  const ViewTable v = view_table(weights, method, splits, group);
  const Table& t = v.t;
  const std::size_t n = t.size();
  const double two64 = 0x1p64;
  Layout layout;
  layout.owners = static_cast<int>(n);
  std::vector<Frame> frames;

  if (!section_rows) {
    // The baseline (Sec. 2.4, 3.4.1): a warp's W draws, a lane a draw.
    layout.algorithm = "alias sampling, the baseline: " + std::to_string(lanes) + " draws from the table by " + method + " of " +
                       std::to_string(n) + " rows (seed 001, Sec. 2.4; sample_warp.hpp on the warp model)";
    layout.lanes = 4;
    layout.column_labels = {"row k", "keep", "coin", "item"};
    for (int l = 0; l < lanes; ++l) layout.row_labels.push_back(std::string("draw ") + std::to_string(l));
    sim::GlobalMemory mem;
    const auto dt = upload_table(mem, t);
    sim::Warp warp({.width = lanes});
    struct Seen {
      std::uint64_t row, threshold, lo;
      std::uint32_t item;
    };
    std::vector<Seen> seen(static_cast<std::size_t>(lanes));
    sample_warp(warp, mem, dt, seed, 0, [&](int l, std::uint64_t row, std::uint64_t th, std::uint64_t lo, std::uint32_t item) {
      seen[static_cast<std::size_t>(l)] = {row, th, lo, item};
    });
    Frame f;
    f.grid.assign(static_cast<std::size_t>(lanes), std::vector<std::string>(4, "."));
    f.owner.assign(static_cast<std::size_t>(lanes), std::vector<int>(4, -1));
    f.title = "draw d takes the 128 bits (hi, lo) of Philox (seed " + std::to_string(seed) + ", stream d, 0); the table: " +
              std::to_string(rows_with_alias(t)) + " of " + std::to_string(n) + " rows with an alias";
    frames.push_back(f);
    const char* titles[4] = {"k <- floor(hi N / 2^64): the row, each exactly 1 / N",
                             "the row's threshold, floor(keep 2^64 / U): the share of the row its own item keeps",
                             "lo / 2^64 against it: below keeps the row's item, at or past takes the alias",
                             "the item drawn: k, or the row's alias (one more load, only where the coin says so)"};
    for (int c = 0; c < 4; ++c) {
      f.changed.clear();
      for (int l = 0; l < lanes; ++l) {
        const Seen& x = seen[static_cast<std::size_t>(l)];
        const bool past = x.lo >= x.threshold;
        std::string text;
        int owner = static_cast<int>(x.row);
        if (c == 0) text = std::to_string(x.row);
        if (c == 1) text = share(static_cast<double>(x.threshold) / two64);
        if (c == 2) text = share(static_cast<double>(x.lo) / two64) + (past ? " past" : " keep");
        if (c == 3) text = std::to_string(x.item) + (past ? " (alias)" : ""), owner = static_cast<int>(x.item);
        f.grid[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)] = text;
        f.owner[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)] = owner;
        f.changed.insert({l, c});
      }
      f.title = titles[c];
      frames.push_back(f);
    }
  } else {
    // Sectioned sampling (Sec. 3.4.2-3.4.4): the draws split down a tree of
    // sections by exact binomials, then each section's draws from its rows.
    const int depth = section_depth(n, *section_rows);
    const auto nodes = section_nodes(n, *section_rows);
    const std::size_t sections = nodes.size();
    if (sections > 512) throw UsageError("--section-rows " + std::to_string(*section_rows) + " makes " + std::to_string(sections) + " sections; the view draws at most 512");
    layout.algorithm = "sectioned alias sampling: " + std::to_string(draws) + " draws split over " + std::to_string(sections) +
                       " sections of at most " + std::to_string(*section_rows) + " rows (seed 001, Sec. 3.4; sectioned_warp.hpp on the warp model)";
    layout.lanes = static_cast<int>(sections);
    for (const auto& s : nodes) layout.column_labels.push_back(s.rows ? "rows " + std::to_string(s.first_row) + "-" + std::to_string(s.first_row + s.rows - 1) : "empty");
    for (int d = 0; d <= depth; ++d) layout.row_labels.push_back("depth " + std::to_string(d));
    layout.row_labels.push_back("draws");
    // (depth, node) -> (draws, to left), as every warp on the path drew it
    std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> split(static_cast<std::size_t>(depth));
    for (int d = 0; d < depth; ++d) split[static_cast<std::size_t>(d)].assign(std::size_t{1} << d, {0, 0});
    std::vector<std::vector<std::uint32_t>> drawn(sections);
    SectionedObserver obs;
    obs.split = [&](std::uint64_t, int d, std::uint64_t i, std::uint64_t c, std::uint64_t left) {
      auto& node = split[static_cast<std::size_t>(d)][static_cast<std::size_t>(i)];
      if ((node.first || node.second) && node != std::make_pair(c, left)) throw std::logic_error("show: two warps drew one node's split apart");
      node = {c, left};
    };
    obs.draw = [&](std::uint64_t j, std::uint64_t, std::uint32_t item) { drawn[static_cast<std::size_t>(j)].push_back(item); };
    sample_sectioned_on_model(t, *section_rows, draws, seed, lanes, 0, obs);
    const std::size_t rows = static_cast<std::size_t>(depth) + 2;
    Frame f;
    f.grid.assign(rows, std::vector<std::string>(sections, ""));
    f.owner.assign(rows, std::vector<int>(sections, -1));
    auto node_text = [&](int d, std::size_t j) {
      const std::uint64_t i = j >> (depth - d);
      const std::uint64_t c = d == 0 ? draws : [&] {
        const auto& parent = split[static_cast<std::size_t>(d - 1)][static_cast<std::size_t>(i >> 1)];
        return (i & 1) ? parent.first - parent.second : parent.second;
      }();
      return std::to_string(c);
    };
    for (std::size_t j = 0; j < sections; ++j) f.grid[0][j] = node_text(0, j);
    f.changed.clear();
    f.title = "the batch: " + std::to_string(draws) + " draws at the root, all " + std::to_string(n) + " rows";
    frames.push_back(f);
    for (int d = 1; d <= depth; ++d) {
      f.changed.clear();
      for (std::size_t j = 0; j < sections; ++j) {
        f.grid[static_cast<std::size_t>(d)][j] = node_text(d, j);
        f.changed.insert({d, static_cast<int>(j)});
      }
      f.title = "depth " + std::to_string(d) + ": each node's draws split Binomial(c, left rows / rows), node 2^d + i's own uniforms";
      frames.push_back(f);
    }
    f.changed.clear();
    for (std::size_t j = 0; j < sections; ++j) {
      std::string list;
      for (std::size_t q = 0; q < drawn[j].size() && q < 6; ++q) list += (q ? "," : "") + std::to_string(drawn[j][q]);
      if (drawn[j].size() > 6) list += ",...";
      f.grid[rows - 1][j] = list;
      if (!drawn[j].empty()) f.owner[rows - 1][j] = static_cast<int>(drawn[j].front());
      f.changed.insert({static_cast<int>(rows - 1), static_cast<int>(j)});
    }
    f.title = "each section's draws from its own rows (a row exactly uniform, the threshold's coin exactly t / 2^64), grouped by section";
    frames.push_back(f);
  }
  for (std::size_t s = 0; s < frames.size(); ++s) frames[s].step = static_cast<int>(s);
  layout.steps = static_cast<int>(frames.size());
  layout.frames = std::move(frames);
  return layout;
}

}  // namespace warpsim::cli
