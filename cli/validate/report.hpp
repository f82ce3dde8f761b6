// What `warpsim validate` found, as data: the renderers (text, JSON, HTML)
// read this and nothing else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stats/test_result.hpp"

namespace warpsim::cli::validate {

enum class Outcome { Pass, Fail, Skipped };
const char* outcome_name(Outcome o);

struct Check {
  std::string name;     // "in_range", "chi_square", "properties (fp32)", ...
  Outcome outcome = Outcome::Pass;
  std::string detail;   // what was checked, or why it failed / was skipped
  std::optional<stats::TestResult> test;  // the statistical checks
};

// One category of the law check.
struct Category {
  std::uint64_t index = 0;
  double observed = 0;
  double expected = 0;
  double p_raw = 1;       // exact two-sided binomial
  double p_adjusted = 1;  // Holm
  bool rejected = false;
};

// A row (or a draw) that stands out in the per-row checks.
struct WorstRow {
  std::uint64_t row = 0;
  std::string what;  // in words: what it drew against what its law expects
  double score = 0;  // larger stands out more (the order of the list)
};

// The per-row checks' view (rows that differ): the PITs' histograms (bin
// counts, uniform under the null) and the rows or draws that stand out.
struct RowsView {
  std::uint64_t rows = 0, draws = 0;
  std::vector<double> pit_heaviest, pit_index;
  std::vector<WorstRow> worst;  // at most 10, the most outstanding first
};

struct Law {
  std::string label;                 // which distribution ("weights in 'w.npy'", "fp32 power law of 64")
  std::uint64_t draws = 0;
  std::vector<Category> categories;
  std::vector<double> batch_p_values;  // the two-level test's first level
  int batches = 0;
};

// A failure shrunk to a small input, saved where the user can replay it.
struct Counterexample {
  std::string property;
  std::string dtype;        // "fp32" | "fp64"
  std::uint64_t seed = 0;
  int rows = 0, cols = 0;
  int failing_row = 0;
  int draws = 0;                // S draws a row where an S-draw property failed, else 0
  std::vector<double> weights;  // rows x cols
  std::string file;             // where it was written ("" if not)
  std::vector<std::string> replay;  // commands
  std::string detail;           // RapidCheck's description
  // The failing row's algorithm as `warpsim show` steps through it: the
  // view and its options (before --weights), and whether the view takes a
  // W x K matrix (the row given to two lanes) rather than one row. Empty
  // where no view fits the row's size.
  std::vector<std::string> show;
  bool show_two_lanes = false;
};

struct MutantLine {
  std::string name, form, bug, property;
  bool killed = false;
  double seconds = 0;
  std::string counterexample;
};

struct Report {
  std::string kind;      // file | plugin | builtin | mutants
  std::string subject;   // what was validated, in words
  double alpha = 1e-3;   // the false-positive rate of the whole report
  std::vector<Check> checks;
  std::vector<Law> laws;
  std::optional<RowsView> rows;
  std::optional<Counterexample> counterexample;
  std::vector<MutantLine> mutants;
  std::vector<std::string> notes;
  // How the run went, apart from its verdict: the only fields that differ
  // between runs of the same checks on 1 and on R processes.
  double seconds = 0;
  int processes = 1;
  bool consistent() const {
    for (const auto& c : checks)
      if (c.outcome == Outcome::Fail) return false;
    for (const auto& m : mutants)
      if (!m.killed) return false;
    return true;
  }
};

}  // namespace warpsim::cli::validate
