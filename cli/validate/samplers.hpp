// Ways in 2 and 3: a sampler warpsim can call -- a plugin's, or a built-in of
// the registry (properties/registry.hpp; its GPU entry where one runs, else
// its oracle on the warp model) -- and the seeded-bug catalogue.
//
// A sampler is checked by
//   1. the properties of properties/ (in_range, zero_never_drawn,
//      single_nonzero, scalar_definition if replayable, same_seed) on
//      generated inputs of every weight family (RapidCheck), each precision
//      it takes; a failure is shrunk to a small matrix, saved to a file, and
//      reported with the commands that replay it;
//   2. its law: n draws from a fixed distribution (64 weights of a shuffled
//      power law, two of them 0) in each precision, n chosen by --target-tv
//      (or --draws), by the tests of cli/validate/law.hpp.
// With --weights FILE (a saved counterexample, or the user's own), the
// properties run on that matrix with --seed instead of generated ones, and a
// single distribution is also checked in law.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cli/input/sources.hpp"
#include "cli/validate/law.hpp"
#include "cli/validate/progress.hpp"
#include "cli/validate/report.hpp"
#include "dist/communicator.hpp"
#include "properties/sampler.hpp"

namespace warpsim::cli::validate {

// The most draws a law check takes on one process (--draws-per-law, --target-tv).
inline constexpr std::uint64_t kMaxDrawsPerLaw = 1'000'000'000'000;

struct SamplerOptions {
  int tests = 100;           // generated inputs per precision
  int max_rows = 70;
  int max_cols = 150;
  std::uint64_t seed = 1;    // RapidCheck's seed, and the draws' seed
  double alpha = 1e-3;
  double target_tv = 0.01;   // the law check detects this total-variation bias with power 0.9
  std::optional<std::uint64_t> draws;  // instead of target_tv
  std::string counterexample_file = "warpsim-counterexample.txt";  // "" : not saved
  std::string weights;       // replay on these weights instead of generating
  int row_draws = 0;         // with weights: also the S-draw properties, S = row_draws (a saved S-draw failure)
  std::optional<std::string> dtype;
  double shrink_seconds = 5;
  std::string replay_prefix;  // "warpsim validate --plugin lib.so --sampler x": how to run this sampler again
  // The processes that share the law's draws (dist/communicator.hpp): each
  // makes the chunks of draws dist::share_of gives its rank, keyed by their
  // global index, and the counts are summed over ranks, so that the report
  // is the same for any number of ranks. The properties run on rank 0 alone.
  // Null: this process alone.
  const dist::Communicator* comm = nullptr;
};

// Draws this process's share of n draws from one distribution into a
// counter (dist::share_of over the Communicator's ranks, each draw keyed by
// its global index); returns the first failing draw's description ("" if
// none). The plugin path counts on the GPU for device samplers; the default
// draws through the Sampler.
using LawDraw32 = std::function<std::string(const dist::Communicator&, const std::vector<float>&, std::uint64_t n, std::uint64_t seed, LawCounter&,
                                            const std::function<void(std::uint64_t)>&)>;
using LawDraw64 = std::function<std::string(const dist::Communicator&, const std::vector<double>&, std::uint64_t n, std::uint64_t seed, LawCounter&,
                                            const std::function<void(std::uint64_t)>&)>;

struct SamplerUnderTest {
  properties::Sampler sampler;
  std::string kind;      // "plugin" | "builtin"
  std::string subject;   // in words
  LawDraw32 law32;       // empty: through sampler.draw
  LawDraw64 law64;
  LawDraw32 row_law32;   // S draws of one row; empty: through sampler.draw_rows
  LawDraw64 row_law64;
  std::function<std::string()> take_error;  // a plugin's recorded error ("" if none)
};

Report check_sampler_report(const InputSource& inputs, SamplerUnderTest& s, const SamplerOptions& options, Progress& progress);

// Sets c.show (and c.show_two_lanes): the `warpsim show` view of the failing
// row's algorithm, a registry row's name (empty: none, as for a plugin), with
// its options. The butterfly samplers get the butterfly view; the sum tree,
// alias tables and Bringmann-Larsen their own; anything else the per-lane
// prefix sums. None where the row is longer than the view takes.
void choose_view(Counterexample& c, const std::string& algorithm);

// The law distribution of step 2, and n for a target total variation.
std::vector<double> law_weights();
// At most 10^12 draws a process: `processes` share them.
std::uint64_t draws_for_target(double target_tv, double alpha_each, int processes = 1);

// The catalogue: mutation_score on the host forms (cuda: their CUDA forms).
Report mutants_report(const SamplerOptions& options, bool cuda, const std::string& only, Progress& progress);

}  // namespace warpsim::cli::validate
