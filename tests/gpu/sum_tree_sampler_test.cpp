// The sum-tree kernels against the scalar definition (oracle/sum_tree.hpp),
// bit for bit: every draw of every row, for every family of weights, rows
// shorter than a vector up to many segments, aligned and misaligned rows,
// one or many draws a row, and every layout (lanes a row, a thread a row, a warp a row,
// a block a row with its row kept in shared memory or not, segmented with 1 to 8 warps a block, its rows finished by their last
// warp, a block a row or a warp a row): the result must not depend on the layout.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device_array.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/sum_tree_sampler.hpp"
#include "oracle/sum_tree.hpp"
#include "properties/generators.hpp"
#include "properties/rc_checks.hpp"
#include "require_gpu.hpp"

using namespace warpsim;

namespace {

using gpu_test::DeviceArray;
namespace tree = oracle::sum_tree;
using P = gpu::SumTreePlan::SecondPass;

template <class T>
std::vector<T> weights(properties::WeightFamily f, int m, std::int64_t k, std::uint64_t seed) {
  return properties::sample(properties::gen_matrix<T>(f, m, static_cast<int>(k), seed), seed).weights;
}

// The scalar definition's draws, row after row (draw s of row r at r * S + s).
template <class T>
std::vector<int> expected(const std::vector<T>& w, int m, std::int64_t k, std::uint64_t seed, int draws) {
  return tree::draw_matrix<T>(w, m, static_cast<std::size_t>(k), seed, draws);
}

// The rows whose draws differ (the first few reported). `offset` elements
// before the matrix on the device (1: rows not 16-byte aligned).
template <class T>
int compare(const std::vector<T>& w, int m, std::int64_t k, std::uint64_t seed, int draws, const gpu::SumTreePlan& plan, int offset = 0) {
  std::vector<T> padded(static_cast<std::size_t>(offset), T(5));
  padded.insert(padded.end(), w.begin(), w.end());
  DeviceArray<T> dw(padded);
  DeviceArray<int> dz(static_cast<std::size_t>(m) * static_cast<std::size_t>(draws));
  gpu::SumTreeSampler<T> sampler;
  sampler.draw(dw.p + offset, m, k, seed, draws, dz.p, nullptr, plan);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  const auto got = dz.download();
  const auto want = expected(w, m, k, seed, draws);
  int bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i] && ++bad <= 3) {
      ADD_FAILURE() << "M " << m << " K " << k << " S " << draws << " (" << gpu::SumTreeSampler<T>::plan(m, k, plan, draws).describe() << ", offset "
                    << offset << ") row " << i / static_cast<std::size_t>(draws) << " draw " << i % static_cast<std::size_t>(draws) << ": GPU "
                    << got[i] << ", oracle " << want[i];
    }
  }
  return bad;
}

