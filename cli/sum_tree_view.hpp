// `warpsim show sum-tree`: one warp's 32 draws from one row going down the
// sum tree (oracle/sum_tree_draw.hpp run on the warp model): a row a depth
// (the row tree's levels over the segments, the segment's lanes halved five
// times, the lane's vector, the element), a column a draw. Step 0 is the
// built tree; each step after fills one depth: where every draw is there.
// Cells are coloured by the segment the draw ends in, drawn by the same
// renderers as the other views.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cli/layout_frames.hpp"

namespace warpsim::cli {

// The most weights the view takes (its grid does not grow with K: a row's
// tree has at most 8 levels over 2^20 / 4,096 segments).
inline constexpr std::size_t kSumTreeViewMaxItems = std::size_t{1} << 20;

// Draws 0..31 of row 0 under `seed` (rng/'s uniform for (seed, row 0, draw
// s), as `warpsim validate --builtin sum-tree` draws). `highlight`: the draw
// whose path is outlined. Throws UsageError for bad weights or too many.
Layout sum_tree_layout(const std::vector<float>& weights, std::uint64_t seed, std::optional<int> highlight);

}  // namespace warpsim::cli
