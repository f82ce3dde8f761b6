// S draws from each row of an M x K row-major weight matrix by the sum-tree
// draw (oracle/sum_tree.hpp: seed 000's block sums then a search inside the
// chosen block, at every level of one binary tree over the row), for rows
// from a few weights to tens of millions, fp32 or fp64. Every index equals
// the oracle's bit for bit, whatever the layout; the draws resolve items down
// to about 2^-45 of their row (docs/resolution.md), where seed 000's fp32
// samplers stop at 2^-24.
//
// Draw s of row r takes rng::uniform<double>(seed, stream = r, draw = s) and
// goes to out[r * S + s]: torch.multinomial(w, S, replacement=True).
//
// Usage:
//   gpu::SumTreeSampler<float> sampler;
//   sampler.draw(d_weights, m, k, /*seed=*/7, /*draws=*/4, d_out);  // d_out: m * 4 ints
//   auto plan = sampler.plan(m, k);  // the layout it chose (plan.describe())
//
// Every CUDA call is checked (gpu/cuda_check.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu/launch.hpp"
#include "gpu/sum_tree_plan.hpp"

namespace warpsim::gpu {

// The plan (SumTreePlan, the rule plan_for, max_k()) is SumTreePlanner's,
// in gpu/sum_tree_plan.hpp: host code, tested without a device.
template <class T>
class SumTreeSampler : public SumTreePlanner<T> {
 public:
  // The layout draw() takes for an M x K matrix, S = draws, on the current
  // device: plan_for(PlanDevice::current(), ...).
  static SumTreePlan plan(int m, std::int64_t k, const SumTreePlan& ask = {}, int draws = 1);

  // weights: device, M x K row-major, every weight finite and >= 0 (not
  // checked here: properties/ and the CLI check the host's); out: device, M *
  // draws ints. Asynchronous on `stream`. Throws std::invalid_argument on
  // M < 1, K < 1, K > max_k(), draws < 1, or M * draws past 2^31 - 1, or a
  // plan plan_for() refuses, or a resident pass whose grid of M x segments
  // blocks the device cannot hold at once, or a row's cluster the device
  // cannot hold. One call at a time per sampler (its scratch).
  void draw(const T* weights, int m, std::int64_t k, std::uint64_t seed, int draws, int* out, cudaStream_t stream = nullptr,
            const SumTreePlan& ask = {});

 private:
  DeviceScratch<double> scratch_;
  DeviceScratch<int> tickets_;     // a row's count of summed segments, 0 between calls
  DeviceScratch<double> posted_;   // the resident pass's posted segment sums, each with its call's epoch
  std::uint64_t resident_epoch_ = 0;  // the resident calls made (the last one's epoch)
  int resident_blocks_[2] = {};    // the resident pass's blocks of 1 and 4 warps the device holds at once (0: not asked yet)
  // Whether the device holds a row's cluster of n blocks of 2^i warps:
  // [i][n], 0 not asked yet, 1 it does, -1 it does not.
  signed char cluster_fits_[4][9] = {};
};

}  // namespace warpsim::gpu