template <class T>
void every_shape() {
  WARPSIM_REQUIRE_GPU();
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<T>);
  struct Shape {
    int m;
    std::int64_t k;
    int draws;
  };
  const Shape shapes[] = {{5, 1, 3}, {7, 3, 2}, {33, 37, 5}, {9, 128, 40}, {100, 64, 2}, {40, 127, 1}, {70, 300, 3}, {2, 1000, 2}, {3, g - 1, 7}, {4, g, 64}, {2, g + 1, 9},
                          {3, 3 * g + 5, 33}, {1, 5 * g, 300}, {1, 2 * g + 7, 3}, {2, 8 * g, 40}, {2, 9 * g - 3, 70}, {1, 32 * g, 5}, {2, 20 * g + 3, 4}, {2, 40 * g + 17, 4},
                          {2, g + 5 * g / 8, 40}};  // (the last segment ends mid-batch: 2.5 batches a lane)
  using L = gpu::SumTreePlan::Layout;
  std::uint64_t seed = 11;
  for (const auto f : properties::kFamilies) {
    for (const auto& s : shapes) {
      const auto w = weights<T>(f, s.m, s.k, seed);
      SCOPED_TRACE(properties::family_name(f));
      for (int offset : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {}, offset), 0);
      for (int wpb : {1, 2, 8}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::Segmented, .warps_per_block = wpb}), 0);
      if (s.k <= 32 * g) {  // the row's last warp draws, walking up to 4 draws or a lane a draw
        for (int walk : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::LastWarp, .warp_walk = walk}, 1), 0);
      }
      for (int walk : {0, 1}) {  // a second kernel draws, whatever K (a lane a draw, or warps walk few draws)
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::Segmented, .warps_per_block = 2, .second_pass = P::RowPass, .warp_walk = walk}), 0);
      }
      // The pass that only sums reading the matrix once (evict first), before a
      // block a row and a warp a row: the same sums, the same draws.
      for (int offset : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::Segmented, .warps_per_block = 8, .second_pass = P::RowPass, .read_once = 1}, offset), 0) << "read once";
      if (s.k <= 256 * g && s.draws <= 4) {
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::Segmented, .warps_per_block = 8, .second_pass = P::WarpRowPass, .read_once = 1}, 1), 0) << "read once";
      }
      if (s.k <= 512 * g && s.draws <= 64) {  // resident: each segment's block finishes the draws that land in it (1 and 4 warps)
        for (int wpb : {1, 4}) {
          for (int offset : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::Segmented, .warps_per_block = wpb, .second_pass = P::ResidentPass}, offset), 0) << "resident, " << wpb << " warps";
        }
      }
      if (s.k <= 64 * g) {  // a row's cluster: 8 warps a block (1-8 blocks a row), and 1 where the row is at most 8 segments
        for (int offset : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::Segmented, .second_pass = P::ClusterPass}, offset), 0);
        if (s.k <= 8 * g) {
          EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ClusterPass}, 1), 0);
        }
      }
      if (s.k <= 256 * g && s.draws <= 4) {  // a second kernel a warp a row: rows of up to 256 segments, up to 4 draws
        for (int offset : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::Segmented, .warps_per_block = 2, .second_pass = P::WarpRowPass}, offset), 0);
      }
      if (s.k <= gpu::SumTreeSampler<T>::lanes_per_row_max_k()) {
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::LanesPerRow}), 0);
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::LanesPerRow}, 1), 0);
      }
      if (s.k <= 32 * g) {
        for (int keep : {0, 1}) {
          if (keep == 1 && s.k > 8 * g) continue;
          for (int walk : {0, 1}) {
            EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::BlockPerRow, .keep_rows = keep, .warp_walk = walk}), 0);
            EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::BlockPerRow, .keep_rows = keep, .warp_walk = walk}, 1), 0);
            for (int blocks : {1, 3}) {  // (the plan's blocks a row above; one, and three sharing a row's draws)
              if (blocks <= s.draws) {
                EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::BlockPerRow, .keep_rows = keep, .warp_walk = walk, .row_blocks = blocks}), 0);
              }
            }
          }
        }
      }
      if (s.k <= g) {
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::WarpPerRow, .warps_per_block = 4}), 0);
      }
      if (s.k <= gpu::SumTreeSampler<T>::thread_per_row_max_k()) {
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::ThreadPerRow}), 0);
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {.layout = L::ThreadPerRow}, 1), 0);
      }
      ++seed;
    }
  }
}

TEST(SumTreeSampler, EveryDrawIsTheOraclesFp32) { every_shape<float>(); }
TEST(SumTreeSampler, EveryDrawIsTheOraclesFp64) { every_shape<double>(); }

// Lanes a row: every kernel of the layout (a row on 1, 2, 4, ..., 32 lanes,
// then 2, 4 or 8 vectors a lane), at each one's shortest and longest rows
// and one between, with rows that end mid-vector and mid-warp, misaligned
// rows, one draw a row (the uniforms shared across lanes) and S draws (in
// rounds of the row's lanes: S below, at and past a round; a round's
// uniforms packed over the warp's rows, S a power of two and not), and
// rows of zeros among them.
template <class T>
void every_lanes_kernel() {
  WARPSIM_REQUIRE_GPU();
  constexpr std::int64_t e = 16 / sizeof(T);
  std::vector<std::int64_t> ks;
  for (std::int64_t v : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
    for (std::int64_t k : {(v / 2) * e + 1, v * e - 1, v * e}) {
      if (k >= 1 && (ks.empty() || ks.back() < k)) ks.push_back(k);
    }
  }
  using L = gpu::SumTreePlan::Layout;
  std::uint64_t seed = 101;
  for (const std::int64_t k : ks) {
    for (const int draws : {1, 2, 3, 8, 32, 33}) {
      const int m = draws == 1 ? 301 : 37;  // (past a warp's rows, not a multiple of them)
      auto w = weights<T>(properties::WeightFamily::PowerLaw, m, k, seed);
      for (std::int64_t c = 0; c < k; ++c) w[static_cast<std::size_t>(5 * k + c)] = T(0);  // row 5: zeros
      for (int offset : {0, 1}) EXPECT_EQ(compare(w, m, k, seed, draws, {.layout = L::LanesPerRow}, offset), 0) << "K " << k << " S " << draws;
      ++seed;
    }
  }
}

