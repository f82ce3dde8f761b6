#include "properties/registry.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "oracle/alias/psa_warp.hpp"
#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/sectioned_warp.hpp"
#include "oracle/draw_matrix.hpp"
#include "oracle/reference.hpp"
#include "oracle/rejection/bringmann_larsen.hpp"
#include "oracle/sum_tree_draw.hpp"
#include "properties/detail/gpu_entries.hpp"
#include "properties/token_row.hpp"

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

// What seed 000's samplers that add in the scalar definition's order draw at
// a chosen uniform (they equal oracle/reference.hpp), and what they resolve:
// running sums in T, u of 24 bits (fp32) or 53 (fp64); each end of a
// weight's interval is off by at most a few units in the last place of the
// total, so 1% holds from 2^-14 (fp32) and 2^-43 (fp64) of the row
// (docs/resolution.md).
template <class T>
UniformDraw<T> reference_at() {
  return [](std::span<const T> row) {
    return [row](std::uint64_t x) { return oracle::reference_draw<T>(row, static_cast<T>(x) * (sizeof(T) == 4 ? T(0x1p-24) : T(0x1p-53))); };
  };
}
constexpr Resolution kReference32{24, 0x1p-14L, 0.01L}, kReference64{53, 0x1p-43L, 0.01L};

Algorithm row(std::string name, std::string listing, oracle::Algorithm algorithm, bool adds_in_order) {
  Algorithm a;
  a.name = name;
  a.listing = std::move(listing);
  a.determinism = Determinism::Replayable;
  a.family = Family::Matrix;
  a.oracle_algorithm = algorithm;
  a.oracle = Sampler{.name = name,
                     .algorithm = name,
                     .where = "oracle (sim/)",
                     .determinism = Determinism::Replayable,
                     .adds_in_order = adds_in_order,
                     .f32 = oracle_draw<float>(algorithm),
                     .f64 = oracle_draw<double>(algorithm)};
  if (adds_in_order) {
    a.oracle.at32 = reference_at<float>();
    a.oracle.at64 = reference_at<double>();
    a.oracle.resolution32 = kReference32;
    a.oracle.resolution64 = kReference64;
  }
  return a;
}

// The oracle entry of an alias table: built by PSA (or PSA+) on the warp
// model, drawn on the model a warp at a time (oracle/alias/sample_warp.hpp),
// or by sectioned sampling, a warp a section (sectioned_warp.hpp; a call is
// one batch). The last table built is kept, so many draws from one
// distribution build once.
template <class T>
ManyDraw<T> oracle_alias(std::size_t psa_plus_group, std::size_t section_rows) {
  struct Last {
    std::vector<T> weights;
    oracle::alias::Table table;
  };
  auto last = std::make_shared<Last>();
  return [psa_plus_group, section_rows, last](std::span<const T> w, std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
    namespace alias = oracle::alias;
    if (last->weights.size() != w.size() || !std::equal(w.begin(), w.end(), last->weights.begin()) || last->table.size() == 0) {
      alias::ModelConfig c;
      c.psa_plus_group = psa_plus_group;
      last->table = alias::psa_on_model(alias::to_units(w), c).table;
      last->weights.assign(w.begin(), w.end());
    }
    if (section_rows != 0) return alias::sample_sectioned_on_model(last->table, section_rows, count, seed, 32, first).draws;
    sim::GlobalMemory mem;
    const auto t = alias::upload_table(mem, last->table);
    sim::Warp warp({.width = 32});
    std::vector<std::uint32_t> out;
    out.reserve(static_cast<std::size_t>(count));
    for (std::uint64_t d = first; d < first + count; d += 32) {
      const auto lanes = alias::sample_warp(warp, mem, t, seed, d);
      out.insert(out.end(), lanes.begin(), lanes.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(32, first + count - d)));
    }
    return out;
  };
}

// The oracle's table as a table builder's image: keep_r / U (long double,
// rounded once); its resolution is the units' bound, k 2^-60.
template <class T>
TableBuild<T> oracle_alias_table(std::size_t psa_plus_group) {
  return [psa_plus_group](std::span<const T> w) {
    namespace alias = oracle::alias;
    alias::ModelConfig c;
    c.psa_plus_group = psa_plus_group;
    const auto t = alias::psa_on_model(alias::to_units(w), c).table;
    AliasTableImage image;
    image.resolution = std::ldexp(static_cast<long double>(w.size()), -60);  // the units' bound (oracle/alias/units.hpp)
    for (std::size_t r = 0; r < t.size(); ++r) {
      image.keep.push_back(static_cast<long double>(t.keep[r]) / static_cast<long double>(t.capacity));
      image.alias.push_back(t.alias[r]);
    }
    return image;
  };
}

