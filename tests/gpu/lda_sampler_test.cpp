// The LDA z-draw on the GPU against the oracle's replay, bit for bit.
#include <gtest/gtest.h>

#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/lda_sampler.hpp"
#include "oracle/lda_workload.hpp"
#include "device_array.hpp"
#include "oracle_twin.hpp"
#include "require_gpu.hpp"

using namespace warpsim;

namespace {

template <class T>
using Dev = gpu_test::DeviceArray<T>;

template <class T>
void check(const oracle::LdaCorpus& corpus, int k, std::uint64_t seed) {
  const auto model = oracle::make_lda_model<T>(corpus, k, seed);
  Dev<T> theta(model.theta), phi(model.phi);
  Dev<int> offsets(corpus.offsets), words(corpus.words), z(corpus.words.size());
  gpu::LdaSampler<T> sampler;
  for (auto algo : {gpu::MatrixAlgorithm::Baseline, gpu::MatrixAlgorithm::TransposedRegisters, gpu::MatrixAlgorithm::ButterflyStandard,
                    gpu::MatrixAlgorithm::ButterflyAddSub}) {
    WARPSIM_CUDA(cudaMemset(z.p, 0xff, corpus.words.size() * sizeof(int)));  // poison: every token must be written
    sampler.draw(theta.p, phi.p, offsets.p, words.p, corpus.documents, k, seed, algo, z.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    std::vector<int> got(corpus.words.size());
    WARPSIM_CUDA(cudaMemcpy(got.data(), z.p, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    const auto want = oracle::lda_draw<T>(corpus, model, seed, gpu_test::oracle_twin(algo));
    int bad = 0;
    for (std::size_t t = 0; t < got.size(); ++t) {
      if (got[t] != want[t] && ++bad <= 3) {
        ADD_FAILURE() << gpu::algorithm_name(algo) << " K " << k << " token " << t << ": GPU " << got[t] << ", oracle " << want[t];
      }
    }
    EXPECT_EQ(bad, 0) << gpu::algorithm_name(algo) << " K " << k << (sizeof(T) == 4 ? " fp32" : " fp64");
  }
}

}  // namespace

TEST(GpuLda, EveryTokensDrawEqualsTheOracleBitForBit) {
  WARPSIM_REQUIRE_GPU();
  // 70 documents (a partial last warp) of 1..60 tokens, Zipf words.
  const auto corpus = oracle::make_lda_corpus({.documents = 70, .vocabulary = 40, .tokens = 1500, .longest = 60, .seed = 3});
  ASSERT_EQ(corpus.longest(), 60);
  // K = 300 and 450: the butterfly past shared memory keeps only sums (fp64; fp32 at 450),
  // with theta_local in shared memory or in global scratch (1030).
  for (int k : {1, 7, 16, 32, 45, 100, 300, 450, 1030}) {
    check<float>(corpus, k, 11);
    check<double>(corpus, k, 12);
  }
}

TEST(GpuLda, RejectsBadArguments) {
  WARPSIM_REQUIRE_GPU();
  gpu::LdaSampler<float> sampler;
  EXPECT_THROW(sampler.draw(nullptr, nullptr, nullptr, nullptr, 1, 4, 0, gpu::MatrixAlgorithm::Baseline, nullptr), std::invalid_argument);
}
