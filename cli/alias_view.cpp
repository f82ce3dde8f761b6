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
  for (const std::uint32_t r : order) {
    Frame g = frames.back();
    g.changed.clear();
    const double own = static_cast<double>(t.keep[r]) / cap;
    g.grid[r][0] = std::to_string(r) + ": " + share(own);
    g.grid[r][1] = own < 1 ? std::to_string(t.alias[r]) + ": " + share(1 - own) : "";
    g.owner[r] = {static_cast<int>(r), own < 1 ? static_cast<int>(t.alias[r]) : -1};
    g.changed = {{static_cast<int>(r), 0}, {static_cast<int>(r), 1}};
    g.title = "row " + std::to_string(r) + ": item " + std::to_string(r) + " keeps " + share(own) +
              (own < 1 ? ", item " + std::to_string(t.alias[r]) + " fills " + share(1 - own) : ", the whole bucket");
    written[r] = true;
    frames.push_back(std::move(g));
  }
  Frame last = frames.back();
  last.changed.clear();
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