// A Mapped row (its own mapping of rng/'s bits) and its oracle entry's
// names; the caller fills in the entry's draws.
Algorithm mapped_row(std::string name, std::string listing) {
  Algorithm a;
  a.name = name;
  a.listing = std::move(listing);
  a.determinism = Determinism::Mapped;
  a.oracle = Sampler{.name = name, .algorithm = name, .where = "oracle (sim/)", .determinism = Determinism::Mapped};
  return a;
}

Algorithm alias_row(std::string name, std::string listing, std::size_t psa_plus_group, std::size_t section_rows = 0) {
  Algorithm a = mapped_row(std::move(name), std::move(listing));
  a.family = Family::AliasTable;
  a.alias = {.psa_plus_group = psa_plus_group, .section_rows = section_rows};
  a.oracle.many32 = oracle_alias<float>(psa_plus_group, section_rows);
  a.oracle.many64 = oracle_alias<double>(psa_plus_group, section_rows);
  a.oracle.table32 = oracle_alias_table<float>(psa_plus_group);
  a.oracle.table64 = oracle_alias_table<double>(psa_plus_group);
  a.oracle.f32 = matrix_of(a.oracle.many32);
  a.oracle.f64 = matrix_of(a.oracle.many64);
  return a;
}

// Bringmann-Larsen's oracle entry: the structure built on the warp model
// (oracle/rejection/bringmann_larsen.hpp, build_on_model; kept for the next
// call with the same weights), the draws made on the warp model a warp at a
// time by the uncached loop (the pre-cached loop draws the same: tested there).
template <class T>
ManyDraw<T> oracle_bringmann_larsen() {
  struct Last {
    std::vector<T> weights;
    oracle::rejection::BringmannLarsen s;
  };
  auto last = std::make_shared<Last>();
  return [last](std::span<const T> w, std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
    if (last->weights.size() != w.size() || !std::equal(w.begin(), w.end(), last->weights.begin()) || last->s.n == 0) {
      last->s = oracle::rejection::build_on_model(oracle::alias::to_units(w));
      last->weights.assign(w.begin(), w.end());
    }
    return oracle::rejection::draws_on_model(last->s, seed, first, count);
  };
}

Algorithm bringmann_larsen_row() {
  Algorithm a = mapped_row("bringmann-larsen",
                           "seed 001, Sec. 2.8 and 5.3.2: Bringmann and Larsen's rejection sampling (Occ_i slots an item, the array as a "
                           "bit array with rank), attempt j of draw d from Philox (seed, d, j)");
  a.family = Family::BringmannLarsen;
  a.oracle.many32 = oracle_bringmann_larsen<float>();
  a.oracle.many64 = oracle_bringmann_larsen<double>();
  a.oracle.f32 = matrix_of(a.oracle.many32);
  a.oracle.f64 = matrix_of(a.oracle.many64);
  return a;
}

// The sum-tree draw's oracle entry: the draws on the warp model
// (oracle/sum_tree_draw.hpp), one a row (draw 0 of stream r), walked by the
// whole warp as the GPU's plan walks one draw a row (the model's lane a
// draw, the same draws, is checked against the scalar definition in
// tests/unit/sum_tree_test.cpp).
template <class T>
MatrixDraw<T> oracle_sum_tree() {
  return [](const Matrix<T>& m, std::uint64_t seed) {
    sim::GlobalMemory mem;
    const auto w = oracle::upload_matrix<T>(mem, m.weights, m.rows, m.cols);
    return oracle::sum_tree::draw_on_model(mem, w, seed, 1, /*warp_walk=*/true).index;
  };
}

// Its S draws a row on the warp model: draw s of row r from stream s of row
// r, walked as the one draw is.
template <class T>
RowDraws<T> oracle_sum_tree_rows() {
  return [](const Matrix<T>& m, std::uint64_t seed, int draws) {
    sim::GlobalMemory mem;
    const auto w = oracle::upload_matrix<T>(mem, m.weights, m.rows, m.cols);
    return oracle::sum_tree::draw_on_model(mem, w, seed, draws, /*warp_walk=*/true).index;
  };
}

