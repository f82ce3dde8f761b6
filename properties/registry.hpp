// The registry: every sampling algorithm warpsim implements, listed once,
// with the seed and listing it implements, its oracle entry (on the warp
// model, sim/) and its GPU entry where one exists. The pairing of the
// oracle's and the kernels' algorithms lives here and nowhere else: oracle/
// and gpu/ share nothing but rng/. Adding an algorithm is one row in
// registry.cpp (and one in gpu_entries.cpp if it has a kernel).
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

struct Algorithm {
  std::string name;     // "butterfly-addsub"
  std::string listing;  // "seed 000, Alg. 7-10, add-subtract variant (Sec. 6)"
  Determinism determinism = Determinism::Replayable;
  oracle::Algorithm oracle_algorithm;  // for workloads that call the oracle directly (LDA)
  Sampler oracle;
  std::optional<Sampler> gpu;  // where warpsim was built with CUDA and the algorithm has a kernel
};

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
