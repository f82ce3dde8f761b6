// The sum-tree draw (oracle/sum_tree.hpp) and its run on the warp model
// (oracle/sum_tree_draw.hpp): the model draws what the scalar definition
// draws, on every family, from rows of one weight to several segments; the
// tree's sums are the pairs the definition names; and hand-made rows whose
// draws are known.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "oracle/sum_tree.hpp"
#include "oracle/sum_tree_draw.hpp"
#include "properties/generators.hpp"
#include "properties/rc_checks.hpp"

using namespace warpsim;
namespace tree = oracle::sum_tree;

namespace {

template <class T>
void model_equals_scalar() {
  const int g = static_cast<int>(tree::kSegment<T>);
  struct Shape {
    int m, k, draws;
  };
  const Shape shapes[] = {{3, 1, 2}, {2, 5, 33}, {2, 130, 4}, {1, g - 3, 3}, {1, 2 * g + 7, 5}, {1, 5 * g, 2}};
  std::uint64_t seed = 3;
  for (const auto f : properties::kFamilies) {
    for (const auto& s : shapes) {
      const auto w = properties::sample(properties::gen_matrix<T>(f, s.m, s.k, seed), seed).weights;
      sim::GlobalMemory mem;
      const auto wm = oracle::upload_matrix<T>(mem, w, s.m, s.k);
      const auto want = tree::draw_matrix<T>(w, s.m, static_cast<std::size_t>(s.k), seed, s.draws);
      for (const bool walk : {false, true}) {  // a lane a draw, or the warp walking each draw as the second kernel does
        const auto got = tree::draw_on_model(mem, wm, seed, s.draws, walk);
        EXPECT_EQ(got.index, want) << properties::family_name(f) << " M " << s.m << " K " << s.k << " S " << s.draws << " walk " << walk;
        EXPECT_GT(got.counters.total_instructions(), 0u);
      }
      // A row's draws over several of the second kernel's blocks: 2 (the
      // last one's share smaller where S is odd), and a block a draw.
      for (const int blocks : {2, s.draws}) {
        if (blocks > s.draws) continue;
        EXPECT_EQ(tree::draw_on_model(mem, wm, seed, s.draws, true, blocks).index, want)
            << properties::family_name(f) << " M " << s.m << " K " << s.k << " S " << s.draws << " row blocks " << blocks;
      }
      ++seed;
    }
  }
}

TEST(SumTree, ModelDrawsTheScalarDefinitionFp32) { model_equals_scalar<float>(); }
TEST(SumTree, ModelDrawsTheScalarDefinitionFp64) { model_equals_scalar<double>(); }

// The warp walk's shape on the model: one draw of a long row reads its
// lane's 32 vectors in one warp-wide load for each of the vector's E
// weights, where a lane a draw issues E loads for each vector it walks (all
// 32 here: only the last vector of each lane weighs); the sums reach every
// lane by 32 shuffles. S = 40 (past the spread) walks only its last round of 8: its
// first round of 32 goes a lane a draw.
TEST(SumTree, WarpWalkReadsTheChosenLaneAtOnce) {
  const int k = 5 * static_cast<int>(tree::kSegment<float>);
  std::vector<float> w(static_cast<std::size_t>(k));
  // Only vector 31 of each lane weighs (the last 512 weights of every
  // segment): a lane a draw walks all 32 of its lane's vectors.
  for (int i = 0; i < k; ++i) w[static_cast<std::size_t>(i)] = i % 4096 >= 31 * 32 * 4 ? static_cast<float>(1 + i % 5) : 0.0f;
  sim::GlobalMemory mem;
  const auto wm = oracle::upload_matrix<float>(mem, w, 1, k);
  const auto lane = tree::draw_on_model(mem, wm, 7, 1, false);
  const auto walked = tree::draw_on_model(mem, wm, 7, 1, true);
  ASSERT_EQ(walked.index, lane.index);
  // Everything before the walk is the same: the difference is the walk's
  // loads, 4 (E) for the warp's one round against 4 for each of the 32
  // vectors walked.
  EXPECT_EQ(lane.counters.global_requests - walked.counters.global_requests, 31u * 4u);
  EXPECT_EQ(walked.counters.shuffles() - lane.counters.shuffles(), 32u + 3u + 1u);  // 32 sums; segment, lane, target; the column
  EXPECT_EQ(tree::draw_on_model(mem, wm, 7, 40, true).index, tree::draw_on_model(mem, wm, 7, 40, false).index);
}

// The segment's sum is its lanes' sums by pairs, each lane's its vectors in
// order, each vector's by pairs: written out for one segment of distinct
// powers of two (every sum exact) and for a row where rounding shows.
TEST(SumTree, SegmentSumIsThePairsTheDefinitionNames) {
  std::vector<float> w(tree::kSegment<float>);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(1 + i % 7);
  double lanes[32];
  for (int l = 0; l < 32; ++l) {
    double r = 0;
    for (int j = 0; j < 32; ++j) {
      const std::size_t e = (static_cast<std::size_t>(j) * 32 + static_cast<std::size_t>(l)) * 4;
      r += (double(w[e]) + double(w[e + 1])) + (double(w[e + 2]) + double(w[e + 3]));
    }
    lanes[l] = r;
  }
  for (int width = 32; width > 1; width /= 2)
    for (int i = 0; i < width / 2; ++i) lanes[i] = lanes[2 * i] + lanes[2 * i + 1];
  EXPECT_EQ(tree::segment_sums<float>(w)[0], lanes[0]);
  // Rounding: 1 + 2^-53 + 2^-53 + ... in the definition's order, not in index order.
  std::vector<double> d(8, 0x1p-53);
  d[0] = 1;
  // fp64 vectors are pairs, a lane each here: 1 + 2^-53 (rounds to 1),
  // then three of 2^-52; by pairs (1 + 2^-52) + (2^-52 + 2^-52) = 1 + 3 2^-52,
  // where adding in index order leaves 1 (each 2^-53 a tie, rounded away).
  double in_order = 0;
  for (double x : d) in_order += x;
  EXPECT_EQ(in_order, 1.0);
  EXPECT_EQ(tree::segment_sums<double>(d)[0], 1 + 3 * 0x1p-52);
}

// Hand-made rows: a single positive weight is always drawn; a weight of 0
// never, wherever it is; u = 0 draws the first positive weight in the
// tree's order.
TEST(SumTree, HandMadeRows) {
  std::vector<float> one(10000, 0.0f);
  one[7777] = 3;
  for (double u : {0.0, 0.5, 1 - 0x1p-53}) EXPECT_EQ(tree::draw<float>(one, u), 7777u);
  std::vector<double> two(300, 0.0);
  two[3] = 1;
  two[299] = 1;
  EXPECT_EQ(tree::draw<double>(two, 0.0), 3u);
  EXPECT_EQ(tree::draw<double>(two, 0.75), 299u);
  std::vector<float> zeros(5, 0.0f);
  EXPECT_EQ(tree::draw<float>(zeros, 0.3), 0u);  // (a row of zeros draws index 0)
  EXPECT_THROW(tree::draw<float>(std::vector<float>{}, 0.5), std::invalid_argument);
}

}  // namespace
