// The weights of `warpsim alias sharded --generate N` (cli/alias_sharded.cpp):
// item i's weight a function of (seed, i) alone, so that each rank makes
// its slice and no process holds them all. Spread over three decades, every
// 13th 0 (a table must never draw those).
//
// The same double on the host and on a GPU: on the device each step is an
// intrinsic that rounds once (__dmul_rn, __dadd_rn, __ddiv_rn), so nvcc
// cannot contract 1 + 1000 u into an FMA; on the host the x86-64 baseline
// this is built for has no FMA instruction to contract into. The GPU test
// GpuShardedAlias.GeneratedWeightsEqualTheHosts checks it bit for bit.
#pragma once

#include <cstdint>

#include "rng/philox_uniform.hpp"

namespace warpsim::cli {

WARPSIM_HOST_DEVICE inline double generated_weight(std::uint64_t seed, std::uint64_t i) {
  if (i % 13 == 5) return 0;
  const double u = rng::uniform<double>(seed, i, 0xfffffffeu);
#ifdef __CUDA_ARCH__
  return __ddiv_rn(1.0, __dadd_rn(1.0, __dmul_rn(1000.0, u)));
#else
  return 1.0 / (1.0 + 1000.0 * u);
#endif
}

// Items first .. first + count - 1 into `weights` (device memory), on the
// current device; synchronous. Built with CUDA only (cli/generated_weights.cu).
void generate_weights_on_device(double* weights, std::uint64_t count, std::uint64_t seed, std::uint64_t first);

}  // namespace warpsim::cli
