// The LDA z-draw on the GPU against the oracle's replay, bit for bit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/lda_sampler.hpp"
#include "oracle/lda_workload.hpp"
#include "device_array.hpp"
#include "properties/gpu_kernels.hpp"
#include "properties/registry.hpp"
#include "require_gpu.hpp"

using namespace warpsim;

namespace {

template <class T>
using Dev = gpu_test::DeviceArray<T>;

template <class T>
void check(const oracle::LdaCorpus& corpus, int k, std::uint64_t seed, const gpu::LdaTuning* tuning = nullptr) {
  const auto model = oracle::make_lda_model<T>(corpus, k, seed);
  Dev<T> theta(model.theta), phi(model.phi);
  Dev<int> offsets(corpus.offsets), words(corpus.words), z(corpus.words.size());
  gpu::LdaSampler<T> sampler;
  if (tuning) sampler.set_tuning(*tuning);
  for (auto algo : {gpu::MatrixAlgorithm::Baseline, gpu::MatrixAlgorithm::TransposedRegisters, gpu::MatrixAlgorithm::ButterflyStandard,
                    gpu::MatrixAlgorithm::ButterflyAddSub}) {
    WARPSIM_CUDA(cudaMemset(z.p, 0xff, corpus.words.size() * sizeof(int)));  // poison: every token must be written
    sampler.draw(theta.p, phi.p, offsets.p, words.p, corpus.documents, k, seed, algo, z.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    std::vector<int> got(corpus.words.size());
    WARPSIM_CUDA(cudaMemcpy(got.data(), z.p, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    const auto want = oracle::lda_draw<T>(corpus, model, seed, *properties::find_algorithm(properties::name_of(algo)).oracle_algorithm);
    int bad = 0;
    for (std::size_t t = 0; t < got.size(); ++t) {
      if (got[t] != want[t] && ++bad <= 3) {
        ADD_FAILURE() << properties::name_of(algo) << " K " << k << " token " << t << ": GPU " << got[t] << ", oracle " << want[t];
      }
    }
    EXPECT_EQ(bad, 0) << properties::name_of(algo) << " K " << k << (sizeof(T) == 4 ? " fp32" : " fp64") << " ring " << sampler.tuning(algo).ring << " tokens " << sampler.tuning(algo).tokens << " chunk " << sampler.tuning(algo).chunk;
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

// Every tuning past shared memory: the blocks through a ring of 2 or 3
// stages for 1, 2 or 4 tokens of a document at a time, the block sums in
// shared memory or in global scratch, or (ring 0) theta_local and the sums
// in global scratch.
class GpuLdaTuning : public testing::TestWithParam<gpu::LdaTuning> {};

TEST_P(GpuLdaTuning, DrawsEqualTheOracle) {
  WARPSIM_REQUIRE_GPU();
  const gpu::LdaTuning tuning = GetParam();
  const auto corpus = oracle::make_lda_corpus({.documents = 70, .vocabulary = 40, .tokens = 1500, .longest = 60, .seed = 4});
  // K = 450 copies 16 bytes at a time in fp64 and single values in fp32
  // (450 * 4 is not a multiple of 16); K = 1060, 16 bytes in both, after a
  // remnant of 4.
  for (int k : {450, 1060}) {
    check<float>(corpus, k, 21, &tuning);
    check<double>(corpus, k, 22, &tuning);
  }
  // Ring 3 for 4 tokens needs more shared memory than a block may have at
  // K = 3000 in fp64 (the kernel falls back to 2 tokens).
  if (tuning.ring == 3 && tuning.tokens == 4) check<double>(corpus, 3000, 23, &tuning);
}

INSTANTIATE_TEST_SUITE_P(RingAndTokens, GpuLdaTuning,
                         testing::Values(gpu::LdaTuning{0, 1}, gpu::LdaTuning{2, 1}, gpu::LdaTuning{3, 1}, gpu::LdaTuning{2, 2},
                                         gpu::LdaTuning{3, 2}, gpu::LdaTuning{2, 4}, gpu::LdaTuning{3, 4}, gpu::LdaTuning{2, 1, true},
                                         gpu::LdaTuning{2, 2, true}, gpu::LdaTuning{3, 2, true}, gpu::LdaTuning{3, 4, true},
                                         gpu::LdaTuning{2, 1, false, 1}, gpu::LdaTuning{3, 2, false, 3}, gpu::LdaTuning{2, 2, true, 1},
                                         gpu::LdaTuning{2, 4, true, 2}, gpu::LdaTuning{3, 4, true, 5}),
                         [](const testing::TestParamInfo<gpu::LdaTuning>& p) {
                           return "ring" + std::to_string(p.param.ring) + "_tokens" + std::to_string(p.param.tokens) +
                                  (p.param.global_sums ? "_global_sums" : "") + (p.param.chunk ? "_chunk" + std::to_string(p.param.chunk) : "");
                         });

// Chunks of a group (LdaTuning::chunk) over a corpus with runs of groups of
// empty documents longer than a warp (no chunks: the first item's search
// passes them), a group whose chunks outnumber the others', and a last group
// of 5 documents. (A warp's forward search from one item to the next runs
// only where the chunks outnumber the resident warps, which this corpus
// need not reach: the seed-sized corpus of the benchmarks does.)
TEST(GpuLda, ChunksOfGroupsSkipEmptyGroupsAndEqualTheOracle) {
  WARPSIM_REQUIRE_GPU();
  const auto base = oracle::make_lda_corpus({.documents = 400, .vocabulary = 50, .tokens = 9000, .longest = 200, .seed = 5});
  oracle::LdaCorpus corpus;
  corpus.vocabulary = base.vocabulary;
  corpus.offsets = {0};
  const auto add = [&](int m) {  // document m of base, or an empty one (m < 0)
    if (m >= 0) corpus.words.insert(corpus.words.end(), base.words.begin() + base.offsets[m], base.words.begin() + base.offsets[m + 1]);
    corpus.offsets.push_back(static_cast<int>(corpus.words.size()));
  };
  for (int m = 0; m < 64; ++m) add(m);                 // groups 0, 1: the longest documents
  for (int m = 0; m < 40 * 32; ++m) add(-1);           // groups 2 .. 41: empty
  for (int m = 64; m < 96; ++m) add(m);                // group 42
  for (int m = 0; m < 33 * 32; ++m) add(-1);           // groups 43 .. 75: empty
  for (int m = 96; m < 389; ++m) add(m);               // groups 76 .. 85, and 5 documents of group 86
  corpus.documents = static_cast<int>(corpus.offsets.size()) - 1;
  ASSERT_EQ(corpus.documents % 32, 5);
  // K = 600: the ring kernel; K = 100: theta_local and the running sums in
  // shared memory (a group's theta cached once a run of its chunks); ring 0:
  // in global scratch.
  for (const gpu::LdaTuning tuning :
       {gpu::LdaTuning{2, 1, false, 1}, gpu::LdaTuning{2, 2, true, 3}, gpu::LdaTuning{3, 4, true, 1}, gpu::LdaTuning{0, 1, false, 2}}) {
    for (int k : {100, 600}) {
      check<float>(corpus, k, 31, &tuning);
      check<double>(corpus, k, 32, &tuning);
    }
  }
}

TEST(GpuLda, RejectsBadArguments) {
  WARPSIM_REQUIRE_GPU();
  gpu::LdaSampler<float> sampler;
  EXPECT_THROW(sampler.draw(nullptr, nullptr, nullptr, nullptr, 1, 4, 0, gpu::MatrixAlgorithm::Baseline, nullptr), std::invalid_argument);
  EXPECT_THROW(sampler.set_tuning({1}), std::invalid_argument);
  EXPECT_THROW(sampler.set_tuning({4}), std::invalid_argument);
  EXPECT_THROW(sampler.set_tuning({2, 3}), std::invalid_argument);
  EXPECT_THROW(sampler.set_tuning({2, 0}), std::invalid_argument);
  EXPECT_THROW(sampler.set_tuning({2, 1, false, -1}), std::invalid_argument);
  EXPECT_THROW(sampler.set_tuning({2, 1, false, gpu::LdaTuning::kMaxChunk + 1}), std::invalid_argument);
}
