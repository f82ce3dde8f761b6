// The seam: one description of a sampler that the oracle, the kernels, the
// tests and users' kernels all plug into.
//
// A matrix sampler takes an M x K row-major matrix of non-negative weights
// (fp32 or fp64) and a seed, and returns one index per row. If it is
// Replayable, every index is fixed by the weights and rng/'s Philox mapping
// (row r's uniform is rng::uniform<T>(seed, r), draw 0), so it can be replayed
// draw by draw against the scalar definition; otherwise only its law is
// specified, and it is checked in law.
//
// Usage:
//   properties::Sampler s = properties::registry().front().oracle;
//   properties::Matrix<float> m{2, 3, {1, 2, 3, 0, 0, 1}};
//   std::vector<int> idx = s.draw(m, /*seed=*/7);   // one index per row
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsim::properties {

// M x K weights, row after row.
template <class T>
struct Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<T> weights;

  std::span<const T> row(int r) const {
    return {weights.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols), static_cast<std::size_t>(cols)};
  }
};

enum class Determinism {
  Replayable,  // indices fixed by (weights, seed) through rng/'s mapping: checked draw by draw
  InLaw,       // only the distribution is specified: checked by stats/ tests
};

template <class T>
using MatrixDraw = std::function<std::vector<int>(const Matrix<T>&, std::uint64_t seed)>;

struct Sampler {
  std::string name;       // unique: "<algorithm>" on the oracle, "<algorithm>@gpu" on the GPU
  std::string algorithm;  // the registry row it implements
  std::string where;      // "oracle (sim/)" or "GPU"
  Determinism determinism = Determinism::Replayable;
  // Adds each row's weights in the scalar definition's order (the prefix-sum
  // algorithms): then it equals the scalar definition on any weights, not
  // only within the rounding bound.
  bool adds_in_order = false;
  MatrixDraw<float> f32;
  MatrixDraw<double> f64;
  // Empty if the sampler can run in this process; otherwise why not ("no
  // CUDA device: ..."). Tests skip with this reason; they never pass.
  std::function<std::string()> unavailable = [] { return std::string(); };

  template <class T>
  std::vector<int> draw(const Matrix<T>& m, std::uint64_t seed) const {
    const auto& f = [&]() -> const MatrixDraw<T>& {
      if constexpr (sizeof(T) == 4) return f32; else return f64;
    }();
    if (!f) throw std::logic_error(name + ": no " + (sizeof(T) == 4 ? "fp32" : "fp64") + " entry");
    return f(m, seed);
  }
};

}  // namespace warpsim::properties
