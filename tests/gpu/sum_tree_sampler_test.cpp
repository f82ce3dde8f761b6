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
      for (int wpb : {1, 2, 8}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::Segmented, wpb}), 0);
      if (s.k <= 32 * g) {  // the row's last warp draws, walking up to 4 draws or a lane a draw
        for (int walk : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::Segmented, 1, -1, 0, walk}, 1), 0);
      }
      for (int walk : {0, 1}) {  // a second kernel draws, whatever K (a lane a draw, or warps walk few draws)
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::Segmented, 2, -1, 1, walk}), 0);
      }
      // The pass that only sums reading the matrix once (evict first), before a
      // block a row and a warp a row: the same sums, the same draws.
      for (int offset : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::Segmented, 8, -1, 1, -1, 0, 1}, offset), 0) << "read once";
      if (s.k <= 256 * g && s.draws <= 4) {
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::Segmented, 8, -1, 2, -1, 0, 1}, 1), 0) << "read once";
      }
      if (s.k <= 512 * g && s.draws <= 64) {  // resident: each segment's block finishes the draws that land in it (1 and 4 warps)
        for (int wpb : {1, 4}) {
          for (int offset : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::Segmented, wpb, -1, 3}, offset), 0) << "resident, " << wpb << " warps";
        }
      }
      if (s.k <= 64 * g) {  // a row's cluster: 8 warps a block (1-8 blocks a row), and 1 where the row is at most 8 segments
        for (int offset : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::Segmented, 0, -1, 4}, offset), 0);
        if (s.k <= 8 * g) {
          EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::Segmented, 1, -1, 4}, 1), 0);
        }
      }
      if (s.k <= 256 * g && s.draws <= 4) {  // a second kernel a warp a row: rows of up to 256 segments, up to 4 draws
        for (int offset : {0, 1}) EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::Segmented, 2, -1, 2}, offset), 0);
      }
      if (s.k <= gpu::SumTreeSampler<T>::lanes_per_row_max_k()) {
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::LanesPerRow}), 0);
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::LanesPerRow}, 1), 0);
      }
      if (s.k <= 32 * g) {
        for (int keep : {0, 1}) {
          if (keep == 1 && s.k > 8 * g) continue;
          for (int walk : {0, 1}) {
            EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::BlockPerRow, 0, keep, -1, walk}), 0);
            EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::BlockPerRow, 0, keep, -1, walk}, 1), 0);
            for (int blocks : {1, 3}) {  // (the plan's blocks a row above; one, and three sharing a row's draws)
              if (blocks <= s.draws) {
                EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::BlockPerRow, 0, keep, -1, walk, blocks}), 0);
              }
            }
          }
        }
      }
      if (s.k <= g) {
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::WarpPerRow, 4}), 0);
      }
      if (s.k <= gpu::SumTreeSampler<T>::thread_per_row_max_k()) {
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::ThreadPerRow}), 0);
        EXPECT_EQ(compare(w, s.m, s.k, seed, s.draws, {L::ThreadPerRow}, 1), 0);
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
      for (int offset : {0, 1}) EXPECT_EQ(compare(w, m, k, seed, draws, {L::LanesPerRow}, offset), 0) << "K " << k << " S " << draws;
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
      for (int offset : {0, 1}) EXPECT_EQ(compare(w, m, k, seed, draws, {L::ThreadPerRow}, offset), 0) << "K " << k << " S " << draws;
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
    for (int offset : {0, 1}) EXPECT_EQ(compare(w, m, c.k, seed, c.draws, {L::LanesPerRow}, offset), 0) << "K " << c.k << " M " << m;
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
          EXPECT_EQ(compare(w, c.m, c.k, 9, c.draws, {L::BlockPerRow, 0, c.keep, -1, walk, blocks}, offset), 0) << "K " << c.k << " blocks " << blocks;
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
            EXPECT_EQ(compare(w, m, k, seed, draws, {L::BlockPerRow, 0, 0, -1, 0, blocks}, offset), 0) << "K " << k << " S " << draws;
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
          EXPECT_EQ(compare(w, 2, k, 9, draws, {L::Segmented, 1, -1, 1, walk, blocks}, offset), 0) << "S " << draws << " row blocks " << blocks;
        }
      }
    }
  }
  for (int draws : {1, 2, 3, 4}) {  // a warp a row (two rows: the block's other warps have none)
    for (int offset : {0, 1}) EXPECT_EQ(compare(w, 2, k, 9, draws, {L::Segmented, 1, -1, 2}, offset), 0) << "S " << draws << " a warp a row";
  }
  for (int draws : {1, 31, 33, 64}) {  // resident (its sums posted and read back through global memory), blocks of 1 and 4 warps
    for (int wpb : {1, 4}) {
      for (int offset : {0, 1}) {
        EXPECT_EQ(compare(w, 2, k, 9, draws, {L::Segmented, wpb, -1, 3}, offset), 0) << "S " << draws << " resident, " << wpb << " warps";
      }
    }
  }
  for (int draws : {1, 33, 300}) {  // a row's cluster of 4 blocks of one warp, of 2 blocks of 2, of one block of 8 (4 warps idle)
    for (int wpb : {1, 2, 8}) {
      EXPECT_EQ(compare(w, 2, k, 9, draws, {L::Segmented, wpb, -1, 4}, 1), 0) << "S " << draws << " a cluster of blocks of " << wpb;
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
  for (const gpu::SumTreePlan& ask : {gpu::SumTreePlan{}, gpu::SumTreePlan{L::Segmented, 1, -1, 0}, gpu::SumTreePlan{L::Segmented, 1, -1, 3},
                                      gpu::SumTreePlan{L::Segmented, 4, -1, 3}, gpu::SumTreePlan{L::Segmented, 0, -1, 4}}) {
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
          EXPECT_EQ(compare(w, m, k, seed, draws, {L::Segmented, wpb, -1, 3}, offset), 0) << "segments " << segments << ", " << wpb << " warps a block";
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
  for (const gpu::SumTreePlan& ask : {gpu::SumTreePlan{L::Segmented, 1, -1, 3}, gpu::SumTreePlan{L::Segmented, 4, -1, 3},
                                      gpu::SumTreePlan{L::Segmented, 1, -1, 4}}) {
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
  EXPECT_THROW(s.draw(w.p, 1, 5000, 1, 1, z.p, nullptr, {L::WarpPerRow, 1}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 257, 1, 1, z.p, nullptr, {L::ThreadPerRow}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 1025, 1, 1, z.p, nullptr, {L::LanesPerRow}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {L::Segmented, 3}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 32 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {L::BlockPerRow}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 8 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {L::BlockPerRow, 0, 1}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {L::BlockPerRow, 0, 2}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 32 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {L::Segmented, 1, -1, 0}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {L::Segmented, 1, -1, 5}), std::invalid_argument);
  // Resident: at most 512 segments and 64 draws, a row's draws in its own warps, a grid the device holds at once.
  EXPECT_THROW(s.draw(w.p, 1, 512 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {L::Segmented, 1, -1, 3}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 65, z.p, nullptr, {L::Segmented, 1, -1, 3}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 2, z.p, nullptr, {L::Segmented, 1, -1, 3, -1, 2}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1 << 20, 2 * static_cast<std::int64_t>(tree::kSegment<float>), 1, 1, z.p, nullptr, {L::Segmented, 1, -1, 3}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {L::BlockPerRow, 0, 0, -1, 2}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {L::Segmented, 1, -1, 1, -2}), std::invalid_argument);
  // A warp a row: at most 256 segments and 4 draws, always walked, one warp a row's draws.
  EXPECT_THROW(s.draw(w.p, 1, 256 * static_cast<std::int64_t>(tree::kSegment<float>) + 1, 1, 1, z.p, nullptr, {L::Segmented, 1, -1, 2}),
               std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 5, z.p, nullptr, {L::Segmented, 1, -1, 2}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 1, z.p, nullptr, {L::Segmented, 1, -1, 2, 0}), std::invalid_argument);
  EXPECT_THROW(s.draw(w.p, 1, 4, 1, 2, z.p, nullptr, {L::Segmented, 1, -1, 2, 1, 2}), std::invalid_argument);
}

// The plan's rule alone, no device needed (this runs in CI): on 132
// multiprocessors (an H200, or an H100 SXM) the layout of each point of
// docs/perf/sum-tree.md's grid is the one its table shows (with S draws in the
// second kernel, walked since 43f1447), and the rule moves with the
// multiprocessors where it should.
TEST(SumTreePlanRule, TheGridsLayoutsOn132MultiprocessorsWithoutADevice) {
  struct Point {
    int m;
    std::int64_t k;
    int draws;
    const char* layout;
  };
  const std::string seg4 = "segmented, 4 warps a block, then a block a row, warps walk draws";
  const std::string seg8 = "segmented, 8 warps a block, then a block a row, warps walk draws";
  const std::string block = "block-per-row";  // (one draw: a lane a draw from its lane's marks, the row not kept)
  const std::string seg1_9 = "segmented, 1 warps a block, then 9 blocks a row, warps walk draws";  // (more than 64 draws)
  const std::string warp1 = "segmented, 1 warps a block, then a warp a row, warps walk draws";  // (M x segments <= 4 a multiprocessor)
  const std::string warp8 = "segmented, 8 warps a block, then a warp a row, warps walk draws";  // (more rows than 3 a multiprocessor)
  const std::string resident = "segmented, 4 warps a block, resident: each draws what lands in its segment";  // (few rows, few draws)
  const std::string resident1 = "segmented, 1 warps a block, resident: each draws what lands in its segment";  // (more blocks than multiprocessors)
  const std::string cluster = "segmented, 8 warps a block, a row's blocks a cluster";  // (9-64 segments, many rows or 16-64 draws)
  const Point fp32[] = {{1, 131072, 1, resident.c_str()},      {64, 131072, 1, seg4.c_str()},
                        {256, 131072, 1, cluster.c_str()},     {1024, 131072, 1, cluster.c_str()},
                        {4096, 32768, 1, "block-per-row"},     {32, 1048576, 1, seg8.c_str()},
                        {1, 16777216, 1, seg8.c_str()},        {1, 4096, 1, resident.c_str()},
                        {64, 4096, 1, resident.c_str()},       {1, 32768, 1, resident.c_str()},
                        {64, 32768, 1, resident1.c_str()},     {1, 1048576, 1, resident1.c_str()},
                        {600, 4096, 1, block.c_str()},         {67, 32768, 1, block.c_str()},
                        {64, 1048576, 1, seg8.c_str()},        {1024, 4096, 1, "block-per-row"},
                        {1024, 32768, 1, "block-per-row"},     {1024, 1048576, 1, warp8.c_str()},
                        {8388608, 32, 1, "thread-per-row"},    {2097152, 128, 1, "thread-per-row"},
                        {1048576, 256, 1, "lanes-per-row"},    {262144, 1000, 1, "lanes-per-row"},
                        {65536, 4096, 1, "block-per-row"},     {67108864, 4, 1, "lanes-per-row"},
                        {16777216, 16, 1, "thread-per-row"},
                        {4194304, 64, 1, "thread-per-row"},    {1, 131072, 64, resident.c_str()},
                        {1, 131072, 65, seg1_9.c_str()},       {1, 4096, 5, block.c_str()},
                        {256, 131072, 64, cluster.c_str()},    {1024, 32768, 16, "block-per-row"},
                        {1048576, 256, 8, "lanes-per-row"}};
  for (const auto& q : fp32) {
    EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(132, q.m, q.k, {}, q.draws).describe(), q.layout) << "fp32 M " << q.m << " K " << q.k << " S " << q.draws;
  }
  const Point fp64[] = {{1, 131072, 1, resident.c_str()},   {256, 131072, 1, cluster.c_str()},
                        {4096, 32768, 1, cluster.c_str()}, {1, 4096, 1, resident.c_str()},
                        {1, 262144, 1, resident.c_str()},   {1, 131072, 64, resident.c_str()},
                        {8388608, 32, 1, "thread-per-row"}, {2097152, 128, 1, "thread-per-row"},
                        {262144, 1024, 1, "block-per-row"}, {1, 32768, 1, resident.c_str()},
                        {1024, 32768, 1, cluster.c_str()}, {256, 131072, 64, cluster.c_str()},
                        {1024, 16384, 1, "block-per-row"}, {64, 131072, 1, seg8.c_str()},
                        {64, 131072, 16, cluster.c_str()}, {1, 131072, 65, "segmented, 1 warps a block, then 9 blocks a row, warps walk draws"},
                        {1048576, 256, 8, "lanes-per-row"}, {16777216, 16, 1, "thread-per-row"},
                        {67108864, 4, 1, "lanes-per-row"}};
  for (const auto& q : fp64) {
    EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(132, q.m, q.k, {}, q.draws).describe(), q.layout) << "fp64 M " << q.m << " K " << q.k << " S " << q.draws;
  }
  // Fewer multiprocessors: (1,024, 4,096) no longer has its 32 warps a
  // multiprocessor for the walk on 16, and 20 rows of 20 segments with 8
  // draws each fill 16 multiprocessors (a block a row) but not 132
  // (segmented); with one draw a row they go segmented either way (the
  // second kernel walks it).
  using S = gpu::SumTreeSampler<float>;
  EXPECT_EQ(S::plan_for(16, 1024, 4096).warp_walk, 0);
  EXPECT_EQ(S::plan_for(16, 20, 20 * 4096, {}, 8).layout, gpu::SumTreePlan::Layout::BlockPerRow);
  EXPECT_EQ(S::plan_for(132, 20, 20 * 4096, {}, 8).layout, gpu::SumTreePlan::Layout::Segmented);
  EXPECT_EQ(S::plan_for(16, 20, 20 * 4096).layout, gpu::SumTreePlan::Layout::Segmented);
  EXPECT_EQ(S::plan_for(16, 20, 16 * 4096).layout, gpu::SumTreePlan::Layout::BlockPerRow);
  // Rows of 9-64 segments with one draw: a row's cluster from 32 warps a
  // multiprocessor (M x segments: 4,224 on 132, 512 on 16), below it a
  // block a row (up to 16 segments) or segmented; fp32 rows of 8 segments
  // stay a block a row.
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(132, 2048, 65536).second_pass, 4);
  EXPECT_EQ(S::plan_for(132, 132, 32 * 4096).second_pass, 4);      // (4,224 warps)
  EXPECT_EQ(S::plan_for(132, 131, 32 * 4096).second_pass, 1);      // (4,192)
  EXPECT_EQ(S::plan_for(16, 16, 32 * 4096).second_pass, 4);        // (512)
  EXPECT_EQ(S::plan_for(132, 33, 32 * 4096, {}, 16).second_pass, 4);  // (16 draws a row)
  EXPECT_EQ(S::plan_for(132, 33, 32 * 4096, {}, 15).second_pass, 1);
  EXPECT_EQ(S::plan_for(132, 1024, 65 * 4096).second_pass, 2);     // (past 64 segments)
  EXPECT_EQ(S::plan_for(132, 4096, 8 * 4096).layout, gpu::SumTreePlan::Layout::BlockPerRow);
  EXPECT_NE(S::plan_for(132, 132, 32 * 4096, {}, 65).second_pass, 4);  // (past 64 draws)
  EXPECT_THROW(S::plan_for(0, 1, 4), std::invalid_argument);
  EXPECT_THROW(S::plan_for(132, 1, 4, {gpu::SumTreePlan::Layout::BlockPerRow, 0, 0, -1, 2}), std::invalid_argument);
}