// The sum-tree draw at a chosen 53-bit uniform (the scalar definition, which
// the model equals), and what it resolves: every sum in doubles, so each end
// of a weight's interval is off by at most about 2^-46 of the row's total
// over the tree's <= 60 levels, and 1% holds from 2^-36 (docs/resolution.md).
template <class T>
UniformDraw<T> sum_tree_at() {
  return [](std::span<const T> row) {
    return [prepared = std::make_shared<const oracle::sum_tree::Row<T>>(row)](std::uint64_t x) {
      return static_cast<int>(prepared->draw(static_cast<double>(x) * 0x1p-53));
    };
  };
}
constexpr Resolution kSumTree{53, 0x1p-36L, 0.01L};

Algorithm sum_tree_row() {
  Algorithm a = mapped_row("sum-tree",
                           "seed 000's block sums then a search inside the chosen block, at every level of one binary tree over the row "
                           "(doubles), any row length: oracle/sum_tree.hpp");
  a.family = Family::SumTree;
  a.oracle.f32 = oracle_sum_tree<float>();
  a.oracle.f64 = oracle_sum_tree<double>();
  a.oracle.rows32 = oracle_sum_tree_rows<float>();
  a.oracle.rows64 = oracle_sum_tree_rows<double>();
  a.oracle.at32 = sum_tree_at<float>();
  a.oracle.at64 = sum_tree_at<double>();
  a.oracle.resolution32 = a.oracle.resolution64 = kSumTree;
  return a;
}

// The token sampler's oracle entry: the definition (oracle/token/token_law.hpp,
// on the host: it is integer arithmetic after one shared exp a token, and
// its kernels equal it draw for draw), row r's weights as the logits of
// properties/token_row.hpp, row r the request of rng::request_seed(seed, r)
// at offset 0.
template <class T>
RowDraws<T> oracle_token_rows() {
  return [](const Matrix<T>& m, std::uint64_t seed, int draws) {
    std::vector<int> idx;
    idx.reserve(static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(draws));
    for (int r = 0; r < m.rows; ++r)
      for (const auto i : oracle::token::draw(token_logits<T>(m.row(r)), kTokenRowSampling, rng::request_seed(seed, static_cast<std::uint64_t>(r)), 0, draws))
        idx.push_back(static_cast<int>(i));
    return idx;
  };
}

// Its draw at a chosen 53-bit uniform (step 9's U), and what it resolves: a
// weight of at least 2^-36 of its row has a quantum of at least 2^7, and its
// logit's rounding moves its share by at most 8 * 745 * 2^-24 (|ln w| <= 745
// for any positive double), so 1% holds from 2^-36 (docs/tokens.md).
template <class T>
UniformDraw<T> token_at() {
  return [](std::span<const T> row) {
    auto q = std::make_shared<const std::vector<std::uint64_t>>(oracle::token::weights(token_logits<T>(row), kTokenRowSampling));
    std::uint64_t total = 0;
    for (const auto x : *q) total += x;
    return [q, total](std::uint64_t x) { return static_cast<int>(oracle::token::locate(*q, total, x)); };
  };
}
constexpr Resolution kToken{53, 0x1p-36L, 0.01L};

Algorithm token_row() {
  Algorithm a = mapped_row("token",
                           "issue 52 (docs/tokens.md): an LLM server's draw, softmax(logits / T) truncated by top-k, top-p and min-p, "
                           "exactly (in the registry a row's weights w are its logits ln w, T = 1, untruncated)");
  a.oracle.where = "oracle (the definition, host)";
  a.family = Family::Token;
  a.oracle.rows32 = oracle_token_rows<float>();
  a.oracle.rows64 = oracle_token_rows<double>();
  a.oracle.f32 = one_draw_of(a.oracle.rows32);
  a.oracle.f64 = one_draw_of(a.oracle.rows64);
  a.oracle.at32 = token_at<float>();
  a.oracle.at64 = token_at<double>();
  a.oracle.resolution32 = a.oracle.resolution64 = kToken;
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
      alias_row("alias-psa", "seed 001, Ch. 3 and Alg. 3.1-3.2: an alias table by PSA (partition, split, pack), sampled a draw a lane", 0),
      alias_row("alias-psa-plus",
                "seed 001, Sec. 3.3 and 4.6: an alias table by PSA+ (greedy packing in groups of " + std::to_string(kAliasPsaPlusGroup) +
                    " items, then PSA), sampled a draw a lane",
                kAliasPsaPlusGroup),
      alias_row("alias-psa-sectioned",
                "seed 001, Sec. 3.4.4: an alias table by PSA, sampled by sections of " + std::to_string(kAliasSectionRows) +
                    " rows in shared memory, their shares by binomial splits (draws grouped by section)",
                0, kAliasSectionRows),
      bringmann_larsen_row(),
      sum_tree_row(),
      token_row(),
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