// A thread a row: each of its kernels (the tree over 2, 4, 8, 16 or 32
// lanes, by the row's vectors, then two vectors a lane), at each one's
// shortest and longest rows,
// with rows that end mid-vector, misaligned rows, rows read from L1 and
// copied, one draw and S draws, and a row of zeros among them.
template <class T>
void every_thread_kernel() {
  WARPSIM_REQUIRE_GPU();
  constexpr std::int64_t e = 16 / sizeof(T);
  std::vector<std::int64_t> ks;
  for (std::int64_t v : {1, 2, 4, 8, 16, 32, 64}) {
    for (std::int64_t k : {(v / 2) * e + 1, v * e - 1, v * e}) {
      if (k >= 1 && (ks.empty() || ks.back() < k)) ks.push_back(k);
    }
  }
  using L = gpu::SumTreePlan::Layout;
  std::uint64_t seed = 301;
  for (const std::int64_t k : ks) {
    for (const int draws : {1, 3, 8}) {
      const int m = 97;  // (past a block's 64 rows, not a multiple of a warp's)
      auto w = weights<T>(properties::WeightFamily::PowerLaw, m, k, seed);
      for (std::int64_t c = 0; c < k; ++c) w[static_cast<std::size_t>(5 * k + c)] = T(0);  // row 5: zeros
      for (int offset : {0, 1}) EXPECT_EQ(compare(w, m, k, seed, draws, {.layout = L::ThreadPerRow}, offset), 0) << "K " << k << " S " << draws;
      ++seed;
    }
  }
}

TEST(SumTreeSampler, ThreadPerRowEveryKernelFp32) { every_thread_kernel<float>(); }
TEST(SumTreeSampler, ThreadPerRowEveryKernelFp64) { every_thread_kernel<double>(); }

TEST(SumTreeSampler, LanesPerRowEveryKernelFp32) { every_lanes_kernel<float>(); }
TEST(SumTreeSampler, LanesPerRowEveryKernelFp64) { every_lanes_kernel<double>(); }

// Lanes a row's S > 1 draws take one step of rows a warp where a batch of
// steps would leave the grid under 32 warps a multiprocessor
// (every_lanes_kernel's 37 rows); here rows enough for the batch's steps
// (a warp's rows x 32 x the multiprocessors, and 7 more): a row on 16
// lanes (16 rows a warp), and on 32 lanes with 1, 2 and 4 vectors a lane
// (8, 4 and 2 rows a warp), aligned and not, with draws in rounds (the
// Many kernel) and in one round (Round, its uniforms packed).
template <class T>
void lanes_many_draws_of_many_rows() {
  WARPSIM_REQUIRE_GPU();
  using L = gpu::SumTreePlan::Layout;
  constexpr std::int64_t e = 16 / sizeof(T);
  int device = 0, sms = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  struct Case {
    std::int64_t k;
    int rows_a_warp;
    int draws;
  };
  std::uint64_t seed = 901;
  for (const Case c : {Case{16 * e - 1, 16, 17}, Case{64 * e, 4, 33}, Case{128 * e - 3, 2, 33}, Case{16 * e - 1, 16, 5}, Case{32 * e - 2, 8, 20},
                       Case{64 * e, 4, 32}, Case{128 * e - 3, 2, 9}}) {
    const int m = c.rows_a_warp * 32 * sms + 7;
    const auto w = weights<T>(properties::WeightFamily::PowerLaw, m, c.k, seed);
    for (int offset : {0, 1}) EXPECT_EQ(compare(w, m, c.k, seed, c.draws, {.layout = L::LanesPerRow}, offset), 0) << "K " << c.k << " M " << m;
    ++seed;
  }
}

