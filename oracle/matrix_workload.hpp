// The matrix workload: M distributions of K relative weights each, stored as
// an M x K row-major matrix in the model's global memory; warp q draws one
// index for each of rows q·W .. q·W + W - 1, lane r for row q·W + r. Lanes
// past the last row work on the last row (so all lanes stay awake to help
// each other, as the seed's master-index idiom does) and their draws are
// dropped.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include "sim/global_memory.hpp"
#include "sim/reg.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle {

template <class T>
struct WeightMatrix {
  sim::DeviceArray<T> data;
  int rows = 0;  // M
  int cols = 0;  // K

  // Byte address of element (row, col), with the row clamped to the last.
  std::uint64_t address(int row, int col) const {
    const int r = row < rows ? row : rows - 1;
    return data.at(static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col));
  }
};

template <class T>
WeightMatrix<T> upload_matrix(sim::GlobalMemory& mem, std::span<const T> weights, int rows, int cols) {
  if (rows < 1 || cols < 1) throw std::invalid_argument("weight matrix needs M >= 1 rows and K >= 1 columns");
  if (weights.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
    throw std::invalid_argument("weight matrix: M x K does not match the number of weights");
  }
  WeightMatrix<T> m{mem.allocate<T>(weights.size()), rows, cols};
  mem.upload<T>(m.data, weights);
  return m;
}

// One warp's draws: index[r] for lane r (only lanes whose row exists count).
struct WarpDraws {
  std::vector<int> index;
  sim::Counters counters;
};

}  // namespace warpsim::oracle
