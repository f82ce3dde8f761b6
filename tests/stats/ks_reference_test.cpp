// The exact discrete KS p-value (stats/ks_discrete.hpp) against an
// independent computation: tests/data/ks_discrete_reference.json, made by
// stats/reference/make_ks_discrete_reference.py (a multinomial sum in exact
// bounds and 60-digit mpmath, itself checked by brute force on the smallest
// cases).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "stats/ks_discrete.hpp"

using json = nlohmann::json;

TEST(KsDiscreteReference, ExactPValuesMatchAnIndependentComputation) {
  std::ifstream in(std::string(WARPSIM_TEST_DATA) + "/ks_discrete_reference.json");
  ASSERT_TRUE(in) << "tests/data/ks_discrete_reference.json";
  const json ref = json::parse(in);
  EXPECT_EQ(ref["generator"], "stats/reference/make_ks_discrete_reference.py");
  int checked = 0, tiny = 0;
  for (const auto& c : ref["cases"]) {
    const auto w = c["weights"].get<std::vector<double>>();
    double total = 0;
    for (double x : w) total += x;
    std::vector<double> p;
    for (double x : w) p.push_back(x / total);
    const auto n = c["n"].get<std::uint64_t>();
    const double d = c["d"], want = c["p_value"];
    const auto got = warpsim::stats::ks_exact_p_value(p, n, d);
    ASSERT_TRUE(got.has_value()) << "n = " << n << ", d = " << d;
    // 1 - P(accept) in doubles: relative 1e-9, and an absolute 1e-14 where the
    // subtraction leaves few digits (p-values below about 1e-6)
    EXPECT_NEAR(*got, want, 1e-14 + 1e-9 * want) << w.size() << " categories, n = " << n << ", d = " << d;
    ++checked;
    tiny += want < 1e-6;
  }
  EXPECT_GE(checked, 50);
  EXPECT_GE(tiny, 3) << "the tails must be among the cases";
}
