// The sum-tree plan's rule (gpu/sum_tree_plan.hpp, gpu/sum_tree/plan.cpp):
// which layout and knobs each matrix, draws and device get, and what the
// plan refuses. Host code only, no device: these run in CI. That the
// current device's plan is this rule, and that every layout draws the
// oracle's indices, is tests/gpu/sum_tree_sampler_test.cpp's.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpu/sum_tree_plan.hpp"
#include "oracle/sum_tree.hpp"

using namespace warpsim;

namespace {

namespace tree = oracle::sum_tree;
using P = gpu::SumTreePlan::SecondPass;

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
    EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(132, q.m, q.k, {}, q.draws).describe(), q.layout) << "fp32 M " << q.m << " K " << q.k << " S " << q.draws;
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
    EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(132, q.m, q.k, {}, q.draws).describe(), q.layout) << "fp64 M " << q.m << " K " << q.k << " S " << q.draws;
  }
  // Fewer multiprocessors: (1,024, 4,096) no longer has its 32 warps a
  // multiprocessor for the walk on 16, and 20 rows of 20 segments with 8
  // draws each fill 16 multiprocessors (a block a row) but not 132
  // (segmented); with one draw a row they go segmented either way (the
  // second kernel walks it).
  using S = gpu::SumTreePlanner<float>;
  EXPECT_EQ(S::plan_for(16, 1024, 4096).warp_walk, 0);
  EXPECT_EQ(S::plan_for(16, 20, 20 * 4096, {}, 8).layout, gpu::SumTreePlan::Layout::BlockPerRow);
  EXPECT_EQ(S::plan_for(132, 20, 20 * 4096, {}, 8).layout, gpu::SumTreePlan::Layout::Segmented);
  EXPECT_EQ(S::plan_for(16, 20, 20 * 4096).layout, gpu::SumTreePlan::Layout::Segmented);
  EXPECT_EQ(S::plan_for(16, 20, 16 * 4096).layout, gpu::SumTreePlan::Layout::BlockPerRow);
  // Rows of 9-64 segments with one draw: a row's cluster from 32 warps a
  // multiprocessor (M x segments: 4,224 on 132, 512 on 16), below it a
  // block a row (up to 16 segments) or segmented; fp32 rows of 8 segments
  // stay a block a row.
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(132, 2048, 65536).second_pass, P::ClusterPass);
  EXPECT_EQ(S::plan_for(132, 132, 32 * 4096).second_pass, P::ClusterPass);      // (4,224 warps)
  EXPECT_EQ(S::plan_for(132, 131, 32 * 4096).second_pass, P::RowPass);      // (4,192)
  EXPECT_EQ(S::plan_for(16, 16, 32 * 4096).second_pass, P::ClusterPass);        // (512)
  EXPECT_EQ(S::plan_for(132, 33, 32 * 4096, {}, 16).second_pass, P::ClusterPass);  // (16 draws a row)
  EXPECT_EQ(S::plan_for(132, 33, 32 * 4096, {}, 15).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(132, 1024, 65 * 4096).second_pass, P::WarpRowPass);     // (past 64 segments)
  EXPECT_EQ(S::plan_for(132, 4096, 8 * 4096).layout, gpu::SumTreePlan::Layout::BlockPerRow);
  EXPECT_NE(S::plan_for(132, 132, 32 * 4096, {}, 65).second_pass, P::ClusterPass);  // (past 64 draws)
  EXPECT_THROW(S::plan_for(0, 1, 4), std::invalid_argument);
  EXPECT_THROW(S::plan_for(132, 1, 4, {.layout = gpu::SumTreePlan::Layout::BlockPerRow, .keep_rows = 0, .warp_walk = 2}), std::invalid_argument);
}

