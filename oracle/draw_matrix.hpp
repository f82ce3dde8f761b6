// All M distributions of the matrix workload, warp after warp, with one
// algorithm; u[m] is row m's uniform. Returns every row's index and the
// model's counters summed over the warps.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "oracle/butterfly_draw.hpp"
#include "oracle/prefix_draw.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::oracle {

// The algorithms on the model; their names, listings and kernels are in the
// registry (properties/registry.hpp).
enum class Algorithm { BaselineLinear, BaselineBinary, TransposedMemory, TransposedRegisters, ButterflyStandard, ButterflyAddSub };


struct MatrixDraws {
  std::vector<int> index;  // one per row
  sim::Counters counters;
};

template <class T>
MatrixDraws draw_matrix(sim::GlobalMemory& mem, const WeightMatrix<T>& w, std::span<const T> u, Algorithm algorithm,
                        int warp_width = 32) {
  if (u.size() != static_cast<std::size_t>(w.rows)) throw std::invalid_argument("draw_matrix: one uniform per row");
  MatrixDraws out;
  const int warps = (w.rows + warp_width - 1) / warp_width;
  for (int q = 0; q < warps; ++q) {
    sim::Warp warp({.width = warp_width});
    sim::Reg<T> uq("u");
    for (int l = 0; l < warp_width; ++l) {
      const int row = q * warp_width + l;
      uq[l] = row < w.rows ? u[static_cast<std::size_t>(row)] : T{0};
    }
    WarpDraws d;
    switch (algorithm) {
      case Algorithm::BaselineLinear: d = baseline_draw(warp, mem, w, q, uq, SearchKind::Linear); break;
      case Algorithm::BaselineBinary: d = baseline_draw(warp, mem, w, q, uq, SearchKind::Binary); break;
      case Algorithm::TransposedMemory: d = transposed_draw(warp, mem, w, q, uq, SearchKind::Binary, TransposeBy::Memory); break;
      case Algorithm::TransposedRegisters: d = transposed_draw(warp, mem, w, q, uq, SearchKind::Binary, TransposeBy::Registers); break;
      case Algorithm::ButterflyStandard: d = butterfly_draw(warp, mem, w, q, uq, ButterflyVariant::Standard); break;
      case Algorithm::ButterflyAddSub: d = butterfly_draw(warp, mem, w, q, uq, ButterflyVariant::AddSub); break;
    }
    out.index.insert(out.index.end(), d.index.begin(), d.index.end());
    out.counters += d.counters;
  }
  return out;
}

// The uniforms the GPU kernels use for rows 0 .. m-1 (stream = row, draw 0),
// from the mapping both sides share.
template <class T>
std::vector<T> row_uniforms(std::uint64_t seed, int m) {
  std::vector<T> u(static_cast<std::size_t>(m));
  for (int r = 0; r < m; ++r) u[static_cast<std::size_t>(r)] = rng::uniform<T>(seed, static_cast<std::uint64_t>(r));
  return u;
}

}  // namespace warpsim::oracle