TEST(SumTreeSampler, LanesPerRowManyDrawsOfManyRowsFp32) { lanes_many_draws_of_many_rows<float>(); }
TEST(SumTreeSampler, LanesPerRowManyDrawsOfManyRowsFp64) { lanes_many_draws_of_many_rows<double>(); }

// A block a row, its row kept in shared memory and not, at a few shapes
// small enough for racecheck and synccheck (scripts/device_rows.sh runs
// them on this test): one segment, several with a partial last one and
// S past a warp's round, 20 segments a row (32 warps a block), a short row's
// many draws, misaligned; a row's draws over the plan's blocks, one and three.
TEST(SumTreeSampler, BlockPerRowUnderSanitizers) {
  WARPSIM_REQUIRE_GPU();
  using L = gpu::SumTreePlan::Layout;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  struct Case {
    int m;
    std::int64_t k;
    int draws;
    int keep;
  };
  for (const Case c : {Case{3, g - 5, 3, 1}, Case{3, g - 5, 3, 0}, Case{2, 5 * g + 7, 70, 1}, Case{2, 5 * g + 7, 70, 0}, Case{2, 20 * g, 40, 0},
                       Case{3, 100, 200, 1}, Case{3, 100, 200, 0}}) {
    const auto w = weights<float>(properties::WeightFamily::PowerLaw, c.m, c.k, static_cast<std::uint64_t>(c.k));
    for (int offset : {0, 1}) {
      for (int walk : {0, 1}) {
        for (int blocks : {0, 1, 3}) {  // (a row's draws over the plan's blocks, one, three)
          EXPECT_EQ(compare(w, c.m, c.k, 9, c.draws, {.layout = L::BlockPerRow, .keep_rows = c.keep, .warp_walk = walk, .row_blocks = blocks}, offset), 0) << "K " << c.k << " blocks " << blocks;
        }
      }
    }
  }
}

// A block a row's draws a lane a draw over rows of 2 to 8 vectors a lane
// (one segment), each drawn from its lane's marks a vector: the chosen
// vector alone read. Rows that end mid-vector and on a lane's last vector,
// misaligned, zeros anywhere (lanes with no vector > 0 among the rest),
// one positive weight, near ties of the running sums; a row's draws on
// one block and over three.
template <class T>
void block_marks_a_vector() {
  WARPSIM_REQUIRE_GPU();
  using L = gpu::SumTreePlan::Layout;
  constexpr std::int64_t e = 16 / sizeof(T);
  std::uint64_t seed = 1201;
  for (const std::int64_t k : {32 * e + 1, 64 * e, 160 * e - 3, 256 * e - 1, 256 * e}) {
    for (const auto family : {properties::WeightFamily::Zeros, properties::WeightFamily::PowerLaw, properties::WeightFamily::OneNonZero,
                              properties::WeightFamily::NearTies}) {
      const int m = 5;
      const auto w = weights<T>(family, m, k, seed);
      for (const int draws : {1, 40, 300}) {
        for (const int blocks : {0, 3}) {
          if (blocks > draws) continue;
          for (int offset : {0, 1}) {
            EXPECT_EQ(compare(w, m, k, seed, draws, {.layout = L::BlockPerRow, .keep_rows = 0, .warp_walk = 0, .row_blocks = blocks}, offset), 0) << "K " << k << " S " << draws;
          }
        }
      }
      ++seed;
    }
  }
}

TEST(SumTreeSampler, BlockPerRowMarksAVectorFp32) { block_marks_a_vector<float>(); }
TEST(SumTreeSampler, BlockPerRowMarksAVectorFp64) { block_marks_a_vector<double>(); }

// Tails far below 2^-24 of the row: one weight of 1 and the rest 2^-40,
// many of them; the draws still equal the oracle's (whose resolution the
// property in properties/ checks).
TEST(SumTreeSampler, TinyTailsAreTheOracles) {
  WARPSIM_REQUIRE_GPU();
  const int m = 4;
  const std::int64_t k = 100000;
  std::vector<float> w(static_cast<std::size_t>(m * k), std::ldexp(1.0f, -40));
  for (int r = 0; r < m; ++r) w[static_cast<std::size_t>(r * k + 777 * (r + 1))] = 1.0f;
  EXPECT_EQ(compare(w, m, k, 3, 2000, {}), 0);
}

