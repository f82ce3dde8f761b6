#include "cli/alias_view.hpp"

#include <cstdio>
#include <stdexcept>

#include "cli/errors.hpp"
#include "oracle/alias/psa_plus.hpp"
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

Layout alias_layout(const std::vector<double>& weights, const std::string& method, std::size_t splits, std::size_t group) {
  using namespace oracle::alias;
  const std::size_t n = weights.size();
  if (n > kAliasViewMaxItems) {
    throw UsageError("show alias draws at most " + std::to_string(kAliasViewMaxItems) + " items; the weights hold " + std::to_string(n) +
                     " (warpsim alias build prints any table)");
  }
  Units u;
  try {
    u = to_units<double>(weights);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("the weights: ") + e.what());
  }
  WriteOrder order;
  PsaPlusStats st;
  const Table t = method == "walker" ? walker(u, &order)
                  : method == "vose" ? vose(u, &order)
                  : method == "sweep" ? sweep(u, &order)
                  : method == "psa"   ? psa(u, splits, {}, &order)
                                      : psa_plus(u, group, splits, {}, &st, &order);
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
