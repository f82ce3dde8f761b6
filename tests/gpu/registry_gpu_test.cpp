// Every registered algorithm's GPU entry: equal to its oracle entry bit for
// bit, and passing every property of properties/ (the oracle's side is
// tests/property/registry_properties.cpp), on every weight family and on the
// subnormal totals of errata E9 in particular.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "properties/properties.hpp"
#include "tests/alias_test_weights.hpp"

using namespace warpsim;

namespace {

// The rows with a kernel that can do what a suite checks: each suite runs
// on the samplers it applies to, and skips only where no device is present.
template <class Can>
std::vector<std::string> with_kernels(Can can) {
  std::vector<std::string> n;
  for (const auto& a : properties::registry())
    if (a.gpu && can(a)) n.push_back(a.name);
  return n;
}
std::vector<std::string> with_kernels() {
  return with_kernels([](const properties::Algorithm&) { return true; });
}

class GpuEntry : public testing::TestWithParam<std::string> {
 protected:
  const properties::Algorithm& algorithm() const { return properties::find_algorithm(GetParam()); }
  void SetUp() override {
    if (const auto why = algorithm().gpu->unavailable(); !why.empty()) GTEST_SKIP() << why;
  }
};
class GpuRowDrawsEntry : public GpuEntry {};  // S draws a row
class GpuTableEntry : public GpuEntry {};     // many draws from one distribution's structure
class GpuBuilderEntry : public GpuEntry {};   // alias tables built

// Sizes past shared memory (K up to 1100) and several warps.
const properties::CheckOptions kOptions{.tests = 60, .max_rows = 130, .max_cols = 1100, .seed = 20261122};

TEST_P(GpuEntry, EqualsItsOracleBitForBit) {
  const auto r = properties::check_equal(*algorithm().gpu, algorithm().oracle, kOptions);
  EXPECT_TRUE(r.ok) << r.text;
}

TEST_P(GpuEntry, EqualsItsOracleWhereTheTotalIsSubnormal) {
  const auto r = properties::check_equal(*algorithm().gpu, algorithm().oracle, kOptions, properties::WeightFamily::SubnormalTotal);
  EXPECT_TRUE(r.ok) << r.text;
}

TEST_P(GpuEntry, PassesEveryProperty) {
  const auto r = properties::check_sampler(*algorithm().gpu, kOptions);
  EXPECT_TRUE(r.ok) << r.text;
}

TEST_P(GpuEntry, NeverDrawsAZeroWeightWhenTheTotalIsSubnormal) {
  const auto r = properties::check_sampler(*algorithm().gpu, kOptions, properties::WeightFamily::SubnormalTotal);
  EXPECT_TRUE(r.ok) << r.text;
}

TEST_P(GpuEntry, HitsEveryBoundaryTheScalarDefinitionHits) {
  const auto r = properties::check_sampler(*algorithm().gpu, kOptions, properties::WeightFamily::NearTies);
  EXPECT_TRUE(r.ok) << r.text;
}

// S draws a row (the sum tree): every property on the kernel's draws (its
// equality with the oracle's, S from 1 to 40, is EqualsItsOracleBitForBit's).
TEST_P(GpuRowDrawsEntry, PassEveryProperty) {
  const auto& a = algorithm();
  auto o = kOptions;
  o.max_draws = 100;  // past a second-kernel block's draws and G lanes' rounds
  const auto r = properties::check_row_draws(*a.gpu, o);
  EXPECT_TRUE(r.ok) << r.text;
  const std::vector<double> law{0.5, 0.0, 3.0, 1.25, 0.0, 2.0, 0.25, 9.0, 0.0, 1.0};
  stats::TestResult t;
  const auto v = properties::in_law_of_row_draws<double>(*a.gpu, law, 20261126, {.draws = 200000}, &t);
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_LT(*t.detectable.total_variation, 0.01) << "200,000 draws rule out a total-variation bias of 0.01 with power 0.9";
}

// The sum tree on rows longer than a segment (4,096 fp32, 2,048 fp64), up
// to 48 segments, 1-8 rows: the layouts the plan gives them -- mostly the
// resident pass (one kernel, each segment's warp finishing the draws that
// land in it), and past 4 draws a segment a block a row, or a warp a
// segment then a block a row, its draws spread over blocks (from the
// lanes' marks where a row has many) -- equal to the oracle's, one draw
// and S draws a row, and every property.
class SumTreeEntry : public testing::Test {
 protected:
  const properties::Algorithm& a = properties::find_algorithm("sum-tree");
  void SetUp() override {
    ASSERT_TRUE(a.gpu.has_value()) << "the sum tree has a kernel wherever warpsim is built with CUDA";
    if (const auto why = a.gpu->unavailable(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(SumTreeEntry, LongRowsEqualTheOracleAndPassEveryProperty) {
  const properties::CheckOptions o{.tests = 6, .max_rows = 8, .max_cols = 48 * 4096, .min_cols = 4097, .seed = 20261126, .max_draws = 70};
  auto r = properties::check_equal(*a.gpu, a.oracle, o);
  EXPECT_TRUE(r.ok) << r.text;
  r = properties::check_sampler(*a.gpu, o);
  EXPECT_TRUE(r.ok) << r.text;
  r = properties::check_row_draws(*a.gpu, o);
  EXPECT_TRUE(r.ok) << r.text;
}

// Rows plan() gives a row's cluster (SecondPass::ClusterPass): 5-8 rows of 35-64
// segments with 16-64 draws (too many warps for the resident pass, few
// enough draws for the cluster; SumTreePlanRule.ARowsClusterIsAtMost8Blocks
// checks the box's corners), each precision with its own segment.
TEST_F(SumTreeEntry, ClusterRowsEqualTheOracleAndPassEveryProperty) {
  for (const int segment : {4096, 2048}) {  // (fp32, fp64)
    const bool fp32 = segment == 4096;
    const properties::CheckOptions o{.tests = 4, .max_rows = 8, .max_cols = 64 * segment, .min_cols = 34 * segment + 1, .min_rows = 5,
                                     .seed = 20261127, .max_draws = 64, .min_draws = 16, .fp32 = fp32, .fp64 = !fp32};
    auto r = properties::check_equal(*a.gpu, a.oracle, o);
    EXPECT_TRUE(r.ok) << r.text;
    r = properties::check_row_draws(*a.gpu, o);
    EXPECT_TRUE(r.ok) << r.text;
  }
}

// Table samplers: many draws from one large table, from an arbitrary first
// draw, equal to the oracle entry's (the model) draw for draw.
TEST_P(GpuTableEntry, ManyDrawsFromOneTableEqualItsOracle) {
  const auto& a = algorithm();
  for (const auto& w : {test::shuffled_power_law<double>(100000), test::uniform_weights<double>(70001, 3)}) {
    const auto want = a.oracle.many<double>(w, 5, (std::uint64_t{1} << 40) + 17, 4096);
    EXPECT_EQ(a.gpu->many<double>(w, 5, (std::uint64_t{1} << 40) + 17, 4096), want);
    const std::vector<float> wf(w.begin(), w.end());
    EXPECT_EQ(a.gpu->many<float>(wf, 6, 0, 4096), a.oracle.many<float>(wf, 6, 0, 4096));
  }
}

TEST_P(GpuBuilderEntry, TablesImplyTheirWeights) {
  const auto& a = algorithm();
  const auto r = properties::check_table_builder(*a.gpu, kOptions);
  EXPECT_TRUE(r.ok) << r.text;
}

const auto kName = [](const testing::TestParamInfo<std::string>& p) { return properties::identifier(p.param); };
INSTANTIATE_TEST_SUITE_P(Registry, GpuEntry, testing::ValuesIn(with_kernels()), kName);
INSTANTIATE_TEST_SUITE_P(Registry, GpuRowDrawsEntry,
                         testing::ValuesIn(with_kernels([](const properties::Algorithm& a) { return a.gpu->draws_rows(); })), kName);
INSTANTIATE_TEST_SUITE_P(Registry, GpuTableEntry,
                         testing::ValuesIn(with_kernels([](const properties::Algorithm& a) { return a.gpu->draws_many(); })), kName);
INSTANTIATE_TEST_SUITE_P(Registry, GpuBuilderEntry,
                         testing::ValuesIn(with_kernels([](const properties::Algorithm& a) { return a.gpu->builds_tables(); })), kName);

}  // namespace
