// warpsim::gpu -- the seed 000 algorithms as CUDA kernels (W = 32, fp32 and
// fp64), equal to the oracle bit for bit. The host API, which host code
// includes (the kernels themselves are in the .cu files and *.cuh):
//
//   matrix_sampler.hpp  MatrixSampler<T>: one index per row of an M x K matrix
//   sum_tree_sampler.hpp  SumTreeSampler<T>: S draws a row, rows from a few weights to 10^7
//   sum_tree_plan.hpp   SumTreePlan, SumTreePlanner<T>: its layout's rule (host code, no CUDA)
//   alias_table.hpp     AliasTableBuilder<T>, alias_sample: seed 001's alias tables
//   bringmann_larsen.hpp  BringmannLarsenBuilder<T>, bringmann_larsen_sample: seed 001's
//                       rejection sampling (Sec. 2.8), uncached or pre-cached
//   rejection_loop.hpp  seed 004's two loops, recording a warp's iterations a call
//   gamma.hpp           gamma_sample (Marsaglia-Tsang), LdaTopicSampler<T>: LDA's theta and phi
//   rejection_counts.hpp  what a rejection sampler's counted run adds up
//   lda_sampler.hpp     LdaSampler<T>: the LDA z-draw sweep
//   token_sampler.hpp   TokenSampler: an LLM's next token (temperature, top-k, top-p, min-p), the token law exactly
//   device.hpp          which CUDA device, if any, and why not
//   cuda_check.hpp      WARPSIM_CUDA / WARPSIM_CUDA_LAUNCH: every call checked
//   launch.hpp          launch planning and device scratch shared by the samplers
//
// The machinery the samplers share, written once, in gpu/detail/:
// draw_algorithms.cuh (the draws over a weight source), butterfly_search.hpp
// (Alg. 9-10's searches, host and device), rounding.hpp (one rounding per
// operation, never contracted; the E9 clamp), tile_ring.cuh (cp.async rings
// and tile copies), launch_plan.hpp (block size, shared-memory budget, warps
// a block, what a lane keeps, when 16-byte copies are allowed). For kernel
// authors: warp_rejection.cuh, a warp's rejection loop (uncached or with
// seed 004's pre-caching) over any proposal and acceptance. Which
// registry row each kernel implements: properties/gpu_kernels.hpp.
//   not included: gpu/warp_rejection.cuh (device code: a kernel's .cu includes it)
// The sum tree's kernels, a file each, parts of gpu/sum_tree_sampler.cu:
//   not included: gpu/sum_tree/shape.hpp (the tree's shape and each pass's limits, shared by the kernels and the plan)
//   not included: gpu/sum_tree/tuning.hpp (the plan's thresholds: gpu/sum_tree/plan.cpp applies them)
//   not included: gpu/sum_tree/tree.cuh (part of gpu/sum_tree_sampler.cu: the device parts the passes share)
//   not included: gpu/sum_tree/segment_pass.cuh (part of gpu/sum_tree_sampler.cu: the kernel segment_pass)
//   not included: gpu/sum_tree/row_pass.cuh (part of gpu/sum_tree_sampler.cu: the kernel row_pass)
//   not included: gpu/sum_tree/warp_row_pass.cuh (part of gpu/sum_tree_sampler.cu: the kernel warp_row_pass)
//   not included: gpu/sum_tree/block_pass.cuh (part of gpu/sum_tree_sampler.cu: the kernel block_pass)
//   not included: gpu/sum_tree/cluster_pass.cuh (part of gpu/sum_tree_sampler.cu: the kernel cluster_pass)
//   not included: gpu/sum_tree/resident_pass.cuh (part of gpu/sum_tree_sampler.cu: the kernel resident_pass)
//   not included: gpu/sum_tree/rows_pass.cuh (part of gpu/sum_tree_sampler.cu: the kernel rows_pass)
//   not included: gpu/sum_tree/thread_pass.cuh (part of gpu/sum_tree_sampler.cu: the kernel thread_pass)
//   not included: gpu/sum_tree/lanes_pass.cuh (part of gpu/sum_tree_sampler.cu: the kernel lanes_pass)
// The token sampler's kernel, part of gpu/token_sampler.cu:
//   not included: gpu/token/row_agent.cuh (part of gpu/token_sampler.cu: the kernel token_rows, steps A-F)
// The alias tables' phases, a file each, parts of gpu/alias_table.cu:
//   not included: gpu/alias/units.cuh (part of gpu/alias_table.cu: the units)
//   not included: gpu/alias/partition.cuh (part of gpu/alias_table.cu: the partition)
//   not included: gpu/alias/split.cuh (part of gpu/alias_table.cu: the split, seed 001's Alg. 3.1)
//   not included: gpu/alias/pack.cuh (part of gpu/alias_table.cu: the pack, seed 001's Alg. 3.2)
//   not included: gpu/alias/sample.cuh (part of gpu/alias_table.cu: sampling)
//   not included: gpu/alias/psa_plus.cuh (part of gpu/alias_table.cu: PSA+'s greedy packing)
#pragma once

#include "gpu/alias_table.hpp"
#include "gpu/bringmann_larsen.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu/gamma.hpp"
#include "gpu/launch.hpp"
#include "gpu/lda_sampler.hpp"
#include "gpu/matrix_sampler.hpp"
#include "gpu/rejection_counts.hpp"
#include "gpu/rejection_loop.hpp"
#include "gpu/sum_tree_plan.hpp"
#include "gpu/sum_tree_sampler.hpp"
#include "gpu/token_sampler.hpp"
