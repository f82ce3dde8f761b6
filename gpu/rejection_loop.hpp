// Seed 004's two rejection loops as CUDA kernels, each warp recording its
// iterations per call (issue 15; the exact laws are oracle/rejection/loop_model.hpp,
// the same loops on the warp model oracle/rejection/loop_warp.hpp):
//
//   uncached    each lane: do { x = g(); } while (!a(x)); the warp's iterations
//               for a call are the most any lane ran (__reduce_max_sync)
//   pre-cached  seed 004's listing: currentValid/cachedValid a lane, kept in
//               registers across calls, the loop `do { ... } while
//               (!__all_sync(full, currentValid))`
//
// Warp w (of 32 lanes) runs `calls` calls in a row with the seed seed + w;
// lane l's j-th proposal of call c accepts when rng/'s uniform<double>(seed +
// w, 64 c + l, j) is below p -- the numbers loop_warp.hpp takes, so warp w's
// counts equal the model's for seed + w, call for call.
//
// Usage:
//   gpu::rejection_loop_iterations(true, 0.8, seed, warps, calls, d_iterations);  // d_iterations[w * calls + c]
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace warpsim::gpu {

/// @param cached      the pre-cached listing (else the uncached loop)
/// @param p           a lane's acceptance probability, in (0, 1]
/// @param warps       warps of 32 lanes, at least 1
/// @param calls       calls a warp, at least 1
/// @param iterations  device memory for warps * calls counts
/// Throws std::invalid_argument for p outside (0, 1] or no warps or calls,
/// gpu::CudaError for a CUDA failure.
void rejection_loop_iterations(bool cached, double p, std::uint64_t seed, int warps, int calls, int* iterations, cudaStream_t stream = nullptr);

}  // namespace warpsim::gpu