// The pass that only sums reads the matrix once (loads L2 evicts first)
// where the matrix is past the device's L2 and at most 32 of them, before a
// second kernel; asked, anywhere that pass runs, and nowhere else (no
// device: runs in CI).
TEST(SumTreePlanRule, ReadsOnceBetweenOneAnd32L2s) {
  using L = gpu::SumTreePlan::Layout;
  using S = gpu::SumTreeSampler<float>;
  using D = gpu::SumTreeSampler<double>;
  const gpu::PlanDevice h200{132, 4814.0, std::size_t{60} << 20};  // (its L2: 60 MiB)
  EXPECT_EQ(D::plan_for(h200, 256, 131072).describe(), "segmented, 8 warps a block, then a block a row, warps walk draws, read once");  // 256 MB
  EXPECT_EQ(D::plan_for(h200, 32, 1048576).read_once, 1);
  EXPECT_EQ(S::plan_for(h200, 1, 16777216).read_once, 1);     // 64 MB
  EXPECT_EQ(S::plan_for(h200, 256, 1048576).read_once, 1);     // 1 GB
  EXPECT_EQ(S::plan_for(h200, 64, 131072).read_once, 0);       // 32 MB: L2 holds it
  EXPECT_EQ(S::plan_for(h200, 1024, 1048576).read_once, 0);    // 4 GB: past 32 L2s
  EXPECT_EQ(S::plan_for(h200, 1024, 1024).read_once, 0);       // lanes a row
  EXPECT_EQ(D::plan_for(h200, 4096, 32768).read_once, 0);      // a row's cluster
  EXPECT_EQ(S::plan_for(132, 64, 1048576).read_once, 0);       // L2 not known
  EXPECT_EQ(S::plan_for(h200, 64, 1048576, {L::Auto, 0, -1, -1, -1, 0, 0}).read_once, 0);  // asked not to
  EXPECT_EQ(S::plan_for(h200, 1, 4096, {L::Segmented, 1, -1, 1, -1, 0, 1}).read_once, 1);   // asked, 16 KB
  EXPECT_EQ(S::plan_for(h200, 1, 4096, {L::Segmented, 1, -1, 2, -1, 0, 1}).read_once, 1);
  // The segment pass keeps its lanes' marks where the second kernel makes
  // 4 draws a segment or more a lane a draw: it does not only sum, so it
  // neither reads once nor says it does (fp32 K = 2^24: 4,096 segments).
  const gpu::SumTreePlan marked{L::Segmented, 8, -1, 1, 0, 0, -1};
  EXPECT_EQ(S::plan_for(h200, 1, 16777216, marked, 16384).read_once, 0);  // 64 MB, 4 draws a segment
  EXPECT_EQ(S::plan_for(h200, 1, 16777216, marked, 16384).describe(), "segmented, 8 warps a block, then a block a row");
  EXPECT_EQ(S::plan_for(h200, 1, 16777216, marked, 16383).read_once, 1);  // fewer: it only sums
  gpu::SumTreePlan marked_once = marked;
  marked_once.read_once = 1;
  EXPECT_THROW(S::plan_for(h200, 1, 16777216, marked_once, 16384), std::invalid_argument);
  EXPECT_THROW(S::plan_for(h200, 4096, 32768, {L::BlockPerRow, 0, -1, -1, -1, 0, 1}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(h200, 1, 4096, {L::Segmented, 1, -1, 3, -1, 0, 1}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(h200, 1, 4096, {L::Segmented, 1, -1, 0, -1, 0, 1}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(h200, 1, 4096, {L::Auto, 0, -1, -1, -1, 0, 2}), std::invalid_argument);
}

// The walk's rule (no device: runs in CI): warps walk draws in the second
// kernel at any M and S, a block a row's go a lane a draw (from its lane's
// marks) unless asked; the knob is dropped where the layout has no walk.
TEST(SumTreePlanRule, WarpsWalkDrawsOnlyForFewRowsAndDraws) {
  using S = gpu::SumTreeSampler<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  EXPECT_EQ(S::plan_for(sms, 200, 4 * g).layout, L::BlockPerRow);  // (fewer rows go resident)
  for (const int m : {200, 8 * sms, 8 * sms + 1}) {
    for (const int draws : {1, 2, 4, 5}) EXPECT_EQ(S::plan_for(sms, m, 4 * g, {}, draws).warp_walk, 0) << "M " << m << " S " << draws;
  }
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {L::BlockPerRow, 0, -1, -1, 1}, 3).warp_walk, 1);  // (asked)
  EXPECT_EQ(S::plan_for(sms, 9, 65 * g).layout, L::Segmented);
  EXPECT_EQ(S::plan_for(sms, 9, 65 * g).warp_walk, 1);  // (585 warps: not resident)
  EXPECT_EQ(S::plan_for(sms, 100 * sms, 65 * g).warp_walk, 1);  // (the second kernel: whatever M and S)
  EXPECT_EQ(S::plan_for(sms, 100 * sms, 64 * g).warp_walk, 0);  // (a row's cluster: a lane a draw)
  EXPECT_EQ(S::plan_for(sms, 9, 65 * g, {}, 64).warp_walk, 1);
  EXPECT_EQ(S::plan_for(sms, 1, 64 * g).warp_walk, -1);  // (resident: no walk)
  EXPECT_EQ(S::plan_for(sms, 1, 64 * g, {L::Segmented, 0, -1, 1, 0}).warp_walk, 0);
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {L::Segmented, 0, -1, 0}).warp_walk, 1);  // the last warp walks up to 4 draws
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {L::Segmented, 0, -1, 0}, 4).warp_walk, 1);
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {L::Segmented, 0, -1, 0}, 5).warp_walk, 0);  // (more: a lane a draw)
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {L::Segmented, 0, -1, 0, 0}).warp_walk, 0);
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {L::Segmented, 0, -1, 0, 1}, 9).warp_walk, 0);
  EXPECT_EQ(S::plan_for(sms, 1, 100, {L::LanesPerRow, 0, -1, -1, 1}).warp_walk, -1);
  EXPECT_NE(S::plan_for(sms, 1, 4 * g, {L::BlockPerRow, 0, -1, -1, 1}, 3).describe().find("warps walk draws"), std::string::npos);
  EXPECT_EQ(S::plan_for(sms, 200, 4 * g, {}, 3).describe(), "block-per-row");
  EXPECT_THROW(S::plan_for(sms, 1, 4, {L::Segmented, 1, -1, 1, -2}), std::invalid_argument);
}

