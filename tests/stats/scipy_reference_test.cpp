// warpsim's p-values against SciPy's (tests/data/scipy_reference.json, made by
// stats/reference/make_scipy_reference.py), to 1e-9 relative.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include <boost/math/distributions/kolmogorov_smirnov.hpp>

#include "stats/stats.hpp"

using namespace warpsim::stats;
using nlohmann::json;

namespace {

const json& reference() {
  static const json j = [] {
    std::ifstream in(std::string(WARPSIM_TEST_DATA) + "/scipy_reference.json");
    return json::parse(in);
  }();
  return j;
}

std::vector<double> vec(const json& j) { return j.get<std::vector<double>>(); }

void expect_close(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::abs(want) + 1e-300) << what << ": warpsim " << got << ", SciPy " << want;
}

}  // namespace

TEST(ScipyReference, Generated) {
  EXPECT_EQ(reference()["generator"], "stats/reference/make_scipy_reference.py");
  EXPECT_GE(reference()["cases"].size(), 8u);
}

TEST(ScipyReference, ChiSquareAndGTest) {
  for (const auto& c : reference()["cases"]["chi_square"]) {
    const auto r = chi_square_test(vec(c["observed"]), vec(c["probabilities"]), {.method = PValueMethod::Asymptotic});
    for (const auto& note : r.notes) EXPECT_EQ(note.find("pooled"), std::string::npos) << "no pooling in these cases: " << note;
    expect_close(r.statistic, c["statistic"], "chi-square statistic");
    expect_close(r.p_value, c["p_value"], "chi-square p-value");
  }
  for (const auto& c : reference()["cases"]["g_test"]) {
    const auto r = g_test(vec(c["observed"]), vec(c["probabilities"]), {.method = PValueMethod::Asymptotic});
    expect_close(r.statistic, c["statistic"], "G statistic");
    expect_close(r.p_value, c["p_value"], "G p-value");
  }
}

TEST(ScipyReference, Binomial) {
  for (const auto& c : reference()["cases"]["binomial"]) {
    expect_close(binomial_two_sided_p_value(c["k"], c["n"], c["p"]), c["p_value"],
                 "binomtest(" + c["k"].dump() + ", " + c["n"].dump() + ", " + c["p"].dump() + ")");
  }
}

TEST(ScipyReference, TwoSampleKsExact) {
  for (const auto& c : reference()["cases"]["ks_two_sample_exact"]) {
    const auto r = ks_two_sample_test(vec(c["counts1"]), vec(c["counts2"]));
    expect_close(r.statistic, c["statistic"], "ks_2samp statistic");
    expect_close(r.p_value, c["p_value"], "ks_2samp exact p-value");
  }
}

TEST(ScipyReference, KolmogorovLimit) {
  // The two-sample test's asymptotic fallback uses Kolmogorov's limit (Boost).
  for (const auto& c : reference()["cases"]["kolmogorov_limit"]) {
    const double n = c["n"], d = c["d"];
    expect_close(boost::math::cdf(boost::math::complement(boost::math::kolmogorov_smirnov_distribution<double>(n), d)),
                 c["p_value"], "kolmogorov(sqrt(n) d)");
  }
}

TEST(ScipyReference, Homogeneity) {
  for (const auto& c : reference()["cases"]["homogeneity"]) {
    const auto r = chi_square_homogeneity(vec(c["counts1"]), vec(c["counts2"]));
    EXPECT_EQ(*r.df, c["df"].get<double>());
    expect_close(r.statistic, c["statistic"], "chi2_contingency statistic");
    expect_close(r.p_value, c["p_value"], "chi2_contingency p-value");
  }
}

TEST(ScipyReference, CombinationAndAdjustment) {
  for (const auto& c : reference()["cases"]["combination"]) {
    expect_close(fisher_combination(vec(c["p_values"])).p_value, c["fisher"], "Fisher");
    expect_close(stouffer_combination(vec(c["p_values"])).p_value, c["stouffer"], "Stouffer");
  }
  for (const auto& c : reference()["cases"]["adjust"]) {
    const auto bh = benjamini_hochberg_adjust(vec(c["p_values"]));
    const auto want_bh = vec(c["bh"]);
    for (std::size_t i = 0; i < bh.size(); ++i) expect_close(bh[i], want_bh[i], "BH " + std::to_string(i));
    ASSERT_TRUE(c.contains("holm"));
    const auto holm = holm_adjust(vec(c["p_values"]));
    const auto want_holm = vec(c["holm"]);
    for (std::size_t i = 0; i < holm.size(); ++i) expect_close(holm[i], want_holm[i], "Holm " + std::to_string(i));
  }
}
