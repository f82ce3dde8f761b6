// Seed 004's loops on the GPU (gpu/rejection_loop.hpp): each warp's count of
// iterations a call equals the warp model's (oracle/rejection/loop_warp.hpp)
// for the same uniforms, call for call; and at scale the GPU's counts follow
// the exact law (oracle/rejection/loop_model.hpp): the three-way agreement of
// issue 15.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <vector>

#include "device_array.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/rejection_loop.hpp"
#include "oracle/rejection/loop_model.hpp"
#include "oracle/rejection/loop_warp.hpp"
#include "require_gpu.hpp"
#include "stats/goodness_of_fit.hpp"

namespace {

using namespace warpsim;
using gpu_test::DeviceArray;
namespace rj = warpsim::oracle::rejection;

std::vector<int> on_gpu(bool cached, double p, std::uint64_t seed, int warps, int calls) {
  DeviceArray<int> out(static_cast<std::size_t>(warps) * static_cast<std::size_t>(calls));
  gpu::rejection_loop_iterations(cached, p, seed, warps, calls, out.p);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  return out.download();
}

TEST(GpuRejection, EachWarpCountsWhatTheWarpModelCounts) {
  WARPSIM_REQUIRE_GPU();
  for (const double p : {0.3, 0.8, 1.0}) {
    const int warps = 4, calls = 500;
    const auto u = on_gpu(false, p, 1000, warps, calls), c = on_gpu(true, p, 2000, warps, calls);
    for (int w = 0; w < warps; ++w) {
      const auto want_u = rj::uncached_on_warp(32, p, 1000 + static_cast<std::uint64_t>(w), calls);
      const auto want_c = rj::cached_on_warp(32, p, 2000 + static_cast<std::uint64_t>(w), calls);
      EXPECT_EQ(std::vector<int>(u.begin() + w * calls, u.begin() + (w + 1) * calls), want_u) << "uncached, warp " << w << ", p " << p;
      EXPECT_EQ(std::vector<int>(c.begin() + w * calls, c.begin() + (w + 1) * calls), want_c) << "pre-cached, warp " << w << ", p " << p;
    }
  }
}

// 2^12 warps x 250 calls (the first 50 of each warp dropped for the cached
// loop's steady state, which the exact chain reaches within 1e-15 in about
// 25 calls at p = 0.8): the mean (|z| < 5: a false alarm with probability
// 5.7e-7) and the law (chi-square, alpha 1e-6), which with 10^6 calls
// detects (power 0.9) a law about 0.003 from the exact one in total variation.
TEST(GpuRejection, CountsAtScaleFollowTheExactLaw) {
  WARPSIM_REQUIRE_GPU();
  const int warps = 4096, calls = 250, skip = 50;
  for (const double p : {0.5, 0.8}) {
    for (const bool cached : {false, true}) {
      const auto got = on_gpu(cached, p, 77, warps, calls);
      const rj::LoopLaw law = cached ? rj::cached_loop(32, p).loop : rj::uncached_loop(32, p);
      std::vector<double> observed(law.pmf.size() + 1, 0.0), prob(law.pmf.begin(), law.pmf.end());
      prob.push_back(law.tail);
      double sum = 0, sum2 = 0, n = 0;
      for (int w = 0; w < warps; ++w) {
        for (int c = cached ? skip : 0; c < calls; ++c) {
          const int v = got[static_cast<std::size_t>(w) * calls + static_cast<std::size_t>(c)];
          ++observed[std::min(static_cast<std::size_t>(v), law.pmf.size())];
          sum += v;
          sum2 += static_cast<double>(v) * v;
          ++n;
        }
      }
      const double mean = sum / n, se = std::sqrt((sum2 / n - mean * mean) / n);
      EXPECT_LT(std::fabs(mean - law.mean) / se, 5.0) << (cached ? "pre-cached" : "uncached") << ", p " << p << ": " << mean << " against " << law.mean;
      stats::GofOptions opt;
      opt.alpha = 1e-6;
      const auto r = stats::chi_square_test(observed, prob, opt);
      EXPECT_FALSE(r.reject) << (cached ? "pre-cached" : "uncached") << ", p " << p << ": p-value " << r.p_value;
      std::cout << (cached ? "pre-cached" : "uncached") << ", p " << p << ": GPU mean " << mean << ", exact " << law.mean << ", chi-square p "
                << r.p_value << ", detectable (power 0.9) total variation " << r.detectable.total_variation.value_or(-1) << "\n";
    }
  }
}

TEST(GpuRejection, BadArgumentsAreRefused) {
  WARPSIM_REQUIRE_GPU();
  DeviceArray<int> out(1);
  EXPECT_THROW(gpu::rejection_loop_iterations(false, 0.0, 1, 1, 1, out.p), std::invalid_argument);
  EXPECT_THROW(gpu::rejection_loop_iterations(true, std::nan(""), 1, 1, 1, out.p), std::invalid_argument);
  EXPECT_THROW(gpu::rejection_loop_iterations(true, 0.5, 1, 0, 1, out.p), std::invalid_argument);
}

}  // namespace