// The pass that only sums reads the matrix once (loads L2 evicts first)
// where the matrix is past the device's L2 and at most 32 of them, before a
// second kernel; asked, anywhere that pass runs, and nowhere else (no
// device: runs in CI).
TEST(SumTreePlanRule, ReadsOnceBetweenOneAnd32L2s) {
  using L = gpu::SumTreePlan::Layout;
  using S = gpu::SumTreePlanner<float>;
  using D = gpu::SumTreePlanner<double>;
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
  EXPECT_EQ(S::plan_for(h200, 64, 1048576, {.layout = L::Auto, .read_once = 0}).read_once, 0);  // asked not to
  EXPECT_EQ(S::plan_for(h200, 1, 4096, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::RowPass, .read_once = 1}).read_once, 1);   // asked, 16 KB
  EXPECT_EQ(S::plan_for(h200, 1, 4096, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::WarpRowPass, .read_once = 1}).read_once, 1);
  // The segment pass keeps its lanes' marks where the second kernel makes
  // 4 draws a segment or more a lane a draw: it does not only sum, so it
  // neither reads once nor says it does (fp32 K = 2^24: 4,096 segments).
  const gpu::SumTreePlan marked{.layout = L::Segmented, .warps_per_block = 8, .second_pass = P::RowPass, .warp_walk = 0};
  EXPECT_EQ(S::plan_for(h200, 1, 16777216, marked, 16384).read_once, 0);  // 64 MB, 4 draws a segment
  EXPECT_EQ(S::plan_for(h200, 1, 16777216, marked, 16384).describe(), "segmented, 8 warps a block, then a block a row");
  EXPECT_EQ(S::plan_for(h200, 1, 16777216, marked, 16383).read_once, 1);  // fewer: it only sums
  gpu::SumTreePlan marked_once = marked;
  marked_once.read_once = 1;
  EXPECT_THROW(S::plan_for(h200, 1, 16777216, marked_once, 16384), std::invalid_argument);
  EXPECT_THROW(S::plan_for(h200, 4096, 32768, {.layout = L::BlockPerRow, .read_once = 1}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(h200, 1, 4096, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ResidentPass, .read_once = 1}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(h200, 1, 4096, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::LastWarp, .read_once = 1}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(h200, 1, 4096, {.layout = L::Auto, .read_once = 2}), std::invalid_argument);
}

// The walk's rule (no device: runs in CI): warps walk draws in the second
// kernel at any M and S, a block a row's go a lane a draw (from its lane's
// marks) unless asked; the knob is dropped where the layout has no walk.
TEST(SumTreePlanRule, WarpsWalkDrawsOnlyForFewRowsAndDraws) {
  using S = gpu::SumTreePlanner<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  EXPECT_EQ(S::plan_for(sms, 200, 4 * g).layout, L::BlockPerRow);  // (fewer rows go resident)
  for (const int m : {200, 8 * sms, 8 * sms + 1}) {
    for (const int draws : {1, 2, 4, 5}) EXPECT_EQ(S::plan_for(sms, m, 4 * g, {}, draws).warp_walk, 0) << "M " << m << " S " << draws;
  }
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {.layout = L::BlockPerRow, .warp_walk = 1}, 3).warp_walk, 1);  // (asked)
  EXPECT_EQ(S::plan_for(sms, 9, 65 * g).layout, L::Segmented);
  EXPECT_EQ(S::plan_for(sms, 9, 65 * g).warp_walk, 1);  // (585 warps: not resident)
  EXPECT_EQ(S::plan_for(sms, 100 * sms, 65 * g).warp_walk, 1);  // (the second kernel: whatever M and S)
  EXPECT_EQ(S::plan_for(sms, 100 * sms, 64 * g).warp_walk, 0);  // (a row's cluster: a lane a draw)
  EXPECT_EQ(S::plan_for(sms, 9, 65 * g, {}, 64).warp_walk, 1);
  EXPECT_EQ(S::plan_for(sms, 1, 64 * g).warp_walk, -1);  // (resident: no walk)
  EXPECT_EQ(S::plan_for(sms, 1, 64 * g, {.layout = L::Segmented, .second_pass = P::RowPass, .warp_walk = 0}).warp_walk, 0);
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .second_pass = P::LastWarp}).warp_walk, 1);  // the last warp walks up to 4 draws
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .second_pass = P::LastWarp}, 4).warp_walk, 1);
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .second_pass = P::LastWarp}, 5).warp_walk, 0);  // (more: a lane a draw)
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .second_pass = P::LastWarp, .warp_walk = 0}).warp_walk, 0);
  EXPECT_EQ(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .second_pass = P::LastWarp, .warp_walk = 1}, 9).warp_walk, 0);
  EXPECT_EQ(S::plan_for(sms, 1, 100, {.layout = L::LanesPerRow, .warp_walk = 1}).warp_walk, -1);
  EXPECT_NE(S::plan_for(sms, 1, 4 * g, {.layout = L::BlockPerRow, .warp_walk = 1}, 3).describe().find("warps walk draws"), std::string::npos);
  EXPECT_EQ(S::plan_for(sms, 200, 4 * g, {}, 3).describe(), "block-per-row");
  EXPECT_THROW(S::plan_for(sms, 1, 4, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::RowPass, .warp_walk = -2}), std::invalid_argument);
}

