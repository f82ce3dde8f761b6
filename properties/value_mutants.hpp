// The seeded-bug catalogue's samplers of values: the gamma sampler
// (oracle/rejection/gamma.hpp, Marsaglia-Tsang in seed 004's loop) and its
// Dirichlet with one bug each, as kernel authors write them. Each is the
// oracle's gamma_draw or dirichlet_draw with one change (value_mutants.cpp
// marks it with the mutation's name), host forms in float64; `warpsim
// validate --mutants` judges each as it judges any sampler of values
// (cli/validate/values.hpp: the stream properties, the float64 precision
// check and the law at each of its `laws`) and counts it killed when one
// check fails. The unmutated sampler of each family passes them all first.
//
//   squeeze-x2         the squeeze u < 1 - 0.0331 x^4 written with x^2: it
//                      accepts, for |x| > 1, attempts the full test rejects
//   boost-forgotten    shape a < 1 drawn as Gamma(a + 1), the factor
//                      U^(1/a) left out
//   early-float-cast   the variate kept in a float before it is scaled and
//                      stored as a double: 24 bits, and below 2^-149 zero
//   dirichlet/last-unnormalised  the normalising loop stops at K - 1: the
//                      last component left a gamma variate
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
  std::string name;     // "gamma/boost-forgotten"
  std::string bug;      // what the author wrote
  std::string law;      // the law family it claims ("gamma", "dirichlet")
  ValueSampler sampler; // float64 values, on the host
  std::vector<std::string> laws;  // judged at each in turn (--law's form)
  std::uint64_t draws = 1000000;  // values (Dirichlet: vectors) a law
};

const std::vector<ValueMutant>& value_mutants();

// The unmutated sampler of a family the mutants change, with their laws and
// draws: oracle::rejection::gamma_draw<double>, dirichlet_draw.
const ValueMutant& value_mutant_base(const std::string& law);

}  // namespace warpsim::properties