// The row's last warp draws (one kernel) only where asked: rows of up to
// 32 segments, walked for up to 4 draws.
TEST(SumTreePlanRule, TheLastWarpDrawsOnlyWhereAsked) {
  using S = gpu::SumTreeSampler<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  for (int m : {1, 16, 17, 1024}) {
    for (int draws : {1, 2, 64}) EXPECT_NE(S::plan_for(sms, m, 32 * g, {}, draws).second_pass, 0) << "M " << m << " S " << draws;
  }
  const auto asked = S::plan_for(sms, 1, 32 * g, {L::Segmented, 0, -1, 0});
  EXPECT_EQ(asked.second_pass, 0);
  EXPECT_EQ(asked.warp_walk, 1);
  EXPECT_EQ(asked.describe(), "segmented, 1 warps a block, warps walk draws");
  EXPECT_EQ(S::plan_for(sms, 1, 32 * g, {L::Segmented, 0, -1, 0}, 5).warp_walk, 0);
  EXPECT_THROW(S::plan_for(sms, 1, 32 * g + 1, {L::Segmented, 0, -1, 0}), std::invalid_argument);
}

// The resident pass, asked: a block a segment of 4 warps where each block
// has a multiprocessor of its own, else 1 (unless asked), no walk or
// blocks a row to choose; its limits (512 segments, 64 draws, 1 or 4 warps
// a block) refused past them.
TEST(SumTreePlanRule, TheResidentPassTakesUpTo4WarpsABlock) {
  using S = gpu::SumTreeSampler<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  const auto asked = S::plan_for(sms, 1, 32 * g, {L::Segmented, 0, -1, 3}, 64);
  EXPECT_EQ(asked.layout, L::Segmented);
  EXPECT_EQ(asked.second_pass, 3);
  EXPECT_EQ(asked.warps_per_block, 4);  // (32 blocks)
  EXPECT_EQ(asked.row_blocks, 0);
  EXPECT_EQ(asked.describe(), "segmented, 4 warps a block, resident: each draws what lands in its segment");
  EXPECT_EQ(S::plan_for(sms, 4, 32 * g, {L::Segmented, 0, -1, 3}).warps_per_block, 4);   // (128 blocks)
  EXPECT_EQ(S::plan_for(sms, 5, 32 * g, {L::Segmented, 0, -1, 3}).warps_per_block, 1);   // (160)
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g, {L::Segmented, 0, -1, 3}).warps_per_block, 1);  // (512)
  EXPECT_EQ(S::plan_for(sms, 64, 32 * g, {L::Segmented, 0, -1, 3}).warps_per_block, 1);  // (2,048: as many as the device holds)
  EXPECT_EQ(S::plan_for(sms, 1, 32 * g, {L::Segmented, 1, -1, 3}).warps_per_block, 1);   // (asked)
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g, {L::Segmented, 4, -1, 3}).warps_per_block, 4);
  EXPECT_THROW(S::plan_for(sms, 1, 32 * g, {L::Segmented, 2, -1, 3}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 32 * g, {L::Segmented, 8, -1, 3}), std::invalid_argument);
  EXPECT_EQ(S::plan_for(sms, 1, 512 * g, {L::Segmented, 0, -1, 3}).second_pass, 3);
  EXPECT_THROW(S::plan_for(sms, 1, 512 * g + 1, {L::Segmented, 0, -1, 3}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, g, {L::Segmented, 0, -1, 3}, 65), std::invalid_argument);
  // Chosen: up to 512 segments, 4 draws a segment, and a grid of at most 4
  // warps a multiprocessor with one draw or one row, one with S draws of
  // several rows.
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g).second_pass, 3);       // (512 blocks of a warp)
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g).warps_per_block, 1);
  EXPECT_EQ(S::plan_for(sms, 64, 8 * g, {}, 4).layout, L::BlockPerRow);  // (512 warps, S = 4)
  EXPECT_EQ(S::plan_for(sms, 16, 8 * g, {}, 4).second_pass, 3);  // (128)
  EXPECT_EQ(S::plan_for(sms, 1, 8 * g, {}, 32).second_pass, 3);
  EXPECT_EQ(S::plan_for(sms, 1, 256 * g, {}, 8).second_pass, 3);  // (one row: 256 blocks)
  EXPECT_EQ(S::plan_for(sms, 1, 512 * g, {}, 64).second_pass, 3);
  EXPECT_NE(S::plan_for(sms, 2, 128 * g, {}, 8).second_pass, 3);  // (two rows, 256 blocks)
  EXPECT_EQ(S::plan_for(sms, 2, 66 * g, {}, 8).second_pass, 3);   // (132)
  EXPECT_EQ(S::plan_for(sms, 1, 8 * g, {}, 33).layout, L::BlockPerRow);  // (past 4 draws a segment)
  EXPECT_EQ(S::plan_for(sms, 1, 64 * g, {}, 64).second_pass, 3);
  EXPECT_EQ(S::plan_for(sms, 1, 65 * g).second_pass, 3);   // (up to 512 segments)
  EXPECT_EQ(S::plan_for(sms, 1, 512 * g).second_pass, 3);
  EXPECT_EQ(S::plan_for(sms, 1, 512 * g).warps_per_block, 1);  // (512 blocks)
  EXPECT_NE(S::plan_for(sms, 1, 512 * g + 1).second_pass, 3);
  EXPECT_EQ(S::plan_for(sms, 2, 257 * g).second_pass, 3);    // (514 warps)
  EXPECT_NE(S::plan_for(sms, 3, 257 * g).second_pass, 3);    // (771)
  EXPECT_EQ(S::plan_for(sms, 1, 1024).layout, L::LanesPerRow);  // (rows lanes a row hold: theirs)
  EXPECT_NE(S::plan_for(sms, 1, 4 * g, {L::Segmented, 2}).second_pass, 3);  // (another knob asked)
}