// The row's last warp draws (one kernel) only where asked: rows of up to
// 32 segments, walked for up to 4 draws.
TEST(SumTreePlanRule, TheLastWarpDrawsOnlyWhereAsked) {
  using S = gpu::SumTreePlanner<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  for (int m : {1, 16, 17, 1024}) {
    for (int draws : {1, 2, 64}) EXPECT_NE(S::plan_for(sms, m, 32 * g, {}, draws).second_pass, P::LastWarp) << "M " << m << " S " << draws;
  }
  const auto asked = S::plan_for(sms, 1, 32 * g, {.layout = L::Segmented, .second_pass = P::LastWarp});
  EXPECT_EQ(asked.second_pass, P::LastWarp);
  EXPECT_EQ(asked.warp_walk, 1);
  EXPECT_EQ(asked.describe(), "segmented, 1 warps a block, warps walk draws");
  EXPECT_EQ(S::plan_for(sms, 1, 32 * g, {.layout = L::Segmented, .second_pass = P::LastWarp}, 5).warp_walk, 0);
  EXPECT_THROW(S::plan_for(sms, 1, 32 * g + 1, {.layout = L::Segmented, .second_pass = P::LastWarp}), std::invalid_argument);
}

// The resident pass, asked: a block a segment of 4 warps where each block
// has a multiprocessor of its own, else 1 (unless asked), no walk or
// blocks a row to choose; its limits (512 segments, 64 draws, 1 or 4 warps
// a block) refused past them.
TEST(SumTreePlanRule, TheResidentPassTakesUpTo4WarpsABlock) {
  using S = gpu::SumTreePlanner<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  const auto asked = S::plan_for(sms, 1, 32 * g, {.layout = L::Segmented, .second_pass = P::ResidentPass}, 64);
  EXPECT_EQ(asked.layout, L::Segmented);
  EXPECT_EQ(asked.second_pass, P::ResidentPass);
  EXPECT_EQ(asked.warps_per_block, 4);  // (32 blocks)
  EXPECT_EQ(asked.row_blocks, 0);
  EXPECT_EQ(asked.describe(), "segmented, 4 warps a block, resident: each draws what lands in its segment");
  EXPECT_EQ(S::plan_for(sms, 4, 32 * g, {.layout = L::Segmented, .second_pass = P::ResidentPass}).warps_per_block, 4);   // (128 blocks)
  EXPECT_EQ(S::plan_for(sms, 5, 32 * g, {.layout = L::Segmented, .second_pass = P::ResidentPass}).warps_per_block, 1);   // (160)
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g, {.layout = L::Segmented, .second_pass = P::ResidentPass}).warps_per_block, 1);  // (512)
  EXPECT_EQ(S::plan_for(sms, 64, 32 * g, {.layout = L::Segmented, .second_pass = P::ResidentPass}).warps_per_block, 1);  // (2,048: as many as the device holds)
  EXPECT_EQ(S::plan_for(sms, 1, 32 * g, {.layout = L::Segmented, .warps_per_block = 1, .second_pass = P::ResidentPass}).warps_per_block, 1);   // (asked)
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g, {.layout = L::Segmented, .warps_per_block = 4, .second_pass = P::ResidentPass}).warps_per_block, 4);
  EXPECT_THROW(S::plan_for(sms, 1, 32 * g, {.layout = L::Segmented, .warps_per_block = 2, .second_pass = P::ResidentPass}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 32 * g, {.layout = L::Segmented, .warps_per_block = 8, .second_pass = P::ResidentPass}), std::invalid_argument);
  EXPECT_EQ(S::plan_for(sms, 1, 512 * g, {.layout = L::Segmented, .second_pass = P::ResidentPass}).second_pass, P::ResidentPass);
  EXPECT_THROW(S::plan_for(sms, 1, 512 * g + 1, {.layout = L::Segmented, .second_pass = P::ResidentPass}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, g, {.layout = L::Segmented, .second_pass = P::ResidentPass}, 65), std::invalid_argument);
  // Chosen: up to 512 segments, 4 draws a segment, and a grid of at most 4
  // warps a multiprocessor with one draw or one row, one with S draws of
  // several rows.
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g).second_pass, P::ResidentPass);       // (512 blocks of a warp)
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g).warps_per_block, 1);
  EXPECT_EQ(S::plan_for(sms, 64, 8 * g, {}, 4).layout, L::BlockPerRow);  // (512 warps, S = 4)
  EXPECT_EQ(S::plan_for(sms, 16, 8 * g, {}, 4).second_pass, P::ResidentPass);  // (128)
  EXPECT_EQ(S::plan_for(sms, 1, 8 * g, {}, 32).second_pass, P::ResidentPass);
  EXPECT_EQ(S::plan_for(sms, 1, 256 * g, {}, 8).second_pass, P::ResidentPass);  // (one row: 256 blocks)
  EXPECT_EQ(S::plan_for(sms, 1, 512 * g, {}, 64).second_pass, P::ResidentPass);
  EXPECT_NE(S::plan_for(sms, 2, 128 * g, {}, 8).second_pass, P::ResidentPass);  // (two rows, 256 blocks)
  EXPECT_EQ(S::plan_for(sms, 2, 66 * g, {}, 8).second_pass, P::ResidentPass);   // (132)
  EXPECT_EQ(S::plan_for(sms, 1, 8 * g, {}, 33).layout, L::BlockPerRow);  // (past 4 draws a segment)
  EXPECT_EQ(S::plan_for(sms, 1, 64 * g, {}, 64).second_pass, P::ResidentPass);
  EXPECT_EQ(S::plan_for(sms, 1, 65 * g).second_pass, P::ResidentPass);   // (up to 512 segments)
  EXPECT_EQ(S::plan_for(sms, 1, 512 * g).second_pass, P::ResidentPass);
  EXPECT_EQ(S::plan_for(sms, 1, 512 * g).warps_per_block, 1);  // (512 blocks)
  EXPECT_NE(S::plan_for(sms, 1, 512 * g + 1).second_pass, P::ResidentPass);
  EXPECT_EQ(S::plan_for(sms, 2, 257 * g).second_pass, P::ResidentPass);    // (514 warps)
  EXPECT_NE(S::plan_for(sms, 3, 257 * g).second_pass, P::ResidentPass);    // (771)
  EXPECT_EQ(S::plan_for(sms, 1, 1024).layout, L::LanesPerRow);  // (rows lanes a row hold: theirs)
  EXPECT_NE(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .warps_per_block = 2}).second_pass, P::ResidentPass);  // (another knob asked)
}