// The second kernel's rounds at a few shapes small enough for racecheck and
// synccheck (scripts/device_rows.sh runs them on this test): S draws a row
// spread over its warps 1-4 a warp and walked (S <= 32), a lane a draw with
// the last rounds walked (S > 32), a lane a draw (every S with the walk
// off), a row's draws over one block, the plan's blocks, 3 and one block a
// draw, misaligned rows too.
TEST(SumTreeSampler, SecondKernelUnderSanitizers) {
  WARPSIM_REQUIRE_GPU();
  using L = gpu::SumTreePlan::Layout;
  const std::int64_t k = 3 * static_cast<std::int64_t>(tree::kSegment<float>) + 5;
  const auto w = weights<float>(properties::WeightFamily::PowerLaw, 2, k, 5);
  for (int draws : {1, 4, 5, 9, 32, 33, 64, 65}) {
    for (int walk : {0, 1}) {
      for (int blocks : {1, 0, 3, draws}) {
        if (blocks > draws || (blocks == draws && draws <= 3)) continue;
        for (int offset : {0, 1}) {
          EXPECT_EQ(compare(w, 2, k, 9, draws, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::RowPass, .warp_walk = walk, .row_blocks = blocks}, offset), 0) << "S " << draws << " row blocks " << blocks;
        }
      }
    }
  }
  for (int draws : {1, 2, 3, 4}) {  // a warp a row (two rows: the block's other warps have none)
    for (int offset : {0, 1}) EXPECT_EQ(compare(w, 2, k, 9, draws, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::WarpRowPass}, offset), 0) << "S " << draws << " a warp a row";
  }
  for (int draws : {1, 31, 33, 64}) {  // resident (its sums posted and read back through global memory), blocks of 1 and 4 warps
    for (int wpb : {1, 4}) {
      for (int offset : {0, 1}) {
        EXPECT_EQ(compare(w, 2, k, 9, draws, {.layout = L::Segmented, .warps_per_block = wpb, .second_pass = P::ResidentPass}, offset), 0) << "S " << draws << " resident, " << wpb << " warps";
      }
    }
  }
  for (int draws : {1, 33, 300}) {  // a row's cluster of 4 blocks of one warp, of 2 blocks of 2, of one block of 8 (4 warps idle)
    for (int wpb : {1, 2, 8}) {
      EXPECT_EQ(compare(w, 2, k, 9, draws, {.layout = L::Segmented, .warps_per_block = wpb, .second_pass = P::ClusterPass}, 1), 0) << "S " << draws << " a cluster of blocks of " << wpb;
    }
  }
}

// One sampler, called again and again: the rows' tickets (the last warp of
// a row draws) are back at 0 after each call, the resident pass takes only
// the sums posted in its own call (each call's epoch), and a longer matrix
// after a shorter one gets new scratch -- the shapes change between calls,
// so a row's slots are another row's in the next.
TEST(SumTreeSampler, RepeatedCallsAreEachTheOracles) {
  WARPSIM_REQUIRE_GPU();
  using L = gpu::SumTreePlan::Layout;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  for (const gpu::SumTreePlan& ask : {gpu::SumTreePlan{}, gpu::SumTreePlan{.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::LastWarp}, gpu::SumTreePlan{.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ResidentPass},
                                      gpu::SumTreePlan{.layout = L::Segmented, .warps_per_block = 4, .second_pass = P::ResidentPass}, gpu::SumTreePlan{.layout = L::Segmented, .second_pass = P::ClusterPass}}) {
    gpu::SumTreeSampler<float> sampler;
    for (const auto& [m, k] : {std::pair{3, 3 * g + 5}, {3, 3 * g + 5}, {9, 3 * g + 5}, {2, 3 * g + 5}, {1, 20 * g}, {5, 2 * g + 1}, {2, 7 * g}}) {
      const auto w = weights<float>(properties::WeightFamily::PowerLaw, m, k, static_cast<std::uint64_t>(m));
      DeviceArray<float> dw(w);
      DeviceArray<int> dz(static_cast<std::size_t>(m) * 4);
      for (std::uint64_t seed : {1u, 2u}) {
        sampler.draw(dw.p, m, k, seed, 4, dz.p, nullptr, ask);
        WARPSIM_CUDA(cudaDeviceSynchronize());
        EXPECT_EQ(dz.download(), expected(w, m, k, seed, 4)) << "M " << m << " K " << k << " seed " << seed << " (" << ask.describe() << ")";
      }
    }
  }
}

