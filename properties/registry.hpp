// The registry: every sampling algorithm warpsim implements, listed once,
// with the seed and listing it implements, its oracle entry (on the warp
// model, sim/) and its GPU entry where one exists. The pairing of the
// oracle's and the kernels' algorithms lives here and nowhere else: oracle/
// and gpu/ share nothing but rng/. Adding an algorithm is one row in
// registry.cpp (and one in gpu_entries.cpp if it has a kernel).
//
// A row's Family says what kind of sampler it is: the matrix samplers of
// seed 000 (oracle_algorithm says which of oracle/draw_matrix.hpp's); the
// sum-tree draw (seed 000's block sums at every level of a tree over each
// row, its oracle in oracle/sum_tree_draw.hpp, its draws through its own
// mapping of rng/: Determinism::Mapped); the token sampler (an LLM
// server's draw from logits, given a row's weights as logits ln w:
// properties/token_row.hpp; Mapped); and the table samplers of seed
// 001 (alias tables, and Bringmann and Larsen's rejection structure:
// Sampler::many draws from one distribution's structure, and the matrix
// form gives each row its own). Tests dispatch on what a row's Sampler can
// do (draws_rows(), draws_many(), builds_tables()), not on its family.
//
// Usage:
//   for (const auto& a : properties::registry())
//     for (const auto& s : properties::samplers_of(a)) check(s);
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oracle/draw_matrix.hpp"
#include "properties/sampler.hpp"

namespace warpsim::properties {

// What kind of sampler a row is: with it, how its oracle and GPU entries
// are made (registry.cpp and detail/gpu_entries.cpp each switch on it once).
enum class Family {
  Matrix,           // seed 000's matrix samplers: Algorithm::oracle_algorithm names oracle/draw_matrix.hpp's
  SumTree,          // the sum-tree draw (oracle/sum_tree.hpp): any row length, S draws a row
  AliasTable,       // seed 001's alias tables: Algorithm::alias says which construction and sampling
  BringmannLarsen,  // seed 001, Sec. 2.8 (oracle/rejection/bringmann_larsen.hpp): no alias table
  Token,            // the token sampler (oracle/token/token_law.hpp): weights as logits ln w (token_row.hpp)
};

// An alias-table row's construction and sampling; the oracle and the kernel
// take them from here.
struct AliasParams {
  std::size_t psa_plus_group = 0;  // PSA+'s group of items (0: PSA)
  std::size_t section_rows = 0;    // sectioned sampling's section rows (0: a draw a lane)
};

struct Algorithm {
  std::string name;     // "butterfly-addsub"
  std::string listing;  // "seed 000, Alg. 7-10, add-subtract variant (Sec. 6)"
  Family family = Family::Matrix;
  Determinism determinism = Determinism::Replayable;
  // Family::Matrix: the oracle's algorithm (also for workloads that call the
  // oracle directly: LDA).
  std::optional<oracle::Algorithm> oracle_algorithm;
  AliasParams alias;  // Family::AliasTable
  // Samplers that draw many times from one distribution's structure (an
  // alias table, Bringmann and Larsen's): Sampler::many.
  bool table() const { return family == Family::AliasTable || family == Family::BringmannLarsen; }
  Sampler oracle;
  std::optional<Sampler> gpu;  // where warpsim was built with CUDA and the algorithm has a kernel
};

// PSA+'s greedy group in the registry's alias-psa-plus: a block's items.
inline constexpr std::size_t kAliasPsaPlusGroup = 1024;
// alias-psa-sectioned's sections: 16 rows, so that the small tables of the
// generated inputs are split too (the GPU's default is 2,048).
inline constexpr std::size_t kAliasSectionRows = 16;

const std::vector<Algorithm>& registry();

// The row of that name; throws std::invalid_argument naming the known ones.
const Algorithm& find_algorithm(std::string_view name);

// The oracle entry and, where present, the GPU entry.
std::vector<Sampler> samplers_of(const Algorithm& a);

// Every sampler of every row.
std::vector<Sampler> all_samplers();

// A name as an identifier ("butterfly-addsub" -> "butterfly_addsub"), for
// parameterized test names.
std::string identifier(std::string name);

}  // namespace warpsim::properties
