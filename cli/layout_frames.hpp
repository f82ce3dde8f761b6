// Step-by-step pictures of register layouts: a sequence of frames, each a
// grid of register rows x lanes, with the cells that changed on that step,
// the cells to highlight (one lane's tree, as in seed 000, Figs. 5-7), and
// each cell's owner lane for colouring.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/register_grid.hpp"

namespace warpsim::cli {

using Cell = std::pair<int, int>;  // (register row, lane)

struct Frame {
  int step = 0;  // its place among all the view's steps
  std::string title;
  sim::RegisterGrid grid;
  std::vector<std::vector<int>> owner;  // owner lane of each cell, -1 if none
  std::set<Cell> changed;
  std::set<Cell> highlighted;
};

struct Layout {
  std::string algorithm;
  int lanes = 0;                        // columns (lanes A, B, ... unless column_labels says otherwise)
  std::vector<std::string> column_labels;  // empty: lane letters
  int owners = 0;                       // how many owners the colours spread over (0: one per lane)
  int steps = 0;                        // how many steps the view has in all (step 0 is the start)
  std::vector<std::string> row_labels;  // one per register row
  std::vector<Frame> frames;            // the steps drawn, in order (all of them for HTML)

  std::string column_label(int c) const {
    return c < static_cast<int>(column_labels.size()) ? column_labels[static_cast<std::size_t>(c)] : std::string(1, static_cast<char>('A' + c % 26));
  }
  int owner_count() const { return owners > 0 ? owners : lanes; }
};

// Each renders every frame of `layout`; SVG draws one picture and needs
// exactly one frame; HTML needs all of them (it steps through them). Colours
// follow one rule (cli/colour.hpp); text shows them as terminal backgrounds
// when `colour` is set.
std::string render_text(const Layout& layout, bool colour = false);
std::string render_json(const Layout& layout);
std::string render_svg(const Layout& layout);
std::string render_html(const Layout& layout);

// Text made safe inside SVG or HTML (<, >, &, ").
std::string escape_xml(const std::string& s);

}  // namespace warpsim::cli
