// warpsim_mutants: the mutation score of warpsim's properties against the
// seeded-bug catalogue (properties/mutants.hpp). Exit 0 when every mutant is
// killed, 1 when one survives, 2 on bad usage, 3 if the correct sampler fails.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "properties/mutants.hpp"

int main(int argc, char** argv) {
  CLI::App app{"warpsim_mutants: run every property on every seeded bug and report the mutation score"};
  bool cuda = false;
  int tests = 100;
  std::uint64_t seed = 1;
  std::string format = "text";
  std::string only;
  app.add_flag("--cuda", cuda, "also the CUDA forms (needs a GPU)");
  app.add_option("--tests", tests, "generated inputs per property and precision")->check(CLI::Range(1, 100000))->capture_default_str();
  app.add_option("--seed", seed, "RapidCheck's seed")->capture_default_str();
  app.add_option("--only", only, "one mutant, by name");
  app.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  warpsim::properties::MutationScore score;
  try {
    score = warpsim::properties::mutation_score({.tests = tests, .seed = seed}, cuda, only);
  } catch (const std::exception& e) {
    std::cerr << "warpsim_mutants: " << e.what() << "\n";
    return 3;
  }
  if (format == "json") {
    nlohmann::json j{{"killed", score.killed}, {"total", score.total}, {"mutants", nlohmann::json::array()}};
    for (const auto& r : score.results) {
      j["mutants"].push_back({{"name", r.name}, {"form", r.form}, {"killed", r.killed}, {"property", r.property},
                              {"seconds", r.seconds}, {"counterexample", r.counterexample}});
    }
    std::cout << j.dump(2) << "\n";
  } else {
    for (const auto& r : score.results) {
      std::printf("%-28s %-5s %-9s %-18s %7.3f s\n", r.name.c_str(), r.form.c_str(), r.killed ? "killed" : "SURVIVED",
                  r.killed ? r.property.c_str() : "-", r.seconds);
    }
    std::printf("mutation score: %d of %d killed\n", score.killed, score.total);
  }
  return score.killed == score.total ? 0 : 1;
}
