// The seeded bugs by name (documented in properties/mutants.hpp), and the
// narrow C++17 entry to their CUDA forms (nvcc builds warpsim's CUDA as
// C++17, so the .cu file sees only this header and rng/).
#pragma once

#include <cstdint>
#include <vector>

namespace warpsim::properties {

enum class Mutation {
  None,                    // the correct sampler
  LoadBoundOffByOne,       // the load guard reads j <= K: one weight past the row
  LastNeverDrawn,          // candidates j < K - 1: the last category is never drawn
  LessEqualAtBoundary,     // u' <= P[j] for u' < P[j]: a tie goes to the bucket that ends there
  UniformOpenClosed,       // u = 1 - u: u in (0, 1] instead of [0, 1)
  FloatAccumulation,       // fp64 weights summed in fp32
  WrongXorDistance,        // the min-reduction starts at W/4: half the warp is never compared
  WrongSourceLane,         // pass 1 carries the block's end from lane W - 2, not W - 1
  RemnantSkipped,          // K / W blocks: the last K mod W weights are never read
  OtherLanesUniform,       // row i takes the uniform of row i + 1 (a lane uses another lane's u)
  MissingSyncwarp,         // the block's end is read from shared memory with no __syncwarp
  SameUniformTwoRows,      // rows 2i and 2i + 1 share one uniform
  RunningSumResetPerBlock, // pass 2 forgets to carry the running sum into the next block
  ZeroAfterHeavy,          // the block is entered on u' <= its end: a tie falls back to the block's
                           // last lane, a zero weight after a heavy one
  ZeroGuardEpsilon,        // zero weights floored to 1e-30 "to avoid an all-zero row"
  StalePadding,            // lanes past K keep the previous block's weight instead of 0
  StreamByLane,            // the Philox stream is the lane, not the row: every warp repeats warp 0's uniforms
  SinglePrecisionUniform,  // fp64 weights with a 24-bit fp32 uniform
};

namespace detail {

// One launch of the warp-per-row sampler with mutation `m` on an M x K matrix
// (host memory in and out; device memory inside, every CUDA call checked).
std::vector<int> cuda_warp_per_row(Mutation m, const float* weights, int rows, int cols, std::uint64_t seed);
std::vector<int> cuda_warp_per_row(Mutation m, const double* weights, int rows, int cols, std::uint64_t seed);

}  // namespace detail
}  // namespace warpsim::properties
