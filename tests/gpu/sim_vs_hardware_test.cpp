// The model's shuffles and votes against the GPU's own, on random cases:
// every mode, per-lane operands, every width, operands past the segment.
#include <gtest/gtest.h>

#include <random>

#include "require_gpu.hpp"
#include "sim/warp.hpp"
#include "warp_intrinsics_kernels.hpp"

using namespace warpsim;
using gpu_test::ShuffleMode;

namespace {

constexpr int kCases = 4000;

std::vector<gpu_test::ShuffleCase> random_shuffle_cases(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<gpu_test::ShuffleCase> cases(kCases);
  for (auto& c : cases) {
    c.mode = static_cast<ShuffleMode>(rng() % 4);
    c.width = 1 << (rng() % 6);
    const bool uniform = rng() % 2 == 0;
    const int shared_operand = static_cast<int>(rng() % 64) - 16;
    for (int l = 0; l < 32; ++l) {
      c.operand[l] = uniform ? shared_operand : static_cast<int>(rng() % 64) - 16;
      if (c.mode == ShuffleMode::Up || c.mode == ShuffleMode::Down) c.operand[l] &= 63;  // unsigned delta
      c.value[l] = static_cast<std::int32_t>(rng());
    }
  }
  return cases;
}

}  // namespace

TEST(SimVsHardware, ShufflesAgreeOnEveryLane) {
  WARPSIM_REQUIRE_GPU();
  const auto cases = random_shuffle_cases(20261121);
  const auto gpu = gpu_test::run_shuffles(cases);
  int mismatches = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    sim::Warp warp({.width = 32});
    sim::Reg<std::int32_t> var("var"), out("out");
    sim::Reg<int> b("b");
    for (int l = 0; l < 32; ++l) {
      var[l] = c.value[l];
      b[l] = c.operand[l];
    }
    const sim::PerLane<int> op(b);
    switch (c.mode) {
      case ShuffleMode::Idx: warp.shfl_sync(out, warp.lanes(), var, op, c.width); break;
      case ShuffleMode::Up: warp.shfl_up_sync(out, warp.lanes(), var, op, c.width); break;
      case ShuffleMode::Down: warp.shfl_down_sync(out, warp.lanes(), var, op, c.width); break;
      case ShuffleMode::Xor: warp.shfl_xor_sync(out, warp.lanes(), var, op, c.width); break;
    }
    for (int l = 0; l < 32; ++l) {
      if (out[l] != gpu[i * 32 + static_cast<std::size_t>(l)] && ++mismatches <= 20) {
        ADD_FAILURE() << "case " << i << " mode " << static_cast<int>(c.mode) << " width " << c.width << " lane " << l
                      << " operand " << c.operand[l] << ": model " << out[l] << ", GPU "
                      << gpu[i * 32 + static_cast<std::size_t>(l)];
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(SimVsHardware, VotesAgreeUnderDivergence) {
  WARPSIM_REQUIRE_GPU();
  std::mt19937 rng(7);
  std::vector<gpu_test::VoteCase> cases(kCases);
  for (auto& c : cases) {
    do c.active = static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng()); while (c.active == 0);
    c.pred = static_cast<std::uint32_t>(rng());
  }
  const auto gpu = gpu_test::run_votes(cases);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    sim::Warp warp({.width = 32});
    sim::Reg<bool> in("in"), p("p"), any("any"), all("all");
    sim::Reg<sim::LaneMask> ballot("ballot"), am("am");
    for (int l = 0; l < 32; ++l) {
      in[l] = (cases[i].active >> l) & 1u;
      p[l] = (cases[i].pred >> l) & 1u;
    }
    warp.if_then(in, [&] {
      warp.activemask(am);
      warp.ballot_sync(ballot, cases[i].active, p);
      warp.any_sync(any, cases[i].active, p);
      warp.all_sync(all, cases[i].active, p);
    });
    for (int l = 0; l < 32; ++l) {
      if (!in[l]) continue;
      ASSERT_EQ(ballot[l], gpu[i].ballot[l]) << "case " << i << " lane " << l;
      ASSERT_EQ(any[l], gpu[i].any[l] != 0) << "case " << i << " lane " << l;
      ASSERT_EQ(all[l], gpu[i].all[l] != 0) << "case " << i << " lane " << l;
      ASSERT_EQ(am[l], gpu[i].activemask[l]) << "case " << i << " lane " << l;
    }
  }
}
