#include "sim/register_grid.hpp"

#include <algorithm>

#include "sim/lane_mask.hpp"

namespace warpsim::sim {

std::set<std::pair<int, int>> changed_cells(const RegisterGrid& before, const RegisterGrid& after) {
  std::set<std::pair<int, int>> out;
  for (std::size_t r = 0; r < std::min(before.size(), after.size()); ++r) {
    for (std::size_t l = 0; l < std::min(before[r].size(), after[r].size()); ++l) {
      if (before[r][l] != after[r][l]) out.insert({static_cast<int>(r), static_cast<int>(l)});
    }
  }
  return out;
}

std::string format_grid(const RegisterGrid& grid, const std::set<std::pair<int, int>>& marked) {
  std::size_t cell = 1;
  std::size_t lanes = 0;
  for (const auto& row : grid) {
    lanes = std::max(lanes, row.size());
    for (const auto& c : row) cell = std::max(cell, c.size());
  }
  const bool any_marks = !marked.empty();
  const std::size_t col = cell + (any_marks ? 1 : 0);
  const std::string label_pad(5, ' ');
  auto pad = [](std::string s, std::size_t w) {
    s.insert(0, w > s.size() ? w - s.size() : 0, ' ');
    return s;
  };
  std::string out = "reg" + std::string(2, ' ');
  for (std::size_t l = 0; l < lanes; ++l) {
    out += ' ';
    out += pad(std::string(1, lane_letter(static_cast<int>(l))), col);
  }
  out += '\n';
  for (std::size_t r = 0; r < grid.size(); ++r) {
    std::string label = std::to_string(r);
    out += label + std::string(label_pad.size() - std::min(label.size(), label_pad.size()), ' ');
    for (std::size_t l = 0; l < grid[r].size(); ++l) {
      std::string c = grid[r][l];
      if (any_marks) c += marked.count({static_cast<int>(r), static_cast<int>(l)}) ? "*" : " ";
      out += ' ';
      out += pad(c, col);
    }
    out += '\n';
  }
  return out;
}

}  // namespace warpsim::sim