// A row's cluster, asked: 8 warps a block unless asked, at most 8 blocks a
// row (64 segments), its draws a lane a draw, all in the row's cluster.
TEST(SumTreePlanRule, ARowsClusterIsAtMost8Blocks) {
  using S = gpu::SumTreePlanner<double>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<double>);
  const auto asked = S::plan_for(sms, 256, 64 * g, {.layout = L::Segmented, .second_pass = P::ClusterPass}, 64);
  EXPECT_EQ(asked.second_pass, P::ClusterPass);
  EXPECT_EQ(asked.warps_per_block, 8);
  EXPECT_EQ(asked.warp_walk, 0);
  EXPECT_EQ(asked.row_blocks, 0);
  EXPECT_EQ(asked.describe(), "segmented, 8 warps a block, a row's blocks a cluster");
  EXPECT_EQ(S::plan_for(sms, 1, 3 * g, {.layout = L::Segmented, .second_pass = P::ClusterPass}).warps_per_block, 8);
  EXPECT_EQ(S::plan_for(sms, 1, 32 * g, {.layout = L::Segmented, .warps_per_block = 4, .second_pass = P::ClusterPass}).warps_per_block, 4);
  EXPECT_THROW(S::plan_for(sms, 1, 32 * g + 1, {.layout = L::Segmented, .warps_per_block = 4, .second_pass = P::ClusterPass}), std::invalid_argument);  // (9 blocks)
  EXPECT_THROW(S::plan_for(sms, 1, 64 * g + 1, {.layout = L::Segmented, .second_pass = P::ClusterPass}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .second_pass = P::ClusterPass, .warp_walk = 1}), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .second_pass = P::ClusterPass, .row_blocks = 2}, 8), std::invalid_argument);
  // The corners of the registry's cluster rows (SumTreeEntry.
  // ClusterRows...): 5-8 rows of 35-64 segments, 16-64 draws, both
  // precisions.
  for (const int m : {5, 8}) {
    for (const std::int64_t k : {34 * g + 1, 64 * g}) {
      for (const int draws : {16, 64}) {
        EXPECT_EQ(S::plan_for(sms, m, k, {}, draws).second_pass, P::ClusterPass) << "fp64 M " << m << " K " << k << " S " << draws;
        EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, m, 2 * k, {}, draws).second_pass, P::ClusterPass) << "fp32 M " << m << " K " << 2 * k;
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
  using S = gpu::SumTreePlanner<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  const gpu::SumTreePlan two{.layout = L::Segmented, .warps_per_block = 2};  // (a knob the resident pass has not: not resident)
  EXPECT_EQ(S::plan_for(sms, 1, 65 * g).second_pass, P::ResidentPass);  // (few warps: resident, up to 512 segments)
  EXPECT_EQ(S::plan_for(sms, 1, 65 * g, two).second_pass, P::WarpRowPass);
  EXPECT_EQ(S::plan_for(sms, 8, 65 * g, two).second_pass, P::WarpRowPass);  // (520 warps)
  EXPECT_EQ(S::plan_for(sms, 9, 65 * g).second_pass, P::RowPass);  // (585)
  EXPECT_EQ(S::plan_for(sms, 1, 32 * g).second_pass, P::ResidentPass);
  EXPECT_EQ(S::plan_for(sms, 16, 32 * g).second_pass, P::ResidentPass);  // (512 warps)
  EXPECT_EQ(S::plan_for(sms, 17, 32 * g).second_pass, P::RowPass);  // (544)
  EXPECT_EQ(S::plan_for(sms, 1, 256 * g, two).second_pass, P::WarpRowPass);
  EXPECT_EQ(S::plan_for(sms, 2, 256 * g + 1, two).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(sms, 3 * sms + 1, 65 * g).second_pass, P::WarpRowPass);  // (rows of 9-64 segments here go a row's cluster)
  EXPECT_EQ(S::plan_for(sms, 3 * sms, 65 * g).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(sms, 1024, 256 * g).second_pass, P::WarpRowPass);
  EXPECT_EQ(S::plan_for(sms, 1024, 256 * g + 1).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(sms, 17, 32 * g, {}, 2).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(sms, 1024, 65 * g, {}, 2).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(sms, 1024, 40 * g, {.layout = L::Segmented, .second_pass = P::RowPass}).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(sms, 1, 65 * g, two).describe(), "segmented, 2 warps a block, then a warp a row, warps walk draws");
  const auto asked = S::plan_for(sms, 2, 40 * g, {.layout = L::Segmented, .second_pass = P::WarpRowPass}, 4);
  EXPECT_EQ(asked.second_pass, P::WarpRowPass);
  EXPECT_EQ(asked.warp_walk, 1);
  EXPECT_EQ(asked.row_blocks, 0);
  EXPECT_EQ(asked.describe(), "segmented, 1 warps a block, then a warp a row, warps walk draws");
  const std::int64_t g64 = static_cast<std::int64_t>(tree::kSegment<double>);  // (2,048)
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1, 65 * g64, two).second_pass, P::WarpRowPass);
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1, 65 * g64).second_pass, P::ResidentPass);
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1, 64 * g64).second_pass, P::ResidentPass);
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1024, 256 * g64).second_pass, P::WarpRowPass);
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1024, 256 * g64 + 1).second_pass, P::RowPass);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .second_pass = P::WarpRowPass}, 5), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * g, {.layout = L::Segmented, .second_pass = static_cast<P>(6)}), std::invalid_argument);
}

