#include "properties/registry.hpp"

#include <cctype>
#include <stdexcept>

#include "oracle/draw_matrix.hpp"
#include "properties/detail/gpu_entries.hpp"

namespace warpsim::properties {

namespace {

// The oracle entry for one of oracle/draw_matrix.hpp's algorithms: warps of
// 32 lanes, row r's uniform from rng/ (stream r, draw 0), as the kernels take it.
template <class T>
MatrixDraw<T> oracle_draw(oracle::Algorithm algorithm) {
  return [algorithm](const Matrix<T>& m, std::uint64_t seed) {
    sim::GlobalMemory mem;
    const auto w = oracle::upload_matrix<T>(mem, m.weights, m.rows, m.cols);
    const auto u = oracle::row_uniforms<T>(seed, m.rows);
    return oracle::draw_matrix<T>(mem, w, u, algorithm).index;
  };
}

Algorithm row(std::string name, std::string listing, oracle::Algorithm algorithm, bool adds_in_order) {
  Algorithm a;
  a.name = name;
  a.listing = std::move(listing);
  a.determinism = Determinism::Replayable;
  a.oracle_algorithm = algorithm;
  a.oracle = Sampler{name, name, "oracle (sim/)", Determinism::Replayable, adds_in_order, oracle_draw<float>(algorithm),
                     oracle_draw<double>(algorithm), {}};
  a.oracle.unavailable = [] { return std::string(); };
  return a;
}

std::vector<Algorithm> make_registry() {
  std::vector<Algorithm> rows = {
      row("baseline-linear", "seed 000, Alg. 1-2: a lane per row, running sums, linear search", oracle::Algorithm::BaselineLinear, true),
      row("baseline-binary", "seed 000, Alg. 1 and 3: a lane per row, running sums, binary search", oracle::Algorithm::BaselineBinary, true),
      row("transposed-memory", "seed 000, Alg. 4-6: transposed (coalesced) access, transpose through memory",
          oracle::Algorithm::TransposedMemory, true),
      row("transposed-registers", "seed 000, Alg. 4-6 with the in-register transpose of Fig. 2",
          oracle::Algorithm::TransposedRegisters, true),
      row("butterfly-standard", "seed 000, Alg. 7-10: butterfly-patterned partial sums, [a c; a+b c+d]",
          oracle::Algorithm::ButterflyStandard, false),
      row("butterfly-addsub", "seed 000, Alg. 7-10 and Sec. 6: the add-subtract variant, [a d; a+b c+d]",
          oracle::Algorithm::ButterflyAddSub, false),
  };
  detail::add_gpu_entries(rows);
  return rows;
}

}  // namespace

const std::vector<Algorithm>& registry() {
  static const std::vector<Algorithm> rows = make_registry();
  return rows;
}

const Algorithm& find_algorithm(std::string_view name) {
  std::string known;
  for (const auto& a : registry()) {
    if (a.name == name) return a;
    known += (known.empty() ? "" : ", ") + a.name;
  }
  throw std::invalid_argument("no algorithm '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<Sampler> samplers_of(const Algorithm& a) {
  std::vector<Sampler> s{a.oracle};
  if (a.gpu) s.push_back(*a.gpu);
  return s;
}

std::string identifier(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::vector<Sampler> all_samplers() {
  std::vector<Sampler> s;
  for (const auto& a : registry())
    for (auto& x : samplers_of(a)) s.push_back(std::move(x));
  return s;
}

}  // namespace warpsim::properties
