// The seeded-bug catalogue: wrong samplers that real kernel authors write,
// each a one- or few-line change of one correct sampler, and the mutation
// score of warpsim's properties against them.
//
// The correct sampler ("warp per row") is the common kernel for long rows: a
// warp takes one row at a time, reads it block by block (W consecutive
// weights, coalesced), scans each block in order with shuffles, carries the
// block's end through shared memory, and finds the first running sum above
// u' with a min-reduction over shfl_xor. It adds in the scalar definition's
// order, so it equals oracle/reference.hpp bit for bit. Each Mutation below
// changes it in one place (mutants.cpp marks the place with the mutation's
// name); each has a host form on the warp model (sim/) and, where it is a
// kernel bug, a CUDA form (mutants_cuda.cu) with the same change.
//
// Usage:
//   auto score = properties::mutation_score({.tests = 60});
//   // score.killed == score.total, each with the property and shrunk input that killed it
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "properties/detail/mutation.hpp"
#include "properties/rc_checks.hpp"
#include "properties/sampler.hpp"

namespace warpsim::properties {


struct MutantInfo {
  Mutation mutation;
  std::string name;         // "load-bound-off-by-one"
  std::string bug;          // what the author wrote
  bool kernel_bug = true;   // has a CUDA form
};

const std::vector<MutantInfo>& mutants();

// The warp-per-row sampler with one mutation, on the warp model (W = 32).
// Replayable: row r uses rng::uniform<T>(seed, r).
Sampler host_mutant(Mutation m);

// Its CUDA form, where warpsim is built with CUDA and the mutation is a
// kernel bug; otherwise a sampler whose unavailable() says why.
Sampler cuda_mutant(Mutation m);

struct MutantResult {
  std::string name;
  std::string form;       // "host" or "cuda"
  bool killed = false;
  std::string property;   // the first property that failed
  std::string counterexample;
  double seconds = 0;     // time to kill (or to give up)
};

struct MutationScore {
  int killed = 0;
  int total = 0;
  std::vector<MutantResult> results;
};

// Runs every property on every mutant (the correct sampler must pass them,
// and is checked first: a score against a broken base would mean nothing).
// `only`: the mutants of that name alone (empty: all).
MutationScore mutation_score(const CheckOptions& options, bool cuda = false, const std::string& only = {});

}  // namespace warpsim::properties
