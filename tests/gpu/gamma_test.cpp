// Gamma variates and LDA's theta and phi on the GPU (gpu/gamma.hpp) against
// the oracle (oracle/rejection/gamma.hpp): every draw within CUDA's log and
// cos of the oracle's, uncached and pre-cached alike; the law against
// Boost.Math (KS); the warps' iterations against seed 004's law; and a
// whole uncollapsed LDA Gibbs iteration (z, then theta and phi) against the
// oracle's.
#include <gtest/gtest.h>

#include <boost/math/distributions/gamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <iostream>
#include <limits>
#include <vector>

#include "device_array.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gamma.hpp"
#include "gpu/lda_sampler.hpp"
#include "oracle/lda_workload.hpp"
#include "oracle/rejection/gamma.hpp"
#include "oracle/rejection/loop_model.hpp"
#include "properties/gpu_kernels.hpp"
#include "properties/registry.hpp"
#include "require_gpu.hpp"
#include "stats/ks_continuous.hpp"

namespace {

using namespace warpsim;
using gpu_test::DeviceArray;
namespace rj = warpsim::oracle::rejection;

const std::vector<double> kShapes = {0.05, 0.3, 1.0, 2.5, 30.0, 1000.0};

template <class T>
std::vector<T> on_gpu(const std::vector<T>& shape, std::uint64_t seed, std::uint64_t first, gpu::GammaLoop loop, gpu::RejectionCounts* counts = nullptr) {
  const DeviceArray<T> s(shape);
  DeviceArray<T> out(shape.size());
  DeviceArray<gpu::RejectionCounts> c(1);
  WARPSIM_CUDA(cudaMemset(c.p, 0, sizeof(gpu::RejectionCounts)));
  gpu::gamma_sample(s.p, shape.size(), seed, first, out.p, loop, counts ? c.p : nullptr);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  if (counts) *counts = c.download().at(0);
  return out.download();
}

// 600,000 draws of T (the six shapes in turn) from task `first` on, against
// the oracle in T's precision: the three loops give the same bits; a draw
// of shape >= 1 is the oracle's bit for bit unless a log reached its value
// (the ziggurat's tail: 2.6e-4 of normals; at most 1e-3 allowed) or a
// decision flipped; `far` counts the draws more than `tolerance`
// (relative) from the oracle's (a decision flipped by an ulp of CUDA's log
// or exp), `worst` is the others' largest difference; each shape's draws are
// then checked by KS against the gamma law (alpha 1e-6; a pass rules out a
// Kolmogorov distance of 0.012).
template <class T>
void expect_oracles_draws(std::uint64_t seed, std::uint64_t first, double tolerance, std::size_t far_allowed) {
  std::vector<T> shape(600000);
  for (std::size_t i = 0; i < shape.size(); ++i) shape[i] = static_cast<T>(kShapes[i % kShapes.size()]);
  const auto pre = on_gpu(shape, seed, first, gpu::GammaLoop::warp_precached), un = on_gpu(shape, seed, first, gpu::GammaLoop::warp_uncached);
  ASSERT_EQ(pre, un);
  ASSERT_EQ(pre, on_gpu(shape, seed, first, gpu::GammaLoop::lane));
  std::size_t far = 0, at_least_one = 0, equal = 0;
  double worst = 0;
  std::vector<std::vector<double>> by_shape(kShapes.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const T want = rj::gamma_draw<T>(shape[i], seed, first + i);
    if (shape[i] >= 1) {
      ++at_least_one;
      equal += pre[i] == want ? 1 : 0;
    }
    const double rel = std::fabs(static_cast<double>(pre[i]) - want) / std::max(std::fabs(static_cast<double>(want)), 1e-300);
    if (rel > tolerance) {
      if (++far <= 3) std::cout << "draw " << i << " shape " << shape[i] << ": GPU " << pre[i] << ", oracle " << want << "\n";
    } else {
      worst = std::max(worst, rel);
    }
    by_shape[i % kShapes.size()].push_back(static_cast<double>(pre[i]));
  }
  EXPECT_LE(far, far_allowed);
  EXPECT_GE(static_cast<double>(equal + far), 0.999 * static_cast<double>(at_least_one));
  std::cout << (sizeof(T) == 4 ? "fp32: " : "fp64: ") << far << " draws of 600,000 differ by a decision; the others within " << worst
            << " relative of the oracle; " << equal << " of " << at_least_one << " draws of shapes >= 1 equal bit for bit\n";
  for (std::size_t s = 0; s < kShapes.size(); ++s) {
    const boost::math::gamma_distribution<double> law(kShapes[s]);
    // stored in T and clamped at its smallest normal (the underflow rule:
    // 1.3% of fp32 draws at shape 0.05 are FLT_MIN)
    const auto r = stats::ks_continuous_test(by_shape[s], [&](double v) { return v <= 0 ? 0.0 : boost::math::cdf(law, v); },
                                             {.alpha = 1e-6,
                                              .stored = sizeof(T) == 4 ? stats::Stored::Float32 : stats::Stored::Float64,
                                              .clamp = {.below = static_cast<double>(std::numeric_limits<T>::min())}});
    EXPECT_FALSE(r.reject) << "shape " << kShapes[s] << ": D " << r.statistic << ", p " << r.p_value;
    EXPECT_LT(*r.detectable.kolmogorov_distance, 0.012);
  }
}

// fp64: within 1e-9 relative, no decision flipped.
TEST(GpuGamma, DrawsAreTheOraclesWithinLogAndExp) {
  WARPSIM_REQUIRE_GPU();
  expect_oracles_draws<double>(7, 12345, 1e-9, 0);
}

// fp32, computed in float (gamma_draw<float>): within 1e-4 relative but
// where a comparison falls within an ulp of CUDA's logf or expf (about 1e-7
// an attempt: at most 3 allowed here).
TEST(GpuGamma, Fp32DrawsAreTheFloatOraclesWithinLogAndExp) {
  WARPSIM_REQUIRE_GPU();
  expect_oracles_draws<float>(8, 777, 1e-4, 3);
}

// 2^24 draws of one shape: iterations a warp call against E[L_32] (uncached)
// and the pre-cached steady state for the measured acceptance, within 1%.
TEST(GpuGamma, IterationsFollowSeed004sLaw) {
  WARPSIM_REQUIRE_GPU();
  for (const double a : {0.3, 2.5}) {
    const std::vector<double> shape(std::size_t{1} << 24, a);
    for (const bool pre : {false, true}) {
      gpu::RejectionCounts c;
      on_gpu(shape, 3, 0, pre ? gpu::GammaLoop::warp_precached : gpu::GammaLoop::warp_uncached, &c);
      const double p = 1 / c.attempts_per_draw();
      const double want = pre ? rj::cached_loop(32, p).loop.mean : rj::uncached_loop(32, p).mean;
      EXPECT_NEAR(c.iterations_per_call(), want, 0.01 * want) << "shape " << a << (pre ? " pre-cached" : " uncached");
      std::cout << "shape " << a << (pre ? ", pre-cached" : ", uncached") << ": acceptance " << p << ", " << c.iterations_per_call()
                << " iterations a warp call, model " << want << "\n";
    }
  }
}

// The underflow rule (oracle/rejection/gamma.hpp): at shape 0.01, 10^6
// draws in each precision; none below the smallest normal number, as many at
// it as the oracle has (a decision within an ulp of exp may move one) and
// as the law puts there (P = 0.4199 in float, 8.4e-4 in double; within 5
// standard deviations).
TEST(GpuGamma, UnderflowIsTheSmallestNormal) {
  WARPSIM_REQUIRE_GPU();
  auto check = [](auto zero) {
    using T = decltype(zero);
    const std::vector<T> shape(1000000, T(0.01));
    const auto got = on_gpu(shape, 41, 0, gpu::GammaLoop::lane);
    const T min = std::numeric_limits<T>::min();
    std::size_t at_min = 0, oracle_at_min = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_GE(got[i], min) << i;
      at_min += got[i] == min ? 1 : 0;
      oracle_at_min += rj::gamma_draw<T>(T(0.01), 41, i) == min ? 1 : 0;
    }
    EXPECT_NEAR(static_cast<double>(at_min), static_cast<double>(oracle_at_min), 2.0);
    const double p = boost::math::gamma_p(0.01, static_cast<double>(min)), mean = p * 1e6;
    EXPECT_NEAR(static_cast<double>(at_min), mean, 5 * std::sqrt(mean * (1 - p)));
    std::cout << (sizeof(T) == 4 ? "fp32: " : "fp64: ") << at_min << " of 10^6 at the smallest normal (oracle " << oracle_at_min << ", law " << mean << ")\n";
  };
  check(0.0f);
  check(0.0);
}