// A row's cluster, asked: 8 warps a block unless asked, at most 8 blocks a
// row (64 segments), its draws a lane a draw, all in the row's cluster.
TEST(SumTreePlanRule, ARowsClusterIsAtMost8Blocks) {
  using S = gpu::SumTreeSampler<double>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<double>);
  const auto asked = S::plan_for(sms, 256, 64 * g, {L::Segmented, 0, -1, 4}, 64);
  EXPECT_EQ(asked.second_pass, 4);
  EXPECT_EQ(asked.warps_per_block, 8);
  EXPECT_EQ(asked.warp_walk, 0);
  EXPECT_EQ(asked.row_blocks, 0);
  EXPECT_EQ(asked.describe(), "segmented, 8 warps a block, a row's blocks a cluster");
  EXPECT_EQ(S::plan_for(sms, 1, 3 * g, {L::Segmented, 0, -1, 4}).warps_per_block, 8);
  EXPECT_EQ(S::plan_for(sms, 1, 32 * g, {L::Segmented, 4, -1, 4}).warps_per_block, 4);
  EXPECT_THROW(S::plan_for(sms, 1, 32 * g + 1, {L::Segmented, 4, -1, 4}), std::invalid_argument);  // (9 blocks)
  EXPECT_THROW(S::plan_for(sms, 1, 64 * g + 1, {L::Segmented, 0, -1, 4}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * g, {L::Segmented, 0, -1, 4, 1}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * g, {L::Segmented, 0, -1, 4, -1, 2}, 8), std::invalid_argument);
  // The corners of the registry's cluster rows (SumTreeEntry.
  // ClusterRows...): 5-8 rows of 35-64 segments, 16-64 draws, both
  // precisions.
  for (const int m : {5, 8}) {
    for (const std::int64_t k : {34 * g + 1, 64 * g}) {
      for (const int draws : {16, 64}) {
        EXPECT_EQ(S::plan_for(sms, m, k, {}, draws).second_pass, 4) << "fp64 M " << m << " K " << k << " S " << draws;
        EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, m, 2 * k, {}, draws).second_pass, 4) << "fp32 M " << m << " K " << 2 * k;
      }
    }
  }
}

