#include "cli/sum_tree_view.hpp"

#include <cmath>
#include <span>
#include <string>

#include "cli/errors.hpp"
#include "oracle/sum_tree_draw.hpp"
#include "stats/input_checks.hpp"  // number_text

namespace warpsim::cli {

Layout sum_tree_layout(const std::vector<float>& weights, std::uint64_t seed, std::optional<int> highlight) {
  namespace st = oracle::sum_tree;
  const std::size_t k = weights.size();
  if (k == 0 || k > kSumTreeViewMaxItems)
    throw UsageError("the sum-tree view takes 1 to " + std::to_string(kSumTreeViewMaxItems) + " weights, got " + std::to_string(k));
  bool any = false;
  for (std::size_t i = 0; i < k; ++i) {
    const float x = weights[i];
    if (!std::isfinite(x) || x < 0)
      throw UsageError("weight " + std::to_string(i) + " is " + stats::number_text(x) + ": the sum tree takes finite weights >= 0");
    any = any || x > 0;
  }
  if (!any) throw UsageError("every weight is 0: there is nothing to draw");
  constexpr int kDraws = st::kLanes;
  if (highlight && (*highlight < 0 || *highlight >= kDraws)) throw UsageError("--highlight must name a draw from 0 to 31");

  const std::size_t segments = st::segments_of<float>(k);
  int levels = 0;
  while ((std::size_t{1} << levels) < segments) ++levels;
  const int depths = levels + 7;  // the tree's levels, five halvings of the lanes, the vector, the element

  // Run the model, keeping each draw's place at each depth.
  std::vector<std::vector<std::int64_t>> at(static_cast<std::size_t>(depths), std::vector<std::int64_t>(kDraws, -1));
  sim::GlobalMemory mem;
  const auto w = oracle::upload_matrix<float>(mem, weights, 1, static_cast<int>(k));
  const auto drawn = st::draw_on_model<float>(mem, w, seed, kDraws, false, 1, [&](int depth, const char*, int lane, std::int64_t node) {
    at[static_cast<std::size_t>(depth)][static_cast<std::size_t>(lane)] = node;
  });
  const double root = st::PairTree(st::segment_sums<float>(std::span<const float>(weights))).root();

  Layout layout;
  layout.algorithm = "the sum tree's descent, 32 draws of one row of " + std::to_string(k) + " weights (" + std::to_string(segments) +
                     " segments of 4,096; sum_tree_draw.hpp on the warp model)";
  layout.lanes = kDraws;
  for (int s = 0; s < kDraws; ++s) layout.column_labels.push_back("d" + std::to_string(s));
  layout.owners = static_cast<int>(std::min<std::size_t>(segments, 64));
  for (int h = levels; h > 0; --h) layout.row_labels.push_back("tree " + std::to_string(h));
  for (int half = st::kLanes / 2; half >= 1; half /= 2) layout.row_labels.push_back("lanes/" + std::to_string(half));
  layout.row_labels.push_back("vector");
  layout.row_labels.push_back("element");
  layout.steps = depths + 1;

  auto cell = [&](int depth, int s) -> std::string {
    const std::int64_t node = at[static_cast<std::size_t>(depth)][static_cast<std::size_t>(s)];
    if (depth < levels) {  // a node of the row tree: the segments under it
      const std::int64_t span = std::int64_t{1} << (levels - 1 - depth);
      return span == 1 ? "s" + std::to_string(node) : "s" + std::to_string(node * span) + "-" + std::to_string(node * span + span - 1);
    }
    if (depth < levels + 5) {
      const int half = st::kLanes >> (depth - levels + 1);
      return half == 1 ? "L" + std::to_string(node) : "L" + std::to_string(node) + "-" + std::to_string(node + half - 1);
    }
    if (depth == levels + 5) return "j" + std::to_string(node);
    return std::to_string(node);
  };
  const int watched = highlight.value_or(-1);
  Frame f;
  f.grid.assign(static_cast<std::size_t>(depths), std::vector<std::string>(kDraws, "."));
  f.owner.assign(static_cast<std::size_t>(depths), std::vector<int>(kDraws, -1));
  f.title = "the row's tree: root " + stats::number_text(root) + " over " + std::to_string(segments) + " segment" + (segments == 1 ? "" : "s") +
            (levels ? " (" + std::to_string(levels) + " levels)" : " (no levels: one segment)") + "; draw s: t = u(seed " +
            std::to_string(seed) + ", row 0, s) * root";
  layout.frames.push_back(f);
  const auto names = layout.row_labels;
  for (int d = 0; d < depths; ++d) {
    f.step = d + 1;
    f.changed.clear();
    for (int s = 0; s < kDraws; ++s) {
      f.grid[static_cast<std::size_t>(d)][static_cast<std::size_t>(s)] = cell(d, s);
      const std::int64_t final_element = drawn.index[static_cast<std::size_t>(s)];
      f.owner[static_cast<std::size_t>(d)][static_cast<std::size_t>(s)] = static_cast<int>((final_element / static_cast<std::int64_t>(st::kSegment<float>)) % 64);
      f.changed.insert({d, s});
      if (s == watched) f.highlighted.insert({d, s});
    }
    std::string what = d < levels    ? "down the row tree: left if t < the left child's sum, else right with t less it"
                       : d < levels + 5 ? "down the segment's 32 lane sums by pairs (the same rule)"
                       : d == levels + 5 ? "along the lane's 32 vectors: the last j with q_j > 0 and t >= the sum before it"
                                         : "inside the vector's 4 weights by pairs: the drawn column";
    f.title = names[static_cast<std::size_t>(d)] + ": " + what;
    if (watched >= 0) f.title += "; draw " + std::to_string(watched) + " at " + cell(d, watched);
    layout.frames.push_back(f);
  }
  return layout;
}

}  // namespace warpsim::cli