// A whole uncollapsed Gibbs iteration: z by the butterfly kernel (equal to
// the oracle bit for bit: tests/gpu/lda_sampler_test.cpp), then theta and
// phi from that z, against the oracle's (within 1e-9 relative in fp64;
// 700 words: phi's column sums take three chunks).
TEST(GpuGamma, LdaGibbsIterationEqualsTheOracle) {
  WARPSIM_REQUIRE_GPU();
  const auto corpus = oracle::make_lda_corpus({.documents = 300, .vocabulary = 700, .tokens = 9000, .longest = 80, .seed = 5});
  const int k = 64, vocabulary = corpus.vocabulary;
  const auto model = oracle::make_lda_model<double>(corpus, k, 9);
  DeviceArray<double> theta(model.theta), phi(model.phi);
  const DeviceArray<int> offsets(corpus.offsets), words(corpus.words);
  DeviceArray<int> z(corpus.words.size());
  gpu::LdaSampler<double> zs;
  zs.draw(theta.p, phi.p, offsets.p, words.p, corpus.documents, k, 9, gpu::MatrixAlgorithm::ButterflyAddSub, z.p);
  gpu::LdaTopicSampler<double> topics;
  topics.draw(z.p, offsets.p, words.p, corpus.documents, vocabulary, k, 0.1, 0.01, 10, theta.p, phi.p);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  const auto want_z = oracle::lda_draw<double>(corpus, model, 9, *properties::find_algorithm("butterfly-addsub").oracle_algorithm);
  ASSERT_EQ(z.download(), want_z);
  const auto want = rj::lda_topic_draws(want_z, corpus.offsets, corpus.words, vocabulary, k, 0.1, 0.01, 10);
  const auto got_theta = theta.download(), got_phi = phi.download();
  for (std::size_t i = 0; i < want.theta.size(); ++i) ASSERT_NEAR(got_theta[i], want.theta[i], 1e-9 * want.theta[i]) << "theta " << i;
  for (std::size_t i = 0; i < want.phi.size(); ++i) ASSERT_NEAR(got_phi[i], want.phi[i], 1e-9 * want.phi[i]) << "phi " << i;
  // fp32: theta and phi in float against the float oracle (1e-4 relative; a
  // flipped decision, about 1e-7 an attempt, would show as one far entry).
  const auto model32 = oracle::make_lda_model<float>(corpus, k, 9);
  DeviceArray<float> theta32(model32.theta), phi32(model32.phi);
  gpu::LdaTopicSampler<float> topics32;
  topics32.draw(z.p, offsets.p, words.p, corpus.documents, vocabulary, k, 0.1, 0.01, 10, theta32.p, phi32.p);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  const auto want32 = rj::lda_topic_draws<float>(want_z, corpus.offsets, corpus.words, vocabulary, k, 0.1, 0.01, 10);
  const auto t32 = theta32.download(), p32 = phi32.download();
  std::size_t far = 0;
  for (std::size_t i = 0; i < t32.size(); ++i) far += std::fabs(t32[i] - want32.theta[i]) > 1e-4f * want32.theta[i] ? 1 : 0;
  for (std::size_t i = 0; i < p32.size(); ++i) far += std::fabs(p32[i] - want32.phi[i]) > 1e-4f * want32.phi[i] + 1e-30f ? 1 : 0;
  EXPECT_LE(far, 1u) << "of " << t32.size() + p32.size();
  EXPECT_THROW(topics.draw(z.p, offsets.p, words.p, corpus.documents, vocabulary, k, 0.0, 0.01, 10, theta.p, phi.p), std::invalid_argument);
  EXPECT_THROW(topics.draw(z.p, offsets.p, words.p, corpus.documents, vocabulary, k, 0.1, NAN, 10, theta.p, phi.p), std::invalid_argument);
}

