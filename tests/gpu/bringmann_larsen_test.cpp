// Bringmann-Larsen on the GPU (gpu/bringmann_larsen.hpp) against the oracle
// (oracle/rejection/bringmann_larsen.hpp): the structure bit for bit, every
// draw uncached and pre-cached, the attempts the uncached loop makes, and
// the warps' iterations against seed 004's exact law for p = N / M.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "device_array.hpp"
#include "gpu/bringmann_larsen.hpp"
#include "gpu/cuda_check.hpp"
#include "oracle/rejection/bringmann_larsen.hpp"
#include "oracle/rejection/loop_model.hpp"
#include "require_gpu.hpp"
#include "tests/alias_test_weights.hpp"

namespace {

using namespace warpsim;
using gpu_test::DeviceArray;
namespace rj = warpsim::oracle::rejection;

template <class T>
struct OnGpu {
  gpu::BringmannLarsenInfo info;
  DeviceArray<gpu::BringmannLarsenWord> words;
  DeviceArray<std::uint64_t> thresholds;
  explicit OnGpu(const std::vector<T>& w, bool from_host = false)
      : words(gpu::bringmann_larsen_words(w.size())), thresholds(w.size()) {
    gpu::BringmannLarsenBuilder<T> builder;
    if (from_host) {
      info = builder.build(w.data(), w.size(), words.p, thresholds.p);
    } else {
      const DeviceArray<T> dw(w);
      info = builder.build(dw.p, w.size(), words.p, thresholds.p);
    }
  }
  std::vector<std::uint32_t> sample(std::uint64_t seed, std::uint64_t first, std::uint64_t count, bool precached,
                                    gpu::RejectionCounts* counts = nullptr) const {
    DeviceArray<std::uint32_t> out(count);
    DeviceArray<gpu::RejectionCounts> c(1);
    WARPSIM_CUDA(cudaMemset(c.p, 0, sizeof(gpu::RejectionCounts)));
    gpu::bringmann_larsen_sample(words.p, thresholds.p, info, seed, first, count, out.p, precached, counts ? c.p : nullptr);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    if (counts) *counts = c.download().at(0);
    return out.download();
  }
};

template <class T>
std::vector<std::vector<T>> inputs() {
  return {test::shuffled_power_law<T>(100000), test::uniform_weights<T>(70001, 3), std::vector<T>(5000, T(1)), {0, 2.5, 0, 1}, {7}, {0, 0, 3, 0}};
}

template <class T>
void expect_same_structure(const std::vector<T>& w, bool from_host) {
  const auto want = rj::build<T>(w);
  const OnGpu<T> got(w, from_host);
  ASSERT_EQ(got.info.n, want.n);
  ASSERT_EQ(got.info.slots, want.slots);
  EXPECT_EQ(got.info.capacity, want.capacity);
  EXPECT_EQ(got.info.exponent, want.exponent);
  const auto words = got.words.download();
  for (std::size_t i = 0; i < want.words.size(); ++i) {
    ASSERT_EQ(words[i].bits, want.words[i].bits) << "word " << i;
    ASSERT_EQ(words[i].rank, want.words[i].rank) << "word " << i;
  }
  EXPECT_EQ(got.thresholds.download(), want.threshold);
}

TEST(GpuBringmannLarsen, BuildsTheOraclesStructureBitForBit) {
  WARPSIM_REQUIRE_GPU();
  for (const auto& w : inputs<double>()) expect_same_structure(w, false);
  for (const auto& w : inputs<float>()) expect_same_structure(w, false);
  expect_same_structure(test::shuffled_power_law<float>(3001), true);  // weights on the host
}

TEST(GpuBringmannLarsen, RefusesBadWeightsWithTheOraclesMessage) {
  WARPSIM_REQUIRE_GPU();
  for (const auto& [w, what] : std::vector<std::pair<std::vector<double>, std::string>>{
           {{1, NAN, 2}, "weight 1 is not a number"}, {{1, 2, -1}, "weight 2 is negative"}, {{0, 0}, "every weight is 0"}, {{INFINITY}, "infinite"}}) {
    try {
      OnGpu<double> s(w);
      ADD_FAILURE() << "accepted " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
}

TEST(GpuBringmannLarsen, EveryDrawIsTheOraclesUncachedOrPreCached) {
  WARPSIM_REQUIRE_GPU();
  for (const auto& w : inputs<double>()) {
    const auto host = rj::build<double>(w);
    const OnGpu<double> s(w);
    const std::uint64_t first = (std::uint64_t{1} << 40) + 17, count = 300001;
    const auto pre = s.sample(5, first, count, true), un = s.sample(5, first, count, false);
    ASSERT_EQ(pre, un) << "pre-caching changes no draw";
    for (std::uint64_t d = 0; d < count; d += (d < 5000 ? 1 : 97)) ASSERT_EQ(pre[d], rj::draw(host, 5, first + d)) << "draw " << d;
    // The registry's oracle (the warp model) on the first draws.
    EXPECT_EQ(std::vector<std::uint32_t>(pre.begin(), pre.begin() + 256), rj::draws_on_model(host, 5, first, 256, true));
  }
}

// The uncached loop's attempts are the draws' own: exactly the oracle's count.
TEST(GpuBringmannLarsen, UncachedAttemptsAreTheOraclesAttempts) {
  WARPSIM_REQUIRE_GPU();
  const auto w = test::shuffled_power_law<double>(20000);
  const auto host = rj::build<double>(w);
  const OnGpu<double> s(w);
  gpu::RejectionCounts c;
  s.sample(8, 1000, 200000, false, &c);
  std::uint64_t attempts = 0;
  for (std::uint64_t d = 0; d < 200000; ++d) rj::draw(host, 8, 1000 + d, &attempts);
  EXPECT_EQ(c.attempts, attempts);
  EXPECT_EQ(c.draws, 200000u);
}

// 2^26 draws (about 250 calls a warp on an H100/H200; the counts take the
// calls where every lane has a draw): the mean iterations a warp call
// against E[L_32] for p = N / M (uncached) and the pre-cached steady state,
// within 1% (the standard error of the mean is about 0.03%; the pre-cached
// first call, which starts from no cache, adds about 0.3%).
TEST(GpuBringmannLarsen, IterationsFollowSeed004sLaw) {
  WARPSIM_REQUIRE_GPU();
  for (const auto& w : {std::vector<double>(1000003, 1.0), test::shuffled_power_law<double>(1000000)}) {
    const OnGpu<double> s(w);
    const double p = s.info.acceptance();
    for (const bool pre : {false, true}) {
      gpu::RejectionCounts c;
      s.sample(3, 0, std::uint64_t{1} << 26, pre, &c);
      const double mean = static_cast<double>(c.warp_iterations) / static_cast<double>(c.warp_calls);
      const double want = pre ? rj::cached_loop(32, p).loop.mean : rj::uncached_loop(32, p).mean;
      EXPECT_NEAR(mean, want, 0.01 * want) << (pre ? "pre-cached" : "uncached") << " p = " << p;
      std::cout << (pre ? "pre-cached" : "uncached") << ", p = " << p << ": " << mean << " iterations a warp call, model " << want << ", "
                << static_cast<double>(c.attempts) / static_cast<double>(c.draws) << " attempts a draw\n";
    }
  }
}

}  // namespace
