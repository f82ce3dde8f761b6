// warpsim::oracle -- the seeds' algorithms written on the warp model (sim/),
// numeric and symbolic; what the kernels (gpu/) must equal bit for bit.
//
//   reference.hpp          the scalar definition every sampler is held to (seed 000, Sec. 2)
//   target.hpp             u' = sum * u kept below the total (errata E9), on the model and as a scalar
//   matrix_workload.hpp    an M x K weight matrix in the model's global memory; one warp's draws
//   prefix_search.hpp      Alg. 2 and 3: linear and binary search of a lane's running sums
//   prefix_draw.hpp        Alg. 1-3 (baseline) and Alg. 4-6 (transposed access)
//   register_transpose.hpp Fig. 2: the in-register transpose by shfl_xor
//   layouts.hpp            the normal and transposed layouts of Fig. 1, symbolic
//   butterfly_table.hpp    Alg. 7-8: butterfly-patterned partial sums, both variants
//   butterfly_closed_form.hpp  the table's entries in closed form (errata E4)
//   butterfly_draw.hpp     Alg. 8-10: the butterfly draw, block search and remnant
//   draw_matrix.hpp        every row of a matrix, warp after warp, by oracle::Algorithm
//   lda_corpus.hpp, lda_workload.hpp  the LDA z-draw workload and its replay
//   alias/                 alias tables (seed 001) in exact units: units.hpp (weights as
//                          whole numbers of 2^e), table.hpp (rows, implied mass, sampling),
//                          walker.hpp, vose.hpp, sweep.hpp (the sequential constructions),
//                          psa.hpp (partition, split on the merge path, pack by section),
//                          psa_plus.hpp (greedy packing while partitioning, then PSA),
//                          sectioned.hpp (sampling by sections, exact binomial splits),
//                          sample_warp.hpp (the baseline sampler on the warp model),
//                          split_warp.hpp, pack_warp.hpp (PSA's split and pack on the warp model)
//   rejection/             seed 004: loop_model.hpp, the exact law of a warp's rejection-loop
//                          iterations, uncached and pre-cached; loop_warp.hpp, both loops on
//                          the warp model, the model counting iterations (Markov chains, Eigen;
//                          included on its own, not by this header, to keep Eigen out of
//                          the rest); bringmann_larsen.hpp, seed 001 Sec. 2.8: the
//                          bit array with rank, attempts and draws, and the draws on the
//                          warp model uncached or pre-cached (included on its own)
//
// Names, listings and the kernels each algorithm pairs with are in the
// registry (properties/registry.hpp), not here.
#pragma once

#include "oracle/alias/psa.hpp"
#include "oracle/alias/psa_plus.hpp"
#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/sectioned.hpp"
#include "oracle/alias/pack_warp.hpp"
#include "oracle/alias/split_warp.hpp"
#include "oracle/alias/sweep.hpp"
#include "oracle/alias/vose.hpp"
#include "oracle/alias/walker.hpp"
#include "oracle/butterfly_closed_form.hpp"
#include "oracle/butterfly_draw.hpp"
#include "oracle/butterfly_table.hpp"
#include "oracle/draw_matrix.hpp"
#include "oracle/layouts.hpp"
#include "oracle/lda_workload.hpp"
#include "oracle/matrix_workload.hpp"
#include "oracle/prefix_draw.hpp"
#include "oracle/prefix_search.hpp"
#include "oracle/reference.hpp"
#include "oracle/register_transpose.hpp"
#include "oracle/target.hpp"