// The second kernel a warp a row (no device: runs in CI): one draw a row of
// up to 256 segments where M x segments is at most 4 warps a
// multiprocessor (where the resident pass is not chosen: another knob
// asked) or the rows are more than three a multiprocessor; a block a row
// between, with S > 1 or longer rows; as asked.
TEST(SumTreePlanRule, AWarpARowDrawsOneDrawOfFewOrManyRows) {
  using S = gpu::SumTreeSampler<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  const gpu::SumTreePlan two{L::Segmented, 2};  // (a knob the resident pass has not: not resident)
  EXPECT_EQ(S::plan_for(sms, 1, 65 * g).second_pass, 3);  // (few warps: resident, up to 512 segments)
  EXPECT_EQ(S::plan_for(sms, 1, 65 * g, two).second_pass, 2);
  EXPECT_EQ(S::plan_for(sms, 8, 65 * g, two).second_pass, 2);  // (520 warps)
  EXPECT_EQ(S::plan_for(sms, 9, 65 * g).second_pass, 1);  // (585)
  EXPECT_EQ(S::plan_for(sms, 1, 32 * g).second_pass, 3);
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g).second_pass, 3);  // (512 warps)
  EXPECT_EQ(S::plan_for(sms, 17, 32 * g).second_pass, 1);  // (544)
  EXPECT_EQ(S::plan_for(sms, 1, 256 * g, two).second_pass, 2);
  EXPECT_EQ(S::plan_for(sms, 2, 256 * g + 1, two).second_pass, 1);
  EXPECT_EQ(S::plan_for(sms, 3 * sms + 1, 65 * g).second_pass, 2);  // (rows of 9-64 segments here go a row's cluster)
  EXPECT_EQ(S::plan_for(sms, 3 * sms, 65 * g).second_pass, 1);
  EXPECT_EQ(S::plan_for(sms, 1024, 256 * g).second_pass, 2);
  EXPECT_EQ(S::plan_for(sms, 1024, 256 * g + 1).second_pass, 1);
  EXPECT_EQ(S::plan_for(sms, 17, 32 * g, {}, 2).second_pass, 1);
  EXPECT_EQ(S::plan_for(sms, 1024, 65 * g, {}, 2).second_pass, 1);
  EXPECT_EQ(S::plan_for(sms, 1024, 40 * g, {L::Segmented, 0, -1, 1}).second_pass, 1);
  EXPECT_EQ(S::plan_for(sms, 1, 65 * g, two).describe(), "segmented, 2 warps a block, then a warp a row, warps walk draws");
  const auto asked = S::plan_for(sms, 2, 40 * g, {L::Segmented, 0, -1, 2}, 4);
  EXPECT_EQ(asked.second_pass, 2);
  EXPECT_EQ(asked.warp_walk, 1);
  EXPECT_EQ(asked.row_blocks, 0);
  EXPECT_EQ(asked.describe(), "segmented, 1 warps a block, then a warp a row, warps walk draws");
  const std::int64_t g64 = static_cast<std::int64_t>(tree::kSegment<double>);  // (2,048)
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1, 65 * g64, two).second_pass, 2);
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1, 65 * g64).second_pass, 3);
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1, 64 * g64).second_pass, 3);
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1024, 256 * g64).second_pass, 2);
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1024, 256 * g64 + 1).second_pass, 1);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * g, {L::Segmented, 0, -1, 2}, 5), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * g, {L::Segmented, 0, -1, 5}), std::invalid_argument);
}

// Fast memory (no device: runs in CI): on a device whose memory feeds each
// multiprocessor 32 GB/s or more (the H200's 36.5, not the H100's 25.4),
// one draw of rows of 17-64 segments goes the second kernel below 8 rows a
// multiprocessor, not a row's cluster, and the second kernel goes a warp a
// row past 2 rows a multiprocessor, not 3. Rows of 9-16 segments, S draws
// and 8 rows a multiprocessor or more keep the cluster; the H100's rule
// (plan_for(sms, ...)) is unchanged.
TEST(SumTreePlanRule, FastMemoryTakesTheSecondKernelOverARowsCluster) {
  using S = gpu::SumTreeSampler<float>;
  using D = gpu::SumTreeSampler<double>;
  const gpu::PlanDevice h100{132, 3352.0}, h200{132, 4814.0};
  EXPECT_FALSE(h100.fast_memory());
  EXPECT_TRUE(h200.fast_memory());
  EXPECT_TRUE((gpu::PlanDevice{132, 32.0 * 132}).fast_memory());
  EXPECT_FALSE((gpu::PlanDevice{132, 31.9 * 132}).fast_memory());
  EXPECT_FALSE((gpu::PlanDevice{132}).fast_memory());  // (bandwidth not known)
  EXPECT_THROW(S::plan_for(gpu::PlanDevice{0, 4814.0}, 1, 4), std::invalid_argument);
  const std::string cluster = "segmented, 8 warps a block, a row's blocks a cluster";
  // The grid: fp64 (256, 131,072), 64 segments; (1,024, 131,072).
  EXPECT_EQ(D::plan_for(h100, 256, 131072).describe(), cluster);
  EXPECT_EQ(D::plan_for(132, 256, 131072).describe(), cluster);
  EXPECT_EQ(D::plan_for(h200, 256, 131072).describe(), "segmented, 8 warps a block, then a block a row, warps walk draws");
  EXPECT_EQ(S::plan_for(h200, 1024, 131072).describe(), "segmented, 8 warps a block, then a warp a row, warps walk draws");
  EXPECT_EQ(S::plan_for(h100, 1024, 131072).describe(), cluster);
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  // 17 segments: a block a row up to 2 rows a multiprocessor, a warp a row
  // past it, the cluster from 8; on the H100 the cluster from 32 warps a
  // multiprocessor (M x segments 4,224: M = 249).
  EXPECT_EQ(S::plan_for(h200, 264, 17 * g).second_pass, 1);
  EXPECT_EQ(S::plan_for(h200, 265, 17 * g).second_pass, 2);
  EXPECT_EQ(S::plan_for(h200, 8 * 132 - 1, 17 * g).second_pass, 2);
  EXPECT_EQ(S::plan_for(h200, 8 * 132, 17 * g).second_pass, 4);
  EXPECT_EQ(S::plan_for(h100, 249, 17 * g).second_pass, 4);
  EXPECT_EQ(S::plan_for(h100, 248, 17 * g).second_pass, 1);
  EXPECT_EQ(S::plan_for(h100, 1055, 17 * g).second_pass, 4);
  // 64 segments the same; 16 keep the cluster (fp32 (320, 65,536)).
  EXPECT_EQ(S::plan_for(h200, 132, 64 * g).second_pass, 1);
  EXPECT_EQ(S::plan_for(h200, 1055, 64 * g).second_pass, 2);
  EXPECT_EQ(S::plan_for(h200, 320, 16 * g).second_pass, 4);
  EXPECT_EQ(S::plan_for(h100, 320, 16 * g).second_pass, 4);
  // S draws keep the cluster (fp64 (256, 131,072, S = 64); S = 16).
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 64).describe(), cluster);
  EXPECT_EQ(S::plan_for(h200, 33, 32 * g, {}, 16).second_pass, 4);
  // Past 64 segments (the second kernel on both): a warp a row past 2 rows
  // a multiprocessor on fast memory, past 3 on the H100.
  EXPECT_EQ(S::plan_for(h200, 264, 65 * g).second_pass, 1);
  EXPECT_EQ(S::plan_for(h200, 265, 65 * g).second_pass, 2);
  EXPECT_EQ(S::plan_for(h100, 265, 65 * g).second_pass, 1);
  EXPECT_EQ(S::plan_for(h100, 397, 65 * g).second_pass, 2);
  // Asked, the cluster still goes (the rule only chooses).
  EXPECT_EQ(S::plan_for(h200, 132, 64 * g, {gpu::SumTreePlan::Layout::Segmented, 0, -1, 4}).second_pass, 4);
}

