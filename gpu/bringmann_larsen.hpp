// Bringmann and Larsen's rejection sampling on the GPU (seed 001, Sec. 2.8
// and 5.3.2), equal to the oracle (oracle/rejection/bringmann_larsen.hpp)
// bit for bit: the same structure for every input, the same index for every
// draw, with or without pre-caching, whatever the launch.
//
// The structure, in the alias tables' exact units (u_i, U; docs/alias.md):
// item i has Occ_i = floor(N u_i / U) + 1 slots of the array A (M = sum Occ_i
// slots, N <= M <= 2N), stored as a bit array (1 where an item starts) in
// 16-byte words with the rank of each (the 1s before it), and a threshold a
// item, floor(r_i 2^64 / U) for r_i = N u_i mod U, that the item's first slot
// must beat.
//
// Draw d: attempt j = 0, 1, ... takes rng/'s Philox block (seed, stream d,
// draw j) as 128 bits (hi, lo): slot k = floor(hi M / 2^64), its word, its
// item rank + popcount - 1; a first slot accepts if lo < its item's
// threshold, any other slot always. An attempt is accepted with probability
// N / M >= 1/2 (errata E19). The kernel runs the attempts with
// gpu/warp_rejection.cuh's loop, uncached or pre-cached (seed 004).
//
//   BringmannLarsenBuilder<float> builder;
//   const auto info = builder.build(d_weights, n, d_words, d_thresholds);   // bringmann_larsen_words(n) words, n thresholds
//   bringmann_larsen_sample(d_words, d_thresholds, info, seed, 0, draws, d_out);   // draw d = oracle::rejection::draw(s, seed, d)
//
// Every CUDA call is checked (gpu/cuda_check.hpp); bad weights throw
// std::invalid_argument with the oracle's message.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/alias_table.hpp"
#include "gpu/rejection_counts.hpp"

namespace warpsim::gpu {

/// A word of the bit array and its rank: what an attempt reads first.
struct alignas(16) BringmannLarsenWord {
  std::uint64_t bits = 0;  // bit b: slot 64 w + b starts an item
  std::uint32_t rank = 0;  // the 1s in the words before
  std::uint32_t pad = 0;
};
static_assert(sizeof(BringmannLarsenWord) == 16);

struct BringmannLarsenInfo {
  std::size_t n = 0;           // N
  std::uint64_t slots = 0;     // M
  std::uint64_t capacity = 0;  // U
  int exponent = 0;            // the unit, 2^exponent of the weights
  double acceptance() const { return static_cast<double>(n) / static_cast<double>(slots); }
};

/// The largest N: slot indices (M <= 2N) are 32-bit.
inline constexpr std::size_t kBringmannLarsenMaxItems = (std::size_t{1} << 31) - 1;

/// Words to allocate for n items (enough for M <= 2N slots).
inline std::size_t bringmann_larsen_words(std::size_t n) { return (2 * n + 63) / 64; }

template <class T>
class BringmannLarsenBuilder {
 public:
  BringmannLarsenBuilder();
  ~BringmannLarsenBuilder();
  BringmannLarsenBuilder(const BringmannLarsenBuilder&) = delete;
  BringmannLarsenBuilder& operator=(const BringmannLarsenBuilder&) = delete;

  /// @param weights     n weights, device or host memory (host: copied first)
  /// @param words       device, bringmann_larsen_words(n) words
  /// @param thresholds  device, n thresholds
  /// Returns when the structure is written. Throws std::invalid_argument for
  /// n = 0 or n > kBringmannLarsenMaxItems, a NaN, negative or infinite
  /// weight, or all weights 0 (the message says which); CudaError for a CUDA
  /// failure.
  BringmannLarsenInfo build(const T* weights, std::size_t n, BringmannLarsenWord* words, std::uint64_t* thresholds, cudaStream_t stream = nullptr);

 private:
  struct Scratch;
  Scratch* scratch_;
};

/// Draws first .. first + count - 1: out[i] is draw first + i. `precached`:
/// seed 004's pre-caching, else its uncached loop (the draws are the same);
/// `counts` (device memory, or null): the run's counters are added there
/// (gpu/rejection_counts.hpp).
/// Asynchronous on `stream`.
void bringmann_larsen_sample(const BringmannLarsenWord* words, const std::uint64_t* thresholds, const BringmannLarsenInfo& info,
                             std::uint64_t seed, std::uint64_t first, std::uint64_t count, std::uint32_t* out, bool precached = true,
                             RejectionCounts* counts = nullptr, cudaStream_t stream = nullptr);

}  // namespace warpsim::gpu
