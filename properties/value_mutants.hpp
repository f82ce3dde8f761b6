// The seeded-bug catalogue's samplers of values: the gamma sampler
// (oracle/rejection/gamma.hpp, Marsaglia-Tsang in seed 004's loop) with one
// bug each, as kernel authors write them. Each is the oracle's gamma_draw
// with one change (value_mutants.cpp marks it with the mutation's name),
// host forms in float64; `warpsim validate --mutants` judges each as it
// judges any sampler of values (cli/validate/values.hpp: the stream
// properties, the float64 precision check and the law at every shape of
// kValueMutantLaws) and counts it killed when one check fails.
//
//   squeeze-x2         the squeeze u < 1 - 0.0331 x^4 written with x^2: it
//                      accepts, for |x| > 1, attempts the full test rejects
//   boost-forgotten    shape a < 1 drawn as Gamma(a + 1), the factor
//                      U^(1/a) left out
//   early-float-cast   the variate kept in a float before it is scaled and
//                      stored as a double: 24 bits, and below 2^-149 zero
//
// Usage:
//   for (const auto& m : properties::value_mutants()) m.sampler.draw({0.5, 1}, n, seed, 0);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "properties/value_samplers.hpp"

namespace warpsim::properties {

struct ValueMutant {
  std::string name;     // "boost-forgotten"
  std::string bug;      // what the author wrote
  std::string law;      // the law family it claims ("gamma")
  ValueSampler sampler; // float64 values, on the host
};

const std::vector<ValueMutant>& value_mutants();

// The unmutated sampler the mutants change (oracle::rejection::gamma_draw<double>).
const ValueSampler& value_mutant_base();

// The laws each is judged at, and the values drawn for each.
inline const std::vector<std::string> kValueMutantLaws = {"gamma:0.01,1", "gamma:0.5,1", "gamma:1,1", "gamma:4,1"};
inline constexpr std::uint64_t kValueMutantDraws = 1000000;

}  // namespace warpsim::properties