// Fast memory (no device: runs in CI): on a device whose memory feeds each
// multiprocessor 32 GB/s or more (the H200's 36.5, not the H100's 25.4),
// one draw of rows of 17-64 segments goes the second kernel below 8 rows a
// multiprocessor, not a row's cluster, and the second kernel goes a warp a
// row past 2 rows a multiprocessor, not 3. Rows of 9-16 segments, S draws
// and 8 rows a multiprocessor or more keep the cluster; the H100's rule
// (plan_for(sms, ...)) is unchanged.
TEST(SumTreePlanRule, FastMemoryTakesTheSecondKernelOverARowsCluster) {
  using S = gpu::SumTreePlanner<float>;
  using D = gpu::SumTreePlanner<double>;
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
  EXPECT_EQ(S::plan_for(h200, 264, 17 * g).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(h200, 265, 17 * g).second_pass, P::WarpRowPass);
  EXPECT_EQ(S::plan_for(h200, 8 * 132 - 1, 17 * g).second_pass, P::WarpRowPass);
  EXPECT_EQ(S::plan_for(h200, 8 * 132, 17 * g).second_pass, P::ClusterPass);
  EXPECT_EQ(S::plan_for(h100, 249, 17 * g).second_pass, P::ClusterPass);
  EXPECT_EQ(S::plan_for(h100, 248, 17 * g).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(h100, 1055, 17 * g).second_pass, P::ClusterPass);
  // 64 segments the same; 16 keep the cluster (fp32 (320, 65,536)).
  EXPECT_EQ(S::plan_for(h200, 132, 64 * g).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(h200, 1055, 64 * g).second_pass, P::WarpRowPass);
  EXPECT_EQ(S::plan_for(h200, 320, 16 * g).second_pass, P::ClusterPass);
  EXPECT_EQ(S::plan_for(h100, 320, 16 * g).second_pass, P::ClusterPass);
  // S draws keep the cluster (fp64 (256, 131,072, S = 64); S = 16).
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 64).describe(), cluster);
  EXPECT_EQ(S::plan_for(h200, 33, 32 * g, {}, 16).second_pass, P::ClusterPass);
  // Past 64 segments (the second kernel on both): a warp a row past 2 rows
  // a multiprocessor on fast memory, past 3 on the H100.
  EXPECT_EQ(S::plan_for(h200, 264, 65 * g).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(h200, 265, 65 * g).second_pass, P::WarpRowPass);
  EXPECT_EQ(S::plan_for(h100, 265, 65 * g).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(h100, 397, 65 * g).second_pass, P::WarpRowPass);
  // Asked, the cluster still goes (the rule only chooses).
  EXPECT_EQ(S::plan_for(h200, 132, 64 * g, {.layout = gpu::SumTreePlan::Layout::Segmented, .second_pass = P::ClusterPass}).second_pass, P::ClusterPass);
}