// On fast memory, 2-16 draws of rows of 33-64 segments, at most 4 rows a
// multiprocessor, of a matrix past L2 (read once) go the second kernel, not
// a row's cluster; 64 draws, more rows, rows a block a row holds, matrices
// L2 holds and the H100 keep it (no device: runs in CI).
TEST(SumTreePlanRule, FastMemoryReadingOnceTakesTheSecondKernelForFewDraws) {
  using S = gpu::SumTreeSampler<float>;
  using D = gpu::SumTreeSampler<double>;
  const gpu::PlanDevice h200{132, 4814.0, std::size_t{60} << 20}, h100{132, 3352.0, std::size_t{50} << 20};
  const gpu::PlanDevice h200_no_l2{132, 4814.0};
  const std::string cluster = "segmented, 8 warps a block, a row's blocks a cluster";
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 16).describe(), "segmented, 8 warps a block, then a block a row, warps walk draws, read once");
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 2).second_pass, 1);
  EXPECT_EQ(D::plan_for(h100, 256, 131072, {}, 16).describe(), cluster);
  EXPECT_EQ(D::plan_for(h200_no_l2, 256, 131072, {}, 16).describe(), cluster);
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 17).describe(), cluster);   // (64: 1.08x slower)
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 64).describe(), cluster);
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  EXPECT_EQ(S::plan_for(h200, 4 * 132, 64 * g, {}, 8).second_pass, 1);
  EXPECT_EQ(S::plan_for(h200, 4 * 132 + 1, 64 * g, {}, 8).second_pass, 4);  // (1,024 rows: 1.00-1.04x slower)
  EXPECT_EQ(S::plan_for(h200, 256, 33 * g, {}, 8).second_pass, 1);
  EXPECT_EQ(S::plan_for(h200, 256, 32 * g, {}, 2).second_pass, 4);  // (a block a row holds 32)
  EXPECT_EQ(S::plan_for(h200, 32, 64 * g, {}, 16).second_pass, 4);   // 32 MiB: L2 holds it
  EXPECT_EQ(S::plan_for(h200, 64, 64 * g, {}, 16).describe(), "segmented, 8 warps a block, then 2 blocks a row, warps walk draws, read once");
}

// S draws a row (no device: runs in CI): lanes a row for rows of up to 256
// vectors (fp32 K <= 1,024, fp64 K <= 512) whose G lanes make them in at
// most 8 rounds (S <= 8 G), whatever M, or 32 rounds where the rows fill
// the GPU with lanes holding several vectors each, or 64 rounds of rows on
// 16 or 32 lanes where one step of rows a warp gives 12 warps a
// multiprocessor; more draws, or longer
// rows, a block a row; a warp 32 rows only when asked (few draws of the
// rows a thread holds: the next test).
TEST(SumTreePlanRule, SDrawsGoLanesARowUpTo256VectorsAnd8Rounds) {
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  for (const int m : {1, 1000, 1 << 20}) {
    for (const int draws : {2, 8, 64}) {
      EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, m, 4, {}, draws).layout, draws <= 8 ? L::LanesPerRow : L::BlockPerRow);
      EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, m, 64, {}, draws).layout, draws <= 8 ? L::ThreadPerRow : L::LanesPerRow);
      // (8 vectors a lane, 48 shuffles a draw: one round of 32 draws)
      EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, m, 1024, {}, draws).layout, draws <= 32 ? L::LanesPerRow : L::BlockPerRow);
      // (past lanes a row: one row with up to 4 draws a segment goes resident)
      const L past = m == 1 && draws <= 4 ? L::Segmented : L::BlockPerRow;
      EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, m, 1025, {}, draws).layout, past);
      EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, m, 4096, {}, draws).layout, past);
      EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, m, 512, {}, draws).layout, L::LanesPerRow);
      EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, m, 513, {}, draws).layout, past);
    }
  }
  // The rounds: a row of 1, 8 and 32 lanes (fp32 K = 4, 32, 512), 8 G
  // draws and one more; one round where a draw shuffles more than 32
  // values (fp32 K = 1,024: 8 vectors a lane, 48).
  for (const auto& [k, lanes] : {std::pair<std::int64_t, int>{4, 1}, {32, 8}, {512, 32}}) {
    EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1000, k, {}, 8 * lanes).layout, L::LanesPerRow) << k;
    EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1000, k, {}, 8 * lanes + 1).layout, L::BlockPerRow) << k;
  }
  for (const int m : {256, 1000, 16384}) {
    EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, m, 1024, {}, 32).layout, L::LanesPerRow) << m;
    EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, m, 1024, {}, 33).layout, L::BlockPerRow) << m;
    EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, m, 769, {}, 64).layout, L::BlockPerRow) << m;
    EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, m, 512, {}, 256).layout, L::LanesPerRow) << m;  // (fp64: 32 shuffles)
  }
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1000, 2, {}, 9).layout, L::BlockPerRow);
  // Up to 32 rounds where a lane holds 2 or more vectors, a draw shuffles
  // at most 32 values (fp32 NV <= 4, fp64 NV <= 8) and the rows fill 4
  // warps a multiprocessor (fp32 K = 256: 4 rows a warp, 528 warps from
  // M = 2,109); up to 64 rounds of rows on 16 or 32 lanes where a warp's
  // one step of rows gives 12 warps a multiprocessor (fp32 K = 64: 2 rows
  // a warp, 1,584 warps from M = 3,167).
  using F = gpu::SumTreeSampler<float>;
  using D = gpu::SumTreeSampler<double>;
  EXPECT_EQ(F::plan_for(sms, 4096, 256, {}, 1024).layout, L::LanesPerRow);
  EXPECT_EQ(F::plan_for(sms, 4096, 256, {}, 2048).layout, L::LanesPerRow);  // (64 rounds)
  EXPECT_EQ(F::plan_for(sms, 4096, 256, {}, 2049).layout, L::BlockPerRow);  // (65)
  EXPECT_EQ(F::plan_for(sms, 2112, 256, {}, 1024).layout, L::LanesPerRow);
  EXPECT_EQ(F::plan_for(sms, 1584, 256, {}, 1024).layout, L::LanesPerRow);
  EXPECT_EQ(F::plan_for(sms, 1583, 256, {}, 1024).layout, L::BlockPerRow);
  EXPECT_EQ(F::plan_for(sms, 3167, 64, {}, 1024).layout, L::LanesPerRow);
  EXPECT_EQ(F::plan_for(sms, 3166, 64, {}, 1024).layout, L::BlockPerRow);
  EXPECT_EQ(F::plan_for(sms, 600, 256, {}, 512).layout, L::BlockPerRow);
  EXPECT_EQ(F::plan_for(sms, 4096, 512, {}, 512).layout, L::LanesPerRow);    // (4 vectors a lane: 24 shuffles)
  EXPECT_EQ(F::plan_for(sms, 4096, 1024, {}, 512).layout, L::BlockPerRow);   // (8: 48)
  EXPECT_EQ(F::plan_for(sms, 1 << 16, 128, {}, 512).layout, L::LanesPerRow); // (a vector a lane, 32 lanes)
  EXPECT_EQ(F::plan_for(sms, 4096, 64, {}, 1024).layout, L::LanesPerRow);    // (16 lanes, 64 rounds)
  EXPECT_EQ(F::plan_for(sms, 4096, 64, {}, 1025).layout, L::BlockPerRow);    // (65 rounds)
  EXPECT_EQ(F::plan_for(sms, 1 << 16, 32, {}, 512).layout, L::BlockPerRow);  // (8 lanes)
  EXPECT_EQ(D::plan_for(sms, 4096, 256, {}, 1024).layout, L::LanesPerRow);
  EXPECT_EQ(D::plan_for(sms, 4096, 512, {}, 512).layout, L::LanesPerRow);    // (8 vectors a lane: 32 shuffles)
  EXPECT_EQ(D::plan_for(sms, 1024, 256, {}, 1024).layout, L::BlockPerRow);   // (512 warps, 1,024 at one step)
  EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1 << 20, 128).layout, L::ThreadPerRow);  // (one draw, 32 vectors)
  EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1 << 20, 64).layout, L::ThreadPerRow);  // (16 vectors)
  EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1 << 20, 32).layout, L::ThreadPerRow);  // (8)
  EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1 << 20, 9).layout, L::ThreadPerRow);   // (3)
  EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1 << 20, 8).layout, L::LanesPerRow);    // (2)
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1 << 20, 32).layout, L::ThreadPerRow);  // (fp64: 16 vectors)
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1 << 20, 16).layout, L::ThreadPerRow);  // (8)
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1 << 20, 4).layout, L::LanesPerRow);    // (2)
  EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1 << 20, 252).layout, L::ThreadPerRow);  // (63 vectors: two a lane)
  EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1 << 20, 256).layout, L::LanesPerRow);   // (64: every lane full)
  EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1 << 20, 257).layout, L::LanesPerRow);   // (65)
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1 << 20, 128).layout, L::ThreadPerRow);  // (fp64: 64)
  EXPECT_EQ(gpu::SumTreeSampler<double>::plan_for(sms, 1 << 20, 129).layout, L::LanesPerRow);   // (65)
  EXPECT_EQ(gpu::SumTreeSampler<float>::plan_for(sms, 1 << 20, 1024, {L::WarpPerRow}, 8).describe(), "warp-per-row");
}

