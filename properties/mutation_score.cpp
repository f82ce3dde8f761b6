// The mutation score: every property (rc_checks.hpp, RapidCheck) on every
// mutant. Apart from mutants.cpp so that the mutant samplers alone link
// without RapidCheck (a plugin offering them is a shared object, and Debian's
// librapidcheck.a is not position-independent).
#include <chrono>
#include <stdexcept>

#include "properties/mutants.hpp"

namespace warpsim::properties {

MutationScore mutation_score(const CheckOptions& o, bool cuda, const std::string& only) {
  MutationScore score;
  auto run = [&](const Sampler& s, const std::string& name, const std::string& form) {
    MutantResult r;
    r.name = name;
    r.form = form;
    const auto t0 = std::chrono::steady_clock::now();
    const auto report = check_sampler(s, o);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.killed = !report.ok;
    r.property = report.property;
    r.counterexample = report.text;
    return r;
  };
  for (const char* form : {"host", "cuda"}) {
    const bool is_cuda = std::string(form) == "cuda";
    if (is_cuda && !cuda) continue;
    const Sampler base = is_cuda ? cuda_mutant(Mutation::None) : host_mutant(Mutation::None);
    if (const auto why = base.unavailable(); !why.empty()) throw std::runtime_error("mutation score (" + std::string(form) + "): " + why);
    const auto base_result = run(base, "warp-per-row", form);
    if (base_result.killed) {
      throw std::runtime_error("the correct warp-per-row sampler (" + std::string(form) + ") fails a property:\n" + base_result.counterexample);
    }
    for (const auto& info : mutants()) {
      if (is_cuda && !info.kernel_bug) continue;
      if (!only.empty() && info.name != only) continue;
      auto r = run(is_cuda ? cuda_mutant(info.mutation) : host_mutant(info.mutation), info.name, form);
      score.killed += r.killed ? 1 : 0;
      ++score.total;
      score.results.push_back(std::move(r));
    }
  }
  return score;
}

}  // namespace warpsim::properties
