// `warpsim show alias`: an alias-table construction step by step, as the
// other views show a warp's registers -- one row per table row, two cells
// (the item's own share, its alias's share), coloured by item with the one
// colour rule (cli/colour.hpp) and drawn by the same renderers (text, SVG,
// HTML, JSON). Step 0 is the partition (each item's mass against the
// bucket: light or heavy); each step after writes one row, in the order the
// construction writes them; the last step fills the rows that stay full
// (Sec. 2.4, Fig. 2.1's picture).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/layout_frames.hpp"

namespace warpsim::cli {

// The most items the view draws (every step of an HTML page is N + 2 frames
// of N rows).
inline constexpr std::size_t kAliasViewMaxItems = 512;

// method: walker | vose | sweep | psa | psa+. Throws UsageError for bad
// weights (NaN, negative, infinite, all zero) or more than the limit.
Layout alias_layout(const std::vector<double>& weights, const std::string& method, std::size_t splits, std::size_t group);

// `warpsim show alias-sample`: draws from the table alias_layout builds, run
// on the warp model. Without section_rows the baseline (sample_warp.hpp): a
// warp's `lanes` draws, a row a draw, its columns filled a step each (the
// row k, its threshold, the coin, the item). With it, sectioned sampling
// (sectioned_warp.hpp): `draws` draws split down the tree of sections by
// exact binomials, a depth a step, then each section's draws (a column a
// section). Throws UsageError as alias_layout does, and for more than 512
// sections.
Layout alias_sample_layout(const std::vector<double>& weights, const std::string& method, std::size_t splits, std::size_t group, int lanes,
                           std::uint64_t seed, std::optional<std::size_t> section_rows, std::uint64_t draws);

}  // namespace warpsim::cli
