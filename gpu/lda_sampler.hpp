// The z-draw of an uncollapsed LDA Gibbs sweep on the GPU (seed 000, Sec. 4-6):
// for every token t of document m with word c, weights theta[m, k] * phi[c, k]
// computed on the fly, z[t] drawn with u = rng::uniform(seed, t). A thread
// per document; the warp-cooperative algorithms keep every lane awake with
// the seed's master-index loop. Indices equal the oracle's
// (oracle/lda_workload.hpp) bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/launch.hpp"
#include "gpu/matrix_sampler.hpp"  // MatrixAlgorithm names the same four algorithms

namespace warpsim::gpu {

// A launch choice that changes the speed of the warp-cooperative kernels and
// never their results (the GPU tests run every choice against the oracle;
// bench_gpu_lda --sweep times them). LdaSampler<T>::default_tuning(algorithm)
// is the fastest measured for T and that algorithm (docs/PERF.md).
struct LdaTuning {
  // Past shared memory (theta_local and the running sums no longer fit), a
  // lane keeps only block sums, and each block's theta and phi tiles come
  // through a ring of this many stages in shared memory, ring - 1 blocks in
  // flight per warp: 2 or 3; 0 keeps theta_local and the sums in global
  // scratch and loads the blocks straight into registers.
  int ring = 2;
  // With a ring, each theta tile copied serves this many tokens of every
  // document (1, 2 or 4): theta is read once per `tokens` tokens instead of
  // once per token, in that many more phi tiles and sums of shared memory.
  int tokens = 1;
  // With a ring, the tokens' block sums (K / 32 values a lane and token) in
  // global scratch, where they are written once a block and read once a
  // search (from L2), instead of in shared memory beside the ring: at fp64
  // K = 1,024 and 2 tokens that frees 16.5 KiB of a warp's 66.
  bool global_sums = false;
  // A warp takes a group's master-index steps (one token of each of its W
  // documents a step) this many times `tokens` steps at a time (with a ring;
  // without one, `chunk` steps), each such chunk a work item of its own, so
  // that a group of long documents is drawn by several warps at once and the
  // warps' work evens out (gpu/detail/lda_schedule.cuh); 0: a warp takes
  // whole groups, round robin (the seed's schedule). 0 to kMaxChunk.
  int chunk = 0;
  static constexpr int kMaxChunk = 1 << 16;
};

template <class T>
class LdaSampler {
 public:
  // Device pointers: theta (documents x K), phi (vocabulary x K), offsets
  // (documents + 1), words and z (one per token). Asynchronous on `stream`.
  void draw(const T* theta, const T* phi, const int* offsets, const int* words, int documents, int k, std::uint64_t seed,
            MatrixAlgorithm algorithm, int* z, cudaStream_t stream = nullptr);

  // Ring 2; each theta tile for 2 tokens, but 1 with the transpose in fp64
  // (whose block then lacks registers); the block sums in global scratch (a
  // warp more an SM), but in shared memory with the transpose in fp64;
  // chunks of 2 (docs/perf/lda.md). The baseline ignores the tuning.
  static LdaTuning default_tuning(MatrixAlgorithm algorithm) {
    const bool transposed_fp64 = algorithm == MatrixAlgorithm::TransposedRegisters && sizeof(T) == 8;
    return {2, transposed_fp64 ? 1 : 2, !transposed_fp64, 2};
  }
  // One tuning for every algorithm from now on, instead of their defaults.
  // Throws std::invalid_argument on a ring other than 0, 2 or 3, tokens
  // other than 1, 2 or 4, or a chunk outside 0 .. LdaTuning::kMaxChunk.
  void set_tuning(const LdaTuning& tuning);
  // The tuning `algorithm` runs with.
  LdaTuning tuning(MatrixAlgorithm algorithm) const { return has_tuning_ ? tuning_ : default_tuning(algorithm); }

 private:
  DeviceScratch<T> scratch_;
  DeviceScratch<int> plan_;                 // the chunks' prefix (LdaTuning::chunk)
  DeviceScratch<unsigned char> plan_temp_;  // its scan's temporary storage
  bool has_tuning_ = false;
  LdaTuning tuning_;
};

}  // namespace warpsim::gpu
