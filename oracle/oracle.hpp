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
//   pprime_draw.hpp        Sec. 2: each lane's one-array p' (the partial-sums tree) and its search
//   draw_matrix.hpp        every row of a matrix, warp after warp, by oracle::Algorithm
//   lda_corpus.hpp, lda_workload.hpp  the LDA z-draw workload and its replay
//   sum_tree.hpp, sum_tree_draw.hpp  the sum-tree draw (issue 16) as a scalar and on the warp model
//   alias/                 alias tables (seed 001) in exact units: units.hpp (weights as
//                          whole numbers of 2^e), table.hpp (rows, implied mass, sampling),
//                          walker.hpp, vose.hpp, sweep.hpp (the sequential constructions),
//                          psa.hpp (partition, split on the merge path, pack by section),
//                          psa_plus.hpp (greedy packing while partitioning, then PSA),
//                          sectioned.hpp (sampling by sections, exact binomial splits),
//                          and on the warp model, a phase a file: partition_warp.hpp,
//                          split_warp.hpp, split_pary.hpp (Alg. 3.1, the p-ary split),
//                          pack_warp.hpp, pack_chunked.hpp (Alg. 3.2), psa_plus_warp.hpp,
//                          psa_warp.hpp (PSA end to end, its phase map), sample_warp.hpp,
//                          sectioned_warp.hpp; sharded.hpp (one table's law over weights
//                          split into shards, a table a shard: dist/alias.hpp's steps)
//   token/token_law.hpp    an LLM server's token law defined exactly: logits, temperature,
//                          top-k, top-p, min-p (Hugging Face's order, ties stated), the
//                          sum tree's draw by a request's seed and offset (issue 52)
//   rejection/             seed 004 and seed 001 Sec. 2.8: loop_warp.hpp (both of seed
//                          004's loops on the warp model, the model counting iterations);
//                          bringmann_larsen.hpp (the bit array with rank, attempts and
//                          draws, uncached or pre-cached, on the warp model); gamma.hpp
//                          (Marsaglia-Tsang, LDA's theta and phi)
//
// Seed 004's Markov chains need Eigen, kept out of this header's users:
//   not included: oracle/rejection/loop_model.hpp (the exact law of a warp's rejection-loop iterations: Markov chains, Eigen)
//
// Names, listings and the kernels each algorithm pairs with are in the
// registry (properties/registry.hpp), not here.
#pragma once

#include "oracle/alias/pack_chunked.hpp"
#include "oracle/alias/pack_warp.hpp"
#include "oracle/alias/partition_warp.hpp"
#include "oracle/alias/psa.hpp"
#include "oracle/alias/psa_plus.hpp"
#include "oracle/alias/psa_plus_warp.hpp"
#include "oracle/alias/psa_warp.hpp"
#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/sectioned.hpp"
#include "oracle/alias/sectioned_warp.hpp"
#include "oracle/alias/sharded.hpp"
#include "oracle/alias/split_pary.hpp"
#include "oracle/alias/split_warp.hpp"
#include "oracle/alias/sweep.hpp"
#include "oracle/alias/table.hpp"
#include "oracle/alias/units.hpp"
#include "oracle/alias/vose.hpp"
#include "oracle/alias/walker.hpp"
#include "oracle/butterfly_closed_form.hpp"
#include "oracle/butterfly_draw.hpp"
#include "oracle/butterfly_table.hpp"
#include "oracle/draw_matrix.hpp"
#include "oracle/layouts.hpp"
#include "oracle/lda_corpus.hpp"
#include "oracle/lda_workload.hpp"
#include "oracle/matrix_workload.hpp"
#include "oracle/pprime_draw.hpp"
#include "oracle/prefix_draw.hpp"
#include "oracle/prefix_search.hpp"
#include "oracle/reference.hpp"
#include "oracle/register_transpose.hpp"
#include "oracle/rejection/bringmann_larsen.hpp"
#include "oracle/rejection/gamma.hpp"
#include "oracle/rejection/loop_warp.hpp"
#include "oracle/sum_tree.hpp"
#include "oracle/sum_tree_draw.hpp"
#include "oracle/target.hpp"
#include "oracle/token/token_law.hpp"
