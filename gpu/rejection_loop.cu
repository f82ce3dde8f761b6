// Seed 004's rejection loops on the GPU (gpu/rejection_loop.hpp).
#include "gpu/rejection_loop.hpp"

#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::gpu {

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kThreads = 256;

__device__ __forceinline__ bool accepts(double p, std::uint64_t seed, int c, int lane, std::uint32_t j) {
  return rng::uniform<double>(seed, 64 * static_cast<std::uint64_t>(c) + static_cast<std::uint64_t>(lane), j) < p;
}

__global__ void __launch_bounds__(kThreads) uncached_loop(double p, std::uint64_t seed, int warps, int calls, int* __restrict__ out) {
  const int w = static_cast<int>((blockIdx.x * static_cast<unsigned>(kThreads) + threadIdx.x) / 32), lane = static_cast<int>(threadIdx.x % 32);
  if (w >= warps) return;  // whole warps: kThreads is a multiple of 32
  const std::uint64_t s = seed + static_cast<std::uint64_t>(w);
  for (int c = 0; c < calls; ++c) {
    std::uint32_t j = 0;
    int mine = 0;
    bool accepted;
    do {  // seed 004's first listing
      accepted = accepts(p, s, c, lane, j++);
      ++mine;
    } while (!accepted);
    const int warp_iterations = static_cast<int>(__reduce_max_sync(kFull, static_cast<unsigned>(mine)));
    if (lane == 0) out[static_cast<std::size_t>(w) * calls + c] = warp_iterations;
  }
}

__global__ void __launch_bounds__(kThreads) cached_loop(double p, std::uint64_t seed, int warps, int calls, int* __restrict__ out) {
  const int w = static_cast<int>((blockIdx.x * static_cast<unsigned>(kThreads) + threadIdx.x) / 32), lane = static_cast<int>(threadIdx.x % 32);
  if (w >= warps) return;
  const std::uint64_t s = seed + static_cast<std::uint64_t>(w);
  bool cached_valid = false;  // the listing's statics: one lane's state across calls
  for (int c = 0; c < calls; ++c) {
    bool current_valid = cached_valid;  // currentValid = cachedValid && (cachedParms == parms)
    cached_valid = false;
    std::uint32_t j = 0;
    int iterations = 0;
    do {  // seed 004's second listing
      const bool valid = accepts(p, s, c, lane, j++);
      if (!current_valid) current_valid = valid;
      else if (!cached_valid) cached_valid = valid;
      ++iterations;
    } while (!__all_sync(kFull, current_valid));
    if (lane == 0) out[static_cast<std::size_t>(w) * calls + c] = iterations;
  }
}

}  // namespace

void rejection_loop_iterations(bool cached, double p, std::uint64_t seed, int warps, int calls, int* iterations, cudaStream_t stream) {
  if (!(p > 0 && p <= 1)) throw std::invalid_argument("rejection loop: p must lie in (0, 1]");
  if (warps < 1 || calls < 1) throw std::invalid_argument("rejection loop: at least one warp and one call");
  const unsigned blocks = static_cast<unsigned>((static_cast<long long>(warps) * 32 + kThreads - 1) / kThreads);
  if (cached) cached_loop<<<blocks, kThreads, 0, stream>>>(p, seed, warps, calls, iterations);
  else uncached_loop<<<blocks, kThreads, 0, stream>>>(p, seed, warps, calls, iterations);
  WARPSIM_CUDA(cudaGetLastError());
}

}  // namespace warpsim::gpu