// The resident pass at every size of the row's tree: one segment (no
// posting), up to 32 (the warp's butterfly), 33-64 (the butterfly over
// pairs, then the last level), and past 64 (the tree level by level in
// shared memory), to 512; one draw and several, rows aligned and not.
template <class T>
void resident_every_tree() {
  WARPSIM_REQUIRE_GPU();
  using L = gpu::SumTreePlan::Layout;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<T>);
  std::uint64_t seed = 21;
  for (const std::int64_t segments : {1, 2, 3, 8, 31, 32, 33, 40, 64, 65, 100, 257, 512}) {
    const int m = segments <= 64 ? 2 : 1;
    const std::int64_t k = segments * g - (segments % 3 == 0 ? 5 : 0);  // (some rows end mid-segment)
    const auto w = weights<T>(properties::WeightFamily::PowerLaw, m, k, seed);
    for (int draws : {1, 5}) {
      for (int wpb : {1, 4}) {
        for (int offset : {0, 1}) {
          EXPECT_EQ(compare(w, m, k, seed, draws, {.layout = L::Segmented, .warps_per_block = wpb, .second_pass = P::ResidentPass}, offset), 0) << "segments " << segments << ", " << wpb << " warps a block";
        }
      }
    }
    ++seed;
  }
}

TEST(SumTreeSampler, ResidentPassEveryTreeSizeFp32) { resident_every_tree<float>(); }
TEST(SumTreeSampler, ResidentPassEveryTreeSizeFp64) { resident_every_tree<double>(); }

// Bad weights (not checked on the device: the CLI and properties/ check
// the host's) must not hang or misaddress the one-kernel layouts: the
// resident pass, whose warps wait for their row's posted sums (a NaN sum,
// from a NaN weight or an fp64 weight of all ones, is posted and taken as
// any other), and a row's cluster, whose blocks wait at its barriers and
// finish the draws that land in their segments (a NaN target still lands
// in one). The call ends, and the same sampler's next call, on good
// weights, is the oracle's.
TEST(SumTreeSampler, OneKernelPassesEndOnNaNWeights) {
  WARPSIM_REQUIRE_GPU();
  using L = gpu::SumTreePlan::Layout;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<double>);
  const std::int64_t k = 3 * g + 7;
  auto w = weights<double>(properties::WeightFamily::PowerLaw, 2, k, 3);
  auto bad = w;
  const std::uint64_t ones = ~0ull;
  std::memcpy(&bad[static_cast<std::size_t>(g + 5)], &ones, sizeof ones);  // (row 0, segment 1)
  bad[static_cast<std::size_t>(k + 2 * g)] = std::nan("");                 // (row 1, segment 2)
  for (const gpu::SumTreePlan& ask : {gpu::SumTreePlan{.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ResidentPass}, gpu::SumTreePlan{.layout = L::Segmented, .warps_per_block = 4, .second_pass = P::ResidentPass},
                                      gpu::SumTreePlan{.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ClusterPass}}) {
    gpu::SumTreeSampler<double> sampler;
    for (int draws : {1, 9}) {
      DeviceArray<double> dbad(bad), dw(w);
      DeviceArray<int> dz(static_cast<std::size_t>(2 * draws));
      sampler.draw(dbad.p, 2, k, 5, draws, dz.p, nullptr, ask);
      WARPSIM_CUDA(cudaDeviceSynchronize());  // (returns: no warp waits forever)
      sampler.draw(dw.p, 2, k, 5, draws, dz.p, nullptr, ask);
      WARPSIM_CUDA(cudaDeviceSynchronize());
      EXPECT_EQ(dz.download(), expected(w, 2, k, 5, draws)) << "S " << draws << " (" << ask.describe() << ")";
    }
  }
}

