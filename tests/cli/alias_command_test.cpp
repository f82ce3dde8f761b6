// `warpsim alias build` as a user runs it: every method's JSON table, read
// back, gives every item exactly N u_i (u_i = w_i / 2^e, the unit in the
// JSON), and the methods that must agree do (the sweep, PSA, any splits).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/app.hpp"
#include "cli/input/sources.hpp"

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

// --counters: the model builds the same table (the command checks it) and
// reports every phase's counters, for each split and pack.
TEST(AliasCommand, CountersComeFromTheModelsOwnBuild) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += std::to_string(1 + (i * 37) % 11) + "\n";
  const auto host = build(text, {"--method", "psa"}).at("rows");  // 1 section (N / 1,024); the model's shared pack takes more
  for (const char* split : {"binary", "pary"}) {
    for (const char* pack : {"global", "shared", "chunked"}) {
      const auto j = build(text, {"--method", "psa", "--counters", "--split", split, "--pack", pack});
      EXPECT_EQ(j.at("rows"), host);
      const auto& m = j.at("model");
      EXPECT_EQ(m.at("split_method"), split);
      EXPECT_EQ(m.at("pack_method"), pack);
      const auto& c = m.at("counters");
      for (const char* phase : {"partition", "split", "pack"}) EXPECT_GT(c.at(phase).at("instructions").get<std::uint64_t>(), 0u) << phase;
      // The partition reads every weight (8-byte units: at least N / 4 sectors).
      EXPECT_GE(c.at("partition").at("global_load_sectors").get<std::uint64_t>(), 300u / 4);
      // The pack stores each row it writes (items with no heavy left keep {U, self}) as one 16-byte store.
      EXPECT_GT(c.at("pack").at("global_sectors").get<std::uint64_t>(), c.at("pack").at("global_load_sectors").get<std::uint64_t>());
    }
  }
  const auto plus = build(text, {"--method", "psa+", "--group", "64", "--counters"});
  EXPECT_EQ(plus.at("greedy").at("lanes"), 32);
  EXPECT_GT(plus.at("greedy").at("rows").get<std::size_t>(), 0u);
}

// show alias --method psa: a frame of the lists with their prefix sums and
// the splits (the items each section starts from highlighted), and each pack
// step says what the filling heavy item has left.
TEST(AliasCommand, ShowAliasDrawsTheSplitsAndTheSpill) {
  warpsim::cli::MemoryInputs in;
  in.files["w"] = "1\n3\n0\n4\n2\n2\n7\n0.5\n";
  std::ostringstream out, err;
  ASSERT_EQ(warpsim::cli::run_cli({"show", "alias", "--weights", "w", "--method", "psa", "--splits", "3", "--step", "all", "--format", "json"},
                                  out, err, in),
            0)
      << err.str();
  const auto j = nlohmann::json::parse(out.str());
  const auto& frames = j.at("frames");
  ASSERT_GT(frames.size(), 2u);
  const std::string split_title = frames[1].at("title");
  EXPECT_NE(split_title.find("the sections start at (i, j) = (0, 0, spill"), std::string::npos) << split_title;
  EXPECT_FALSE(frames[1].at("highlighted").empty());
  // Items 1, 3, 6 are heavy (weights 3, 4, 7 against W/N = 2.4375): h0, h1, h2 with E in buckets.
  EXPECT_EQ(frames[1].at("grid")[1][0], "1: h0 E=0.231");
  const std::string step = frames[2].at("title");
  EXPECT_NE(step.find("left"), std::string::npos) << step;
}

// --device: where a CUDA device can be used, the kernels' table must be the
// host's (the command checks every row) and the JSON says so; where none can
// (CI, a build without CUDA), exit 2 with the reason.
TEST(AliasCommand, DeviceBuildsTheHostsTableOrSaysWhyNot) {
  warpsim::cli::MemoryInputs in;
  std::string text;
  for (int i = 0; i < 5000; ++i) text += std::to_string(1 + (i * 7919) % 1000) + "\n";
  in.files["w"] = text;
  for (const char* method : {"psa", "psa+"}) {
    std::ostringstream out, err;
    const int rc = warpsim::cli::run_cli({"alias", "build", "--weights", "w", "--method", method, "--device", "--format", "json"}, out, err, in);
    if (rc == 0) {
      const auto j = nlohmann::json::parse(out.str());
      EXPECT_EQ(j.at("device").at("table"), "equal to the host's") << method;
      EXPECT_FALSE(j.at("device").at("name").get<std::string>().empty());
    } else {
      EXPECT_EQ(rc, 2);
      EXPECT_NE(err.str().find("--device: "), std::string::npos) << err.str();
      EXPECT_TRUE(err.str().find("without CUDA") != std::string::npos || err.str().find("no usable CUDA device") != std::string::npos)
          << err.str();
    }
  }
}

}  // namespace