// On fast memory, 2-16 draws of rows of 33-64 segments, at most 4 rows a
// multiprocessor, of a matrix past L2 (read once) go the second kernel, not
// a row's cluster; 64 draws, more rows, rows a block a row holds, matrices
// L2 holds and the H100 keep it (no device: runs in CI).
TEST(SumTreePlanRule, FastMemoryReadingOnceTakesTheSecondKernelForFewDraws) {
  using S = gpu::SumTreePlanner<float>;
  using D = gpu::SumTreePlanner<double>;
  const gpu::PlanDevice h200{132, 4814.0, std::size_t{60} << 20}, h100{132, 3352.0, std::size_t{50} << 20};
  const gpu::PlanDevice h200_no_l2{132, 4814.0};
  const std::string cluster = "segmented, 8 warps a block, a row's blocks a cluster";
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 16).describe(), "segmented, 8 warps a block, then a block a row, warps walk draws, read once");
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 2).second_pass, P::RowPass);
  EXPECT_EQ(D::plan_for(h100, 256, 131072, {}, 16).describe(), cluster);
  EXPECT_EQ(D::plan_for(h200_no_l2, 256, 131072, {}, 16).describe(), cluster);
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 17).describe(), cluster);   // (64: 1.08x slower)
  EXPECT_EQ(D::plan_for(h200, 256, 131072, {}, 64).describe(), cluster);
  const std::int64_t g = static_cast<std::int64_t>(tree::kSegment<float>);
  EXPECT_EQ(S::plan_for(h200, 4 * 132, 64 * g, {}, 8).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(h200, 4 * 132 + 1, 64 * g, {}, 8).second_pass, P::ClusterPass);  // (1,024 rows: 1.00-1.04x slower)
  EXPECT_EQ(S::plan_for(h200, 256, 33 * g, {}, 8).second_pass, P::RowPass);
  EXPECT_EQ(S::plan_for(h200, 256, 32 * g, {}, 2).second_pass, P::ClusterPass);  // (a block a row holds 32)
  EXPECT_EQ(S::plan_for(h200, 32, 64 * g, {}, 16).second_pass, P::ClusterPass);   // 32 MiB: L2 holds it
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
      EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, m, 4, {}, draws).layout, draws <= 8 ? L::LanesPerRow : L::BlockPerRow);
      EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, m, 64, {}, draws).layout, draws <= 8 ? L::ThreadPerRow : L::LanesPerRow);
      // (8 vectors a lane, 48 shuffles a draw: one round of 32 draws)
      EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, m, 1024, {}, draws).layout, draws <= 32 ? L::LanesPerRow : L::BlockPerRow);
      // (past lanes a row: one row with up to 4 draws a segment goes resident)
      const L past = m == 1 && draws <= 4 ? L::Segmented : L::BlockPerRow;
      EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, m, 1025, {}, draws).layout, past);
      EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, m, 4096, {}, draws).layout, past);
      EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, m, 512, {}, draws).layout, L::LanesPerRow);
      EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, m, 513, {}, draws).layout, past);
    }
  }
  // The rounds: a row of 1, 8 and 32 lanes (fp32 K = 4, 32, 512), 8 G
  // draws and one more; one round where a draw shuffles more than 32
  // values (fp32 K = 1,024: 8 vectors a lane, 48).
  for (const auto& [k, lanes] : {std::pair<std::int64_t, int>{4, 1}, {32, 8}, {512, 32}}) {
    EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1000, k, {}, 8 * lanes).layout, L::LanesPerRow) << k;
    EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1000, k, {}, 8 * lanes + 1).layout, L::BlockPerRow) << k;
  }
  for (const int m : {256, 1000, 16384}) {
    EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, m, 1024, {}, 32).layout, L::LanesPerRow) << m;
    EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, m, 1024, {}, 33).layout, L::BlockPerRow) << m;
    EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, m, 769, {}, 64).layout, L::BlockPerRow) << m;
    EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, m, 512, {}, 256).layout, L::LanesPerRow) << m;  // (fp64: 32 shuffles)
  }
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1000, 2, {}, 9).layout, L::BlockPerRow);
  // Up to 32 rounds where a lane holds 2 or more vectors, a draw shuffles
  // at most 32 values (fp32 NV <= 4, fp64 NV <= 8) and the rows fill 4
  // warps a multiprocessor (fp32 K = 256: 4 rows a warp, 528 warps from
  // M = 2,109); up to 64 rounds of rows on 16 or 32 lanes where a warp's
  // one step of rows gives 12 warps a multiprocessor (fp32 K = 64: 2 rows
  // a warp, 1,584 warps from M = 3,167).
  using F = gpu::SumTreePlanner<float>;
  using D = gpu::SumTreePlanner<double>;
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
  EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1 << 20, 128).layout, L::ThreadPerRow);  // (one draw, 32 vectors)
  EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1 << 20, 64).layout, L::ThreadPerRow);  // (16 vectors)
  EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1 << 20, 32).layout, L::ThreadPerRow);  // (8)
  EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1 << 20, 9).layout, L::ThreadPerRow);   // (3)
  EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1 << 20, 8).layout, L::LanesPerRow);    // (2)
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1 << 20, 32).layout, L::ThreadPerRow);  // (fp64: 16 vectors)
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1 << 20, 16).layout, L::ThreadPerRow);  // (8)
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1 << 20, 4).layout, L::LanesPerRow);    // (2)
  EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1 << 20, 252).layout, L::ThreadPerRow);  // (63 vectors: two a lane)
  EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1 << 20, 256).layout, L::LanesPerRow);   // (64: every lane full)
  EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1 << 20, 257).layout, L::LanesPerRow);   // (65)
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1 << 20, 128).layout, L::ThreadPerRow);  // (fp64: 64)
  EXPECT_EQ(gpu::SumTreePlanner<double>::plan_for(sms, 1 << 20, 129).layout, L::LanesPerRow);   // (65)
  EXPECT_EQ(gpu::SumTreePlanner<float>::plan_for(sms, 1 << 20, 1024, {.layout = L::WarpPerRow}, 8).describe(), "warp-per-row");
}

