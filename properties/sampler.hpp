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
// A matrix sampler may also make S draws a row (rows32/rows64: draw s of
// row r from stream s of row r), as torch.multinomial does with num_samples
// = S and replacement; its draw 0 of each row is its one draw.
//
// A table sampler (an alias table, seed 001) builds once from one
// distribution and then draws many times; `many` draws first .. first +
// count - 1 from the table of its weights. It is a matrix sampler too: row r
// of a matrix gets its own table and that table's draw r. Its indices are
// fixed by the weights and rng/ (Determinism::Mapped), through its own
// mapping of the Philox bits (oracle/alias/table.hpp), not the scalar
// definition's: its entries must equal each other draw by draw, and the
// scalar definition only in law.
//
// Usage:
//   properties::Sampler s = properties::registry().front().oracle;
//   properties::Matrix<float> m{2, 3, {1, 2, 3, 0, 0, 1}};
//   std::vector<int> idx = s.draw(m, /*seed=*/7);   // one index per row
//   if (s.draws_rows()) idx = s.draw_rows(m, 7, /*draws=*/4);  // 4 a row, row after row
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
  Mapped,      // fixed by (weights, seed) through the algorithm's own mapping of rng/'s bits: entries
               // checked against each other draw by draw, against the scalar definition in law
  InLaw,       // only the distribution is specified: checked by stats/ tests
};

template <class T>
using MatrixDraw = std::function<std::vector<int>(const Matrix<T>&, std::uint64_t seed)>;

// An alias table as a builder writes it (seed 001, Sec. 2.4): row r keeps
// item r with probability keep[r] and gives the rest to item alias[r]; each
// row comes up with probability 1/k. `resolution` is the relative precision
// of the builder's keeps (2^-24 for fp32 probabilities, 2^-53 for fp64,
// 2^-64 for 64-bit thresholds; warpsim's exact tables: k 2^-60, their units'
// bound), which sets the tolerance of the check (checks.hpp,
// table_implies_weights).
struct AliasTableImage {
  std::vector<long double> keep;
  std::vector<std::int64_t> alias;
  long double resolution = 0;
};

template <class T>
using TableBuild = std::function<AliasTableImage(std::span<const T> weights)>;

// Draws first .. first + count - 1 of `seed` from one distribution's table.
template <class T>
using ManyDraw = std::function<std::vector<std::uint32_t>(std::span<const T> weights, std::uint64_t seed, std::uint64_t first,
                                                          std::uint64_t count)>;

// S draws a row (torch.multinomial's num_samples = S, with replacement): an
// M x S result, draw s of row r at r * S + s, each row's draws from its own
// stream (draw 0 of each row is the one-draw entry's index for that row).
template <class T>
using RowDraws = std::function<std::vector<int>(const Matrix<T>&, std::uint64_t seed, int draws)>;

// Entries that run on a CUDA device may also leave their draws there, for a
// caller that counts them where they are (validate's law at 10^11 draws and
// more, which copying indices back to the host would take hours to count):
// the same draws as the entries above, written to `out`, a device array of
// int32 indices (each below 2^31), the work ordered on the current device's
// default stream (the caller synchronises).
//   DeviceMatrixDraw: one draw a row of `rows` x `cols` weights already on
//     the device (as f32/f64 draw them).
//   DeviceRowDraws: S draws a row of `rows` x `cols` weights on the device,
//     row after row (as rows32/rows64 make them).
//   DeviceManyDraw: draws first .. first + count - 1 of one distribution's
//     table (as many32/many64 make them; the weights on the host).
template <class T>
using DeviceMatrixDraw = std::function<void(const T* weights, int rows, int cols, std::uint64_t seed, std::int32_t* out)>;
template <class T>
using DeviceRowDraws = std::function<void(const T* weights, int rows, int cols, std::uint64_t seed, int draws, std::int32_t* out)>;
template <class T>
using DeviceManyDraw =
    std::function<void(std::span<const T> weights, std::uint64_t seed, std::uint64_t first, std::uint64_t count, std::int32_t* out)>;

// A sampler's draw as a function of its uniform, where it is one: u = x 2^-bits
// on a grid of 2^bits points, x in [0, 2^bits). Each weight's x form one
// interval (the draw is monotone in some order of the weights), which
// properties/resolution.hpp walks to find the implied law exactly. The row is
// prepared once (its sums, its tree), then drawn from at many x:
//   const auto at = s.at32(row);  int k = at(x);
template <class T>
using UniformDraw = std::function<std::function<int(std::uint64_t x)>(std::span<const T> row)>;

