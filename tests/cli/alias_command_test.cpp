// `warpsim alias build` as a user runs it: every method's JSON table, read
// back, gives every item exactly N u_i (u_i = w_i / 2^e, the unit in the
// JSON), and the methods that must agree do (the sweep, PSA, any splits).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/app.hpp"
#include "cli/inputs.hpp"

namespace {

nlohmann::json build(const std::string& weights, std::vector<std::string> args) {
  warpsim::cli::MemoryInputs in;
  in.files["w"] = weights;
  args.insert(args.begin(), {"alias", "build", "--weights", "w", "--format", "json"});
  std::ostringstream out, err;
  const int rc = warpsim::cli::run_cli(args, out, err, in);
  EXPECT_EQ(rc, 0) << err.str();
  return nlohmann::json::parse(out.str());
}

TEST(AliasCommand, EveryMethodsTableGivesEachItemItsMass) {
  const std::vector<double> w = {1, 3, 0, 4, 2, 2, 7, 0.5};
  std::string text;
  for (double x : w) text += std::to_string(x) + "\n";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--method", "walker"}, {"--method", "vose"}, {"--method", "sweep"}, {"--method", "psa", "--splits", "3"},
           {"--method", "psa+", "--group", "3", "--splits", "2"}}) {
    const auto j = build(text, args);
    const auto n = j.at("items").get<std::size_t>();
    ASSERT_EQ(n, w.size());
    const auto cap = j.at("capacity").get<std::uint64_t>();
    const int e = j.at("unit_exponent").get<int>();
    std::vector<long double> mass(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      const auto keep = j.at("rows")[k].at("keep").get<std::uint64_t>();
      const auto alias = j.at("rows")[k].at("alias").get<std::size_t>();
      ASSERT_LE(keep, cap);
      mass[k] += keep;
      mass[alias] += cap - keep;
    }
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(mass[i], static_cast<long double>(n) * std::ldexp(static_cast<long double>(w[i]), -e)) << args[1] << " item " << i;
    }
  }
  EXPECT_EQ(build(text, {"--method", "sweep"}).at("rows"), build(text, {"--method", "psa", "--splits", "5"}).at("rows"));
}

}  // namespace