// S draws of short rows (no device: runs in CI): a thread a row for up to
// 4 draws of rows of 2-63 vectors (fp32; 2-64 fp64) and up to 8 of 16-32
// vectors, rows of 33-64 vectors only from 1,024 rows a multiprocessor;
// up to 32 draws of rows of 1-2 vectors lanes a row, not a block a row,
// where the lanes' warps are at least the multiprocessors.
TEST(SumTreePlanRule, FewDrawsOfShortRowsGoAThreadARow) {
  using L = gpu::SumTreePlan::Layout;
  using F = gpu::SumTreeSampler<float>;
  using D = gpu::SumTreeSampler<double>;
  const int sms = 132;
  EXPECT_EQ(F::plan_for(sms, 1 << 22, 64, {}, 4).layout, L::ThreadPerRow);   // (16 vectors)
  EXPECT_EQ(F::plan_for(sms, 1 << 22, 64, {}, 8).layout, L::ThreadPerRow);
  EXPECT_EQ(F::plan_for(sms, 1 << 22, 64, {}, 9).layout, L::LanesPerRow);
  EXPECT_EQ(F::plan_for(sms, 1 << 24, 16, {}, 4).layout, L::ThreadPerRow);   // (4 vectors)
  EXPECT_EQ(F::plan_for(sms, 1 << 24, 16, {}, 5).layout, L::LanesPerRow);
  EXPECT_EQ(F::plan_for(sms, 1 << 25, 8, {}, 2).layout, L::ThreadPerRow);    // (2 vectors)
  EXPECT_EQ(F::plan_for(sms, 1 << 26, 4, {}, 2).layout, L::LanesPerRow);     // (1)
  EXPECT_EQ(F::plan_for(sms, 1 << 20, 256, {}, 2).layout, L::LanesPerRow);   // (64: every lane full)
  EXPECT_EQ(F::plan_for(sms, 1 << 21, 128, {}, 8).layout, L::ThreadPerRow);  // (32)
  EXPECT_EQ(F::plan_for(sms, 1342177, 200, {}, 4).layout, L::ThreadPerRow);  // (50: two a lane, many rows)
  EXPECT_EQ(F::plan_for(sms, 32 * 32 * sms, 200, {}, 4).layout, L::ThreadPerRow);
  EXPECT_EQ(F::plan_for(sms, 32 * 32 * sms - 1, 200, {}, 4).layout, L::LanesPerRow);
  EXPECT_EQ(F::plan_for(sms, 1342177, 200, {}, 8).layout, L::LanesPerRow);
  EXPECT_EQ(D::plan_for(sms, 1 << 21, 128, {}, 4).layout, L::ThreadPerRow);  // (fp64: 64 vectors)
  EXPECT_EQ(D::plan_for(sms, 1 << 21, 128, {}, 8).layout, L::LanesPerRow);
  EXPECT_EQ(D::plan_for(sms, 1 << 23, 32, {}, 8).layout, L::ThreadPerRow);   // (16)
  EXPECT_EQ(D::plan_for(sms, 1 << 24, 16, {}, 8).layout, L::LanesPerRow);    // (8)
  EXPECT_EQ(D::plan_for(sms, 1 << 26, 4, {}, 2).layout, L::ThreadPerRow);    // (2)
  EXPECT_EQ(D::plan_for(sms, 1 << 26, 2, {}, 2).layout, L::LanesPerRow);     // (1)
  // Many draws of rows of 1-2 vectors: lanes a row where its warps (128
  // rows each on 2 lanes, 256 on one) are at least the multiprocessors.
  EXPECT_EQ(F::plan_for(sms, 1 << 25, 8, {}, 32).layout, L::LanesPerRow);
  EXPECT_EQ(F::plan_for(sms, 128 * sms, 8, {}, 32).layout, L::LanesPerRow);
  EXPECT_EQ(F::plan_for(sms, 128 * sms - 128, 8, {}, 32).layout, L::BlockPerRow);
  EXPECT_EQ(F::plan_for(sms, 1 << 25, 8, {}, 33).layout, L::BlockPerRow);
  EXPECT_EQ(F::plan_for(sms, 1 << 26, 4, {}, 32).layout, L::LanesPerRow);
  EXPECT_EQ(D::plan_for(sms, 1 << 25, 4, {}, 32).layout, L::LanesPerRow);
  // Asked for, a layout is kept.
  EXPECT_EQ(F::plan_for(sms, 1 << 22, 64, {L::LanesPerRow}, 4).layout, L::LanesPerRow);
}