TEST(SumTreeSampler, RefusesBadShapes) {
  WARPSIM_REQUIRE_GPU();
  gpu::SumTreeSampler<float> s;
  DeviceArray<float> w(16);
  DeviceArray<int> z(16);
  using L = gpu::SumTreePlan::Layout;
  EXPECT_THROW(s.draw(w.p, 0, 4, 1, 1, z.p), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 0, 1, 1, z.p), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 0, z.p), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, static_cast<std::int64_t>(gpu::SumTreeSampler<float>::max_k()) + 1, 1, 1, z.p), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 5000, 1, 1, z.p, nullptr, {.layout = L::WarpPerRow, .warps_per_block = 1}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 257, 1, 1, z.p, nullptr, {.layout = L::ThreadPerRow}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 1025, 1, 1, z.p, nullptr, {.layout = L::LanesPerRow}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 3}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 32 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {.layout = L::BlockPerRow}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 8 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {.layout = L::BlockPerRow, .keep_rows = 1}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {.layout = L::BlockPerRow, .keep_rows = 2}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 32 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::LastWarp}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = static_cast<P>(6)}), std::invalid_argument);
  // Resident: at most 512 segments and 64 draws, a row's draws in its own warps, a grid the device holds at once.
  EXPECT_THROW(s.draw(w.p, 1, 512 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ResidentPass}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 65, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ResidentPass}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 2, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ResidentPass, .row_blocks = 2}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1 << 20, 2 * static_cast<std::int64_t>(tree::kSegment<float>), 1, 1, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ResidentPass}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {.layout = L::BlockPerRow, .keep_rows = 0, .warp_walk = 2}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::RowPass, .warp_walk = -2}), std::invalid_argument);
  // A warp a row: at most 256 segments and 4 draws, always walked, one warp a row's draws.
  EXPECT_THROW(s.draw(w.p, 1, 256 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::WarpRowPass}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 5, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::WarpRowPass}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::WarpRowPass, .warp_walk = 0}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 2, z.p, nullptr, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::WarpRowPass, .warp_walk = 1, .row_blocks = 2}), std::invalid_argument);
}

// plan() is the rule on the current device's multiprocessors and memory
// bandwidth (PlanDevice::current()).
TEST(SumTreeSampler, PlanIsTheRuleOnThisDevicesMultiprocessorsAndMemory) {
  WARPSIM_REQUIRE_GPU();
  using S = gpu::SumTreeSampler<float>;
  int device = 0, sms = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  // Its memory's peak bandwidth, from its attributes: a GPU's (past 100
  // GB/s), and fast where it feeds each multiprocessor 32 GB/s.
  const gpu::PlanDevice here = gpu::PlanDevice::current();
  EXPECT_EQ(here.sms, sms);
  EXPECT_GT(here.memory_gbs, 100.0);
  int l2 = 0;  // and its L2 (SumTreePlan::read_once)
  ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), cudaSuccess);
  EXPECT_EQ(here.l2_bytes, static_cast<std::size_t>(l2));
  EXPECT_GT(here.l2_bytes, 0u);
  std::printf("this device: %d multiprocessors, memory %.0f GB/s (%.1f a multiprocessor): %s; L2 %zu bytes\n", here.sms, here.memory_gbs,
              here.memory_gbs / here.sms, here.fast_memory() ? "fast" : "not fast", here.l2_bytes);
  // Asked once a device and kept: the memory clock's attribute took about
  // 0.5 ms a call on an H200, which every draw() paid while plan() asked it
  // each call (rows-h200-plan-per-call/). 1,000 plans take far less than 1,000
  // such calls.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(gpu::PlanDevice::current().memory_gbs, here.memory_gbs);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(ms, 100.0) << "1,000 calls of PlanDevice::current()";
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  for (const int m : {1, sms, 2 * sms + 1, 8 * sms, 8 * sms + 1, 100 * sms}) {
    for (const std::int64_t k : {std::int64_t{100}, 4 * g, 20 * g, 64 * g, 256 * g}) {
      for (const int draws : {1, 5, 64}) {
        EXPECT_EQ(S::plan(m, k, {}, draws).describe(), S::plan_for(here, m, k, {}, draws).describe()) << "M " << m << " K " << k << " S " << draws;
      }
    }
  }
}

}  // namespace