// What a sampler resolves: every weight of at least `smallest` of its row's
// total is drawn at its share within `tolerance` (relative), on a uniform
// of `bits` bits; docs/resolution.md derives each sampler's. bits = 0: not
// stated (no UniformDraw).
struct Resolution {
  int bits = 0;
  long double smallest = 0;
  long double tolerance = 0;
};

struct Sampler {
  std::string name;       // unique: "<algorithm>" on the oracle, "<algorithm>@gpu" on the GPU
  std::string algorithm;  // the registry row it implements
  std::string where;      // "oracle (sim/)" or "GPU"
  Determinism determinism = Determinism::Replayable;
  // Adds each row's weights in the scalar definition's order (the prefix-sum
  // algorithms): then it equals the scalar definition on any weights, not
  // only within the rounding bound.
  bool adds_in_order = false;
  MatrixDraw<float> f32 = {};
  MatrixDraw<double> f64 = {};
  // Table samplers only (empty for matrix samplers): many draws from one table.
  ManyDraw<float> many32 = {};
  ManyDraw<double> many64 = {};
  // Table builders (empty where the sampler has none): the table of one
  // distribution, checked against its weights.
  TableBuild<float> table32 = {};
  TableBuild<double> table64 = {};
  // S draws a row (samplers that make them: empty elsewhere).
  RowDraws<float> rows32 = {};
  RowDraws<double> rows64 = {};
  // Draw 0 of each row of S draws is the one-draw entry's index for that row
  // (warpsim's samplers); a plugin's rows each follow their own seed and
  // offset, and the first_draw property does not apply to them.
  bool row_draws_begin_with_the_one_draw = true;
  // Draws left on the device (GPU entries; empty elsewhere).
  DeviceMatrixDraw<float> device32 = {};
  DeviceMatrixDraw<double> device64 = {};
  DeviceRowDraws<float> device_rows32 = {};
  DeviceRowDraws<double> device_rows64 = {};
  DeviceManyDraw<float> device_many32 = {};
  DeviceManyDraw<double> device_many64 = {};
  // The draw at a chosen uniform and what it resolves (oracle entries whose
  // draw is one uniform's function; empty elsewhere).
  UniformDraw<float> at32 = {};
  UniformDraw<double> at64 = {};
  Resolution resolution32 = {}, resolution64 = {};
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

  bool draws_many() const { return static_cast<bool>(many32) || static_cast<bool>(many64); }
  bool draws_rows() const { return static_cast<bool>(rows32) || static_cast<bool>(rows64); }

  // S draws a row: M x S indices, draw s of row r at r * S + s.
  template <class T>
  std::vector<int> draw_rows(const Matrix<T>& m, std::uint64_t seed, int draws) const {
    const auto& f = [&]() -> const RowDraws<T>& {
      if constexpr (sizeof(T) == 4) return rows32; else return rows64;
    }();
    if (!f) throw std::logic_error(name + ": no S draws a row, or no " + std::string(sizeof(T) == 4 ? "fp32" : "fp64") + " entry");
    return f(m, seed, draws);
  }
  bool builds_tables() const { return static_cast<bool>(table32) || static_cast<bool>(table64); }

  template <class T>
  std::vector<std::uint32_t> many(std::span<const T> weights, std::uint64_t seed, std::uint64_t first, std::uint64_t count) const {
    const auto& f = [&]() -> const ManyDraw<T>& {
      if constexpr (sizeof(T) == 4) return many32; else return many64;
    }();
    if (!f) throw std::logic_error(name + ": not a table sampler, or no " + std::string(sizeof(T) == 4 ? "fp32" : "fp64") + " entry");
    return f(weights, seed, first, count);
  }
};

// The one-draw entry of a sampler of S draws a row whose draw 0 of each row
// is its one draw: S = 1.
template <class T>
MatrixDraw<T> one_draw_of(RowDraws<T> rows) {
  return [rows](const Matrix<T>& m, std::uint64_t seed) { return rows(m, seed, 1); };
}

// The matrix form of a table sampler: row r builds its own table and makes
// that table's draw r.
template <class T>
MatrixDraw<T> matrix_of(ManyDraw<T> many) {
  return [many](const Matrix<T>& m, std::uint64_t seed) {
    std::vector<int> idx(static_cast<std::size_t>(m.rows));
    for (int r = 0; r < m.rows; ++r) idx[static_cast<std::size_t>(r)] = static_cast<int>(many(m.row(r), seed, static_cast<std::uint64_t>(r), 1).at(0));
    return idx;
  };
}

}  // namespace warpsim::properties