// One LdaTopicSampler for several draws: its gamma kernel sets the counts
// back to 0 and the next draw counts into them without a memset, so each
// draw must still be the oracle's -- again with a new z, with more topics
// (a larger allocation: zeroed once), then fewer (inside the zeroed bytes).
TEST(GpuGamma, LdaTopicDrawsStayTheOraclesDrawAfterDraw) {
  WARPSIM_REQUIRE_GPU();
  const auto corpus = oracle::make_lda_corpus({.documents = 120, .vocabulary = 300, .tokens = 4000, .longest = 70, .seed = 8});
  const DeviceArray<int> offsets(corpus.offsets), words(corpus.words);
  gpu::LdaTopicSampler<double> topics;
  std::uint64_t seed = 20;
  for (const int k : {32, 32, 96, 16}) {
    const auto model = oracle::make_lda_model<double>(corpus, k, seed);
    const auto z = oracle::lda_draw<double>(corpus, model, seed, *properties::find_algorithm("butterfly-addsub").oracle_algorithm);
    const DeviceArray<int> dz(z);
    DeviceArray<double> theta(model.theta), phi(model.phi);
    topics.draw(dz.p, offsets.p, words.p, corpus.documents, corpus.vocabulary, k, 0.1, 0.01, seed, theta.p, phi.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    const auto want = rj::lda_topic_draws(z, corpus.offsets, corpus.words, corpus.vocabulary, k, 0.1, 0.01, seed);
    const auto got_theta = theta.download(), got_phi = phi.download();
    for (std::size_t i = 0; i < want.theta.size(); ++i) ASSERT_NEAR(got_theta[i], want.theta[i], 1e-9 * want.theta[i]) << "K " << k << ", theta " << i;
    for (std::size_t i = 0; i < want.phi.size(); ++i) ASSERT_NEAR(got_phi[i], want.phi[i], 1e-9 * want.phi[i]) << "K " << k << ", phi " << i;
    ++seed;
  }
}

}  // namespace
