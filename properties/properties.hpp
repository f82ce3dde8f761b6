// warpsim::properties -- the one seam between the oracle (oracle/, on the warp
// model) and the kernels (gpu/), and what users' kernels plug into next.
//
//   sampler.hpp     Matrix<T>, Sampler, Determinism: what a sampler takes and returns
//   registry.hpp    every algorithm once: name, listing, oracle entry, GPU entry
//   value_samplers.hpp  the samplers of continuous laws (gamma): oracle and GPU entries
//   token_row.hpp   the token sampler as a registry row: weights w given as logits ln w
//   generators.hpp  RapidCheck generators: the weight families, matrices, seeds
//   checks.hpp      the properties, each a function on a sampler's output -> Verdict
//   law.hpp         the in-law check (stats/ chi-square with its power statement)
//   resolution.hpp  the resolution property: the implied law at a chosen uniform, exactly
//   rc_checks.hpp   all of them as shrinking RapidCheck properties: check_sampler()
//   mutants.hpp     the seeded-bug catalogue: wrong samplers the properties must catch
//   value_mutants.hpp  its samplers of values: the gamma sampler with one bug each
//
// Link warpsim::properties and include this header, never the parts; where
// warpsim is built with CUDA, also:
//   not included: properties/gpu_kernels.hpp (which gpu::MatrixSampler kernel is which registry row; it needs gpu/, so CUDA)
#pragma once

#include "properties/checks.hpp"
#include "properties/generators.hpp"
#include "properties/law.hpp"
#include "properties/lda_sbc.hpp"
#include "properties/mutants.hpp"
#include "properties/rc_checks.hpp"
#include "properties/registry.hpp"
#include "properties/resolution.hpp"
#include "properties/sampler.hpp"
#include "properties/token_row.hpp"
#include "properties/value_mutants.hpp"
#include "properties/value_samplers.hpp"
