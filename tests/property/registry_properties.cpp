// Every registered algorithm's oracle entry passes every property of
// properties/ (GPU entries: tests/gpu/registry_gpu_test.cpp).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "properties/properties.hpp"

using namespace warpsim;

namespace {

std::vector<std::string> names() {
  std::vector<std::string> n;
  for (const auto& a : properties::registry()) n.push_back(a.name);
  return n;
}

class OracleEntry : public testing::TestWithParam<std::string> {};

TEST_P(OracleEntry, PassesEveryProperty) {
  const auto r = properties::check_sampler(properties::find_algorithm(GetParam()).oracle, {.tests = 40});
  EXPECT_TRUE(r.ok) << r.text;
}

TEST_P(OracleEntry, NeverDrawsAZeroWeightWhenTheTotalIsSubnormal) {
  // errata E9: the seeds' searches fell onto a weight of 0 here.
  const auto r = properties::check_sampler(properties::find_algorithm(GetParam()).oracle, {.tests = 40},
                                           properties::WeightFamily::SubnormalTotal);
  EXPECT_TRUE(r.ok) << r.text;
}

TEST_P(OracleEntry, HitsEveryBoundaryTheScalarDefinitionHits) {
  const auto r = properties::check_sampler(properties::find_algorithm(GetParam()).oracle, {.tests = 40},
                                           properties::WeightFamily::NearTies);
  EXPECT_TRUE(r.ok) << r.text;
}

TEST_P(OracleEntry, DrawsInLaw) {
  const auto& s = properties::find_algorithm(GetParam()).oracle;
  const std::vector<float> law{0.5f, 0.0f, 3.0f, 1.25f, 0.0f, 2.0f, 0.25f, 9.0f, 0.0f, 1.0f};
  stats::TestResult r;
  const auto v = properties::in_law<float>(s, law, 20261122, {.draws = 4000}, &r);
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_LT(*r.detectable.total_variation, 0.06) << "4000 draws rule out a total-variation bias of 0.06 with power 0.9";
}

INSTANTIATE_TEST_SUITE_P(Registry, OracleEntry, testing::ValuesIn(names()),
                         [](const testing::TestParamInfo<std::string>& p) { return properties::identifier(p.param); });

TEST(Registry, ListsEachAlgorithmOnceWithItsListing) {
  std::set<std::string> seen;
  for (const auto& a : properties::registry()) {
    EXPECT_TRUE(seen.insert(a.name).second) << a.name;
    EXPECT_NE(a.listing.find("seed 000"), std::string::npos) << a.name;
    EXPECT_EQ(a.oracle.algorithm, a.name);
    if (a.gpu) {
      EXPECT_EQ(a.gpu->algorithm, a.name);
    }
  }
  EXPECT_GE(seen.size(), 6u);
  EXPECT_THROW(properties::find_algorithm("no-such"), std::invalid_argument);
}

TEST(Properties, SumsExactIsExactlyTheCommonScaleRule) {
  EXPECT_TRUE(properties::sums_exact<float>(std::vector<float>{1, 2, 3}));
  EXPECT_TRUE(properties::sums_exact<float>(std::vector<float>{0.5f, 0.25f, 1e6f}));
  EXPECT_FALSE(properties::sums_exact<float>(std::vector<float>{1, 0x1p-30f}));
  EXPECT_TRUE(properties::sums_exact<float>(std::vector<float>{0x1p-149f, 0x1p-148f}));  // subnormal sums are exact
  EXPECT_FALSE(properties::sums_exact<float>(std::vector<float>{0x1p24f, 1}));
}

TEST(Properties, EachVerdictCanFail) {
  properties::Matrix<float> m{2, 3, {0, 1, 0, 2, 0, 0}};
  EXPECT_FALSE(properties::in_range(m, {1, 3}).ok);
  EXPECT_FALSE(properties::zero_never_drawn(m, {1, 1}).ok);
  EXPECT_FALSE(properties::single_nonzero(m, {1, 2}).ok);
  EXPECT_TRUE(properties::single_nonzero(m, {1, 0}).ok);
  EXPECT_FALSE(properties::scalar_definition(m, 1, {0, 0}).ok) << "row 0's only weight is at 1";
}

}  // namespace