// The second kernel's blocks a row (no device: runs in CI): walked and M
// below the multiprocessors, one for every 32 draws, up to one for every 8
// while M x blocks is at most the multiprocessors; past two walked blocks a
// multiprocessor, a lane a draw and one for every 256; one with the walk off
// or a row for every multiprocessor; as asked, less any block that
// would have no draws; refused past S, below 0, or for the last warp; and
// dropped by the layouts without a second kernel.
TEST(SumTreePlanRule, SecondKernelSharesARowsDrawsOverBlocks) {
  using S = gpu::SumTreeSampler<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  // (513 segments: past the resident pass's 512, so no draws go resident)
  const std::int64_t k = 513 * static_cast<std::int64_t>(tree::kSegment<float>);
  EXPECT_EQ(S::plan_for(sms, 1, k).row_blocks, 1);  // (one draw: a block a row, past a warp a row's 256 segments)
  EXPECT_EQ(S::plan_for(sms, 1, k, {L::Segmented, 0, -1, 1}).row_blocks, 1);
  EXPECT_EQ(S::plan_for(sms, 1, k, {}, 8).row_blocks, 1);
  EXPECT_EQ(S::plan_for(sms, 1, k, {}, 16).row_blocks, 2);
  EXPECT_EQ(S::plan_for(sms, 1, k, {}, 64).row_blocks, 8);
  EXPECT_EQ(S::plan_for(sms, 1, k, {}, 1000).row_blocks, 125);  // (clamped to S / 8)
  EXPECT_EQ(S::plan_for(sms, 1, k, {}, 5000).row_blocks, 157);  // (at least S / 32; 32 draws each, the last 8)
  // Past two walked blocks a multiprocessor: a lane a draw, 256 a block.
  EXPECT_EQ(S::plan_for(sms, 1, k, {}, 65536).row_blocks, 256);
  EXPECT_EQ(S::plan_for(sms, 1, k, {}, 65536).describe(), "segmented, 1 warps a block, then 256 blocks a row");
  EXPECT_EQ(S::plan_for(sms, 16, k, {}, 1024).row_blocks, 4);   // (16 x 32 walked blocks)
  EXPECT_EQ(S::plan_for(sms, 8, k, {}, 1024).row_blocks, 32);   // (8 x 32: one wave, walked)
  EXPECT_EQ(S::plan_for(sms, 8, k, {}, 1024).warp_walk, 1);
  EXPECT_EQ(S::plan_for(sms, 1, k, {L::Segmented, 0, -1, 1, 1}, 65536).row_blocks, 2048);  // (asked to walk: walked)
  EXPECT_EQ(S::plan_for(sms, 33, k, {}, 64).row_blocks, 4);
  EXPECT_EQ(S::plan_for(sms, 131, k, {}, 64).row_blocks, 2);
  EXPECT_EQ(S::plan_for(sms, 132, k, {}, 64).row_blocks, 1);  // (a row for every multiprocessor: one)
  EXPECT_EQ(S::plan_for(sms, 256, k, {}, 64).row_blocks, 1);
  EXPECT_EQ(S::plan_for(sms, 256, k, {}, 16).row_blocks, 1);
  EXPECT_EQ(S::plan_for(sms, 1, k, {L::Segmented, 0, -1, 1, 0}, 64).row_blocks, 1);
  EXPECT_EQ(S::plan_for(sms, 1, k, {L::Segmented, 0, -1, 1, 1, 3}, 64).row_blocks, 3);
  EXPECT_EQ(S::plan_for(sms, 1, k, {L::Segmented, 0, -1, 1, 1, 7}, 9).row_blocks, 5);  // (2 draws each: 5 blocks)
  EXPECT_EQ(S::plan_for(sms, 1, k, {L::Segmented, 0, -1, 1, 1, 9}, 9).row_blocks, 9);
  EXPECT_EQ(S::plan_for(sms, 1, 4, {L::LanesPerRow, 0, -1, -1, -1, 2}, 9).row_blocks, 0);
  EXPECT_NE(S::plan_for(sms, 1, k, {}, 64).describe().find("then 8 blocks a row"), std::string::npos);
  EXPECT_THROW(S::plan_for(sms, 1, k, {L::Segmented, 0, -1, 1, 1, 10}, 9), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, k, {L::Segmented, 0, -1, 1, 1, -1}, 9), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * tree::kSegment<float>, {L::Segmented, 0, -1, 0, -1, 2}, 9), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, k, {}, 0), std::invalid_argument);
}

// A block a row's blocks a row (no device: runs in CI): one for every
// round of draws of the block's warps' lanes (32 a segment), up to a grid
// of 16 warps a multiprocessor, at least one (two where rows longer than
// a vector a lane have two rounds or more); as asked, less any block
// that would have no draws; refused past S. Rows kept in shared memory
// only where asked. Rows of 17-32 segments a block a row where a row has
// more draws than its warps' lanes.
TEST(SumTreePlanRule, ABlockARowSpreadsManyDrawsOverBlocks) {
  using S = gpu::SumTreeSampler<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const auto plan = [&](int m, std::int64_t k, int draws, gpu::SumTreePlan ask = {}) { return S::plan_for(sms, m, k, ask, draws); };
  EXPECT_EQ(plan(1, 64, 65536).row_blocks, 2048);       // (S / 32: a round of 32 draws a block)
  EXPECT_EQ(plan(1, 64, 1000).row_blocks, 32);          // (32 draws each, the last 8)
  EXPECT_EQ(plan(256, 64, 4096).row_blocks, 8);         // (16 x 132 warps over 256 rows)
  EXPECT_EQ(plan(32, 4096, 8192).row_blocks, 66);
  EXPECT_EQ(plan(4096, 1024, 512).row_blocks, 2);       // (past a vector a lane, 16 rounds: two blocks)
  EXPECT_EQ(plan(4096, 64, 1024, {L::BlockPerRow}).row_blocks, 1);  // (a vector a lane: the grid is full already)
  EXPECT_EQ(plan(8192, 4096, 32).row_blocks, 1);        // (one round)
  EXPECT_EQ(plan(1, 8 * 4096, 65536).row_blocks, 256);  // (8 segments: 8 warps, 256 draws a round)
  EXPECT_EQ(plan(4224, 64, 1000, {L::BlockPerRow}).row_blocks, 1);  // (32 warps a multiprocessor already)
  EXPECT_EQ(plan(1024, 8 * 4096, 16).row_blocks, 1);
  EXPECT_EQ(plan(600, 4096, 1).row_blocks, 1);
  EXPECT_EQ(plan(1, 64, 65536).describe(), "block-per-row, 2048 blocks a row");  // (not kept: each block would copy the row)
  EXPECT_EQ(plan(1, 32 * 4096, 65536).describe(), "block-per-row, 64 blocks a row");  // (32 segments: past a round a block)
  EXPECT_EQ(plan(1, 32 * 4096, 64).layout, L::Segmented);
  EXPECT_EQ(plan(1, 64, 64, {L::BlockPerRow, 0, -1, -1, -1, 3}).row_blocks, 3);  // (22, 22, 20 draws)
  EXPECT_EQ(plan(1, 64, 9, {L::BlockPerRow, 0, -1, -1, -1, 7}).row_blocks, 5);   // (2 draws each: 5 blocks)
  EXPECT_THROW(plan(1, 64, 9, {L::BlockPerRow, 0, -1, -1, -1, 10}), std::invalid_argument);
  for (const int m : {1, 100, 1000, 5000}) {  // (rows kept only where asked: a draw reads one batch from its lane's marks)
    for (const int draws : {1, 2, 32, 33}) {
      if (m * 1 <= 4 * sms && draws <= 4) continue;  // (resident)
      EXPECT_EQ(plan(m, 4096, draws).keep_rows, 0) << "M " << m << " S " << draws;
    }
  }
  EXPECT_EQ(plan(100, 4096, 2, {L::BlockPerRow, 0, 1}).keep_rows, 1);
  EXPECT_EQ(plan(100, 4096, 2, {L::BlockPerRow, 0, 1}).describe(), "block-per-row, rows in shared memory");
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
