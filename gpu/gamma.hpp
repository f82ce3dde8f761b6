// Gamma variates on the GPU by Marsaglia and Tsang's rejection method, run
// with gpu/warp_rejection.cuh's loop (uncached or with seed 004's
// pre-caching), and from them the theta and phi half of seed 000's
// uncollapsed LDA Gibbs sweep. The definition, the Philox mapping and what
// "equal to the oracle" means here (within CUDA's log and cos) are in
// oracle/rejection/gamma.hpp.
//
//   gpu::gamma_sample(d_shape, n, seed, 0, d_out);                 // out[i] = Gamma(shape[i]), task i
//   gpu::LdaTopicSampler<float> topics;
//   topics.draw(d_z, d_offsets, d_words, documents, vocabulary, k, 0.1, 0.01, seed, d_theta, d_phi);
//
// Every CUDA call is checked; bad arguments throw std::invalid_argument.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/launch.hpp"
#include "gpu/rejection_counts.hpp"

namespace warpsim::gpu {

/// How a kernel's lanes run their attempts (the same attempts, the same
/// variates; only the time and RejectionCounts' warp figures differ):
///   lane            each lane its own tasks, retrying a rejected one (the fastest)
///   warp_uncached   seed 004's first listing: a warp call waits for its slowest lane
///   warp_precached  seed 004's second listing: lanes done attempt their next task
enum class GammaLoop { lane, warp_uncached, warp_precached };

/// out[i] = a Gamma(shape[i]) variate (scale 1), the oracle's task first + i
/// computed in T: oracle::rejection::gamma_draw<T>(shape[i], seed, first + i)
/// (bit for bit where no log or exp is called; a variate below T's smallest
/// normal number is that number). Shapes must be finite and > 0 (not
/// checked on the device: a kernel author's input).
/// `counts` (device memory, or null) is added to. Asynchronous on `stream`.
template <class T>
void gamma_sample(const T* shape, std::size_t n, std::uint64_t seed, std::uint64_t first, T* out, GammaLoop loop = GammaLoop::lane,
                  RejectionCounts* counts = nullptr, cudaStream_t stream = nullptr);

/// The theta and phi draws of an uncollapsed LDA Gibbs sweep, given z (the
/// other half: gpu/lda_sampler.hpp). With n[m, k] the tokens of document m
/// on topic k and n[c, k] those of word c on topic k (counted from z):
///   theta[m, k] = Gamma(alpha + n[m, k])                 task m K + k
///   phi[c, k]   = Gamma(beta + n[c, k]) (1 / S_k)        task M K + c K + k
/// S_k = sum over c of the column's variates (chunks of 256 words, each in
/// word order, then the chunks in order: the same sum every run, and the
/// oracle's). Row m of theta is then a
/// Dirichlet(alpha + n[m, .]) draw up to its scale, which the z draw does
/// not see (it normalises each token's weights); column k of phi is a
/// Dirichlet(beta + n[., k]) draw. The variates are computed in T, the sums
/// in double (oracle::rejection::lda_topic_draws<T>). Layouts as
/// LdaSampler's: theta documents x K, phi vocabulary x K.
template <class T>
class LdaTopicSampler {
 public:
  /// Device pointers: z and words (one per token), offsets (documents + 1);
  /// theta, phi written. alpha, beta > 0 and finite. Throws
  /// std::invalid_argument for bad sizes or priors; asynchronous on `stream`.
  void draw(const int* z, const int* offsets, const int* words, int documents, int vocabulary, int k, double alpha, double beta,
            std::uint64_t seed, T* theta, T* phi, GammaLoop loop = GammaLoop::lane, RejectionCounts* counts = nullptr,
            cudaStream_t stream = nullptr);

 private:
  DeviceScratch<unsigned char> scratch_;
  // scratch_ at zeroed_at_ starts with zeroed_bytes_ zero bytes: the counts
  // the last draw's gamma kernel set back to 0 (none before a draw).
  const unsigned char* zeroed_at_ = nullptr;
  std::size_t zeroed_bytes_ = 0;
};

}  // namespace warpsim::gpu
