// Text picture of a register array across a warp, as the seeds draw it:
// one row per register (row 0 first), one column per lane (A, B, C, ...).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/reg.hpp"
#include "sim/value_format.hpp"

namespace warpsim::sim {

// cells[r][l] is the text of register r in lane l.
using RegisterGrid = std::vector<std::vector<std::string>>;

template <class T, class Format>
RegisterGrid to_grid(const RegArray<T>& regs, int width, Format&& format) {
  RegisterGrid g(static_cast<std::size_t>(regs.size()));
  for (int r = 0; r < regs.size(); ++r) {
    for (int l = 0; l < width; ++l) g[static_cast<std::size_t>(r)].push_back(format(regs[r][l]));
  }
  return g;
}

template <class T>
RegisterGrid to_grid(const RegArray<T>& regs, int width) {
  return to_grid(regs, width, [](const T& v) { return format_value(v); });
}

// Cells (register, lane) whose text differs between two grids of one shape.
std::set<std::pair<int, int>> changed_cells(const RegisterGrid& before, const RegisterGrid& after);

// Aligned columns headed by lane letters; cells in `marked` get a '*'.
std::string format_grid(const RegisterGrid& grid, const std::set<std::pair<int, int>>& marked = {});

}  // namespace warpsim::sim