// S draws of short rows (no device: runs in CI): a thread a row for up to
// 4 draws of rows of 2-63 vectors (fp32; 2-64 fp64) and up to 8 of 16-32
// vectors, rows of 33-64 vectors only from 1,024 rows a multiprocessor;
// up to 32 draws of rows of 1-2 vectors lanes a row, not a block a row,
// where the lanes' warps are at least the multiprocessors.
TEST(SumTreePlanRule, FewDrawsOfShortRowsGoAThreadARow) {
  using L = gpu::SumTreePlan::Layout;
  using F = gpu::SumTreePlanner<float>;
  using D = gpu::SumTreePlanner<double>;
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
  EXPECT_EQ(F::plan_for(sms, 1 << 22, 64, {.layout = L::LanesPerRow}, 4).layout, L::LanesPerRow);
}

// The second kernel's blocks a row (no device: runs in CI): walked and M
// below the multiprocessors, one for every 32 draws, up to one for every 8
// while M x blocks is at most the multiprocessors; past two walked blocks a
// multiprocessor, a lane a draw and one for every 256; one with the walk off
// or a row for every multiprocessor; as asked, less any block that
// would have no draws; refused past S, below 0, or for the last warp; and
// dropped by the layouts without a second kernel.
TEST(SumTreePlanRule, SecondKernelSharesARowsDrawsOverBlocks) {
  using S = gpu::SumTreePlanner<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  // (513 segments: past the resident pass's 512, so no draws go resident)
  const std::int64_t k = 513 * static_cast<std::int64_t>(tree::kSegment<float>);
  EXPECT_EQ(S::plan_for(sms, 1, k).row_blocks, 1);  // (one draw: a block a row, past a warp a row's 256 segments)
  EXPECT_EQ(S::plan_for(sms, 1, k, {.layout = L::Segmented, .second_pass = P::RowPass}).row_blocks, 1);
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
  EXPECT_EQ(S::plan_for(sms, 1, k, {.layout = L::Segmented, .second_pass = P::RowPass, .warp_walk = 1}, 65536).row_blocks, 2048);  // (asked to walk: walked)
  EXPECT_EQ(S::plan_for(sms, 33, k, {}, 64).row_blocks, 4);
  EXPECT_EQ(S::plan_for(sms, 131, k, {}, 64).row_blocks, 2);
  EXPECT_EQ(S::plan_for(sms, 132, k, {}, 64).row_blocks, 1);  // (a row for every multiprocessor: one)
  EXPECT_EQ(S::plan_for(sms, 256, k, {}, 64).row_blocks, 1);
  EXPECT_EQ(S::plan_for(sms, 256, k, {}, 16).row_blocks, 1);
  EXPECT_EQ(S::plan_for(sms, 1, k, {.layout = L::Segmented, .second_pass = P::RowPass, .warp_walk = 0}, 64).row_blocks, 1);
  EXPECT_EQ(S::plan_for(sms, 1, k, {.layout = L::Segmented, .second_pass = P::RowPass, .warp_walk = 1, .row_blocks = 3}, 64).row_blocks, 3);
  EXPECT_EQ(S::plan_for(sms, 1, k, {.layout = L::Segmented, .second_pass = P::RowPass, .warp_walk = 1, .row_blocks = 7}, 9).row_blocks, 5);  // (2 draws each: 5 blocks)
  EXPECT_EQ(S::plan_for(sms, 1, k, {.layout = L::Segmented, .second_pass = P::RowPass, .warp_walk = 1, .row_blocks = 9}, 9).row_blocks, 9);
  EXPECT_EQ(S::plan_for(sms, 1, 4, {.layout = L::LanesPerRow, .row_blocks = 2}, 9).row_blocks, 0);
  EXPECT_NE(S::plan_for(sms, 1, k, {}, 64).describe().find("then 8 blocks a row"), std::string::npos);
  EXPECT_THROW(S::plan_for(sms, 1, k, {.layout = L::Segmented, .second_pass = P::RowPass, .warp_walk = 1, .row_blocks = 10}, 9), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, k, {.layout = L::Segmented, .second_pass = P::RowPass, .warp_walk = 1, .row_blocks = -1}, 9), std::invalid_argument);
  EXPECT_THROW(S::plan_for(sms, 1, 4 * tree::kSegment<float>, {.layout = L::Segmented, .second_pass = P::LastWarp, .row_blocks = 2}, 9), std::invalid_argument);
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
  using S = gpu::SumTreePlanner<float>;
  using L = gpu::SumTreePlan::Layout;
  const int sms = 132;
  const auto plan = [&](int m, std::int64_t k, int draws, gpu::SumTreePlan ask = {}) { return S::plan_for(sms, m, k, ask, draws); };
  EXPECT_EQ(plan(1, 64, 65536).row_blocks, 2048);       // (S / 32: a round of 32 draws a block)
  EXPECT_EQ(plan(1, 64, 1000).row_blocks, 32);          // (32 draws each, the last 8)
  EXPECT_EQ(plan(256, 64, 4096).row_blocks, 8);         // (16 x 132 warps over 256 rows)
  EXPECT_EQ(plan(32, 4096, 8192).row_blocks, 66);
  EXPECT_EQ(plan(4096, 1024, 512).row_blocks, 2);       // (past a vector a lane, 16 rounds: two blocks)
  EXPECT_EQ(plan(4096, 64, 1024, {.layout = L::BlockPerRow}).row_blocks, 1);  // (a vector a lane: the grid is full already)
  EXPECT_EQ(plan(8192, 4096, 32).row_blocks, 1);        // (one round)
  EXPECT_EQ(plan(1, 8 * 4096, 65536).row_blocks, 256);  // (8 segments: 8 warps, 256 draws a round)
  EXPECT_EQ(plan(4224, 64, 1000, {.layout = L::BlockPerRow}).row_blocks, 1);  // (32 warps a multiprocessor already)
  EXPECT_EQ(plan(1024, 8 * 4096, 16).row_blocks, 1);
  EXPECT_EQ(plan(600, 4096, 1).row_blocks, 1);
  EXPECT_EQ(plan(1, 64, 65536).describe(), "block-per-row, 2048 blocks a row");  // (not kept: each block would copy the row)
  EXPECT_EQ(plan(1, 32 * 4096, 65536).describe(), "block-per-row, 64 blocks a row");  // (32 segments: past a round a block)
  EXPECT_EQ(plan(1, 32 * 4096, 64).layout, L::Segmented);
  EXPECT_EQ(plan(1, 64, 64, {.layout = L::BlockPerRow, .row_blocks = 3}).row_blocks, 3);  // (22, 22, 20 draws)
  EXPECT_EQ(plan(1, 64, 9, {.layout = L::BlockPerRow, .row_blocks = 7}).row_blocks, 5);   // (2 draws each: 5 blocks)
  EXPECT_THROW(plan(1, 64, 9, {.layout = L::BlockPerRow, .row_blocks = 10}), std::invalid_argument);
  for (const int m : {1, 100, 1000, 5000}) {  // (rows kept only where asked: a draw reads one batch from its lane's marks)
    for (const int draws : {1, 2, 32, 33}) {
      if (m * 1 <= 4 * sms && draws <= 4) continue;  // (resident)
      EXPECT_EQ(plan(m, 4096, draws).keep_rows, 0) << "M " << m << " S " << draws;
    }
  }
  EXPECT_EQ(plan(100, 4096, 2, {.layout = L::BlockPerRow, .keep_rows = 1}).keep_rows, 1);
  EXPECT_EQ(plan(100, 4096, 2, {.layout = L::BlockPerRow, .keep_rows = 1}).describe(), "block-per-row, rows in shared memory");
}

}  // namespace
