// `warpsim show rejection`: Bringmann and Larsen's draw on a warp, iteration
// by iteration (oracle/rejection/bringmann_larsen.hpp's draw_on_warp run on
// the warp model): a row a lane, a column an iteration of the warp's loop
// over its calls. Each attempt shows its slot k in the array A (read from
// the bit array and its rank), the item there, whether k is the item's
// first slot (accepted only below its threshold) and the outcome; a lane
// with nothing to do that iteration is idle ("."). Uncached (seed 004's
// while-any loop) or pre-cached (a lane whose draw is accepted works on its
// next call's draw, marked "+"), as seed 004's model counts them. Cells are
// coloured by item with the one colour rule.
#pragma once

#include <cstdint>
#include <vector>

#include "cli/layout_frames.hpp"

namespace warpsim::cli {

// The most items (the same bound as the alias views) and iterations drawn.
inline constexpr std::size_t kRejectionViewMaxItems = 512;
inline constexpr int kRejectionViewMaxIterations = 256;

// `calls` calls of `lanes` draws each (draw d = c lanes + l), Philox seed `seed`.
// Throws UsageError for bad weights, too many items, or a run past the limit.
Layout rejection_layout(const std::vector<double>& weights, int lanes, bool cached, std::uint64_t seed, int calls);

}  // namespace warpsim::cli
