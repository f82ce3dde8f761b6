// What a rejection sampler's counted run adds up (device memory, added to by
// the kernels; gpu/warp_rejection.cuh's RejectionTally): the warp calls in
// which every lane had a task and their loop iterations (seed 004's call,
// which oracle/rejection/loop_model.hpp predicts), the attempts made, the
// draws. Host and device.
#pragma once

namespace warpsim::gpu {

struct RejectionCounts {
  unsigned long long warp_calls = 0, warp_iterations = 0, attempts = 0, draws = 0;
  double iterations_per_call() const { return static_cast<double>(warp_iterations) / static_cast<double>(warp_calls); }
  double attempts_per_draw() const { return static_cast<double>(attempts) / static_cast<double>(draws); }
};

}  // namespace warpsim::gpu
