// The properties run as RapidCheck properties over the generators, with
// shrinking: check_sampler() generates matrices of every family and size,
// draws, checks every property, and on a failure shrinks to a minimal input
// and reports it with a command that replays it (`warpsim show`).
//
// Usage:
//   auto report = properties::check_sampler(sampler, {.tests = 100});
//   auto sub = properties::check_sampler(sampler, {}, properties::WeightFamily::SubnormalTotal);
//   if (!report.ok) std::cerr << report.text;
#pragma once

#include <rapidcheck.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <charconv>
#include <optional>
#include <sstream>
#include <string>

#include "properties/checks.hpp"
#include "properties/generators.hpp"
#include "properties/sampler.hpp"

namespace warpsim::properties {

struct CheckOptions {
  int tests = 100;          // generated inputs per precision
  int max_rows = 70;        // M from min_rows, over the whole range whatever RapidCheck's size (several warps)
  int max_cols = 150;       // K from min_cols
  int min_cols = 1;         // (rows longer than a segment: the sum tree's long-row layouts)
  int min_rows = 1;         // (enough rows for a layout plan() gives only to many rows)
  std::uint64_t seed = 1;   // RapidCheck's seed: a fixed one replays the same inputs
  // Shrinking a failure stops after this long (each try is a whole draw;
  // without a budget a large first counterexample can take minutes). The
  // smallest failing input found by then is reported.
  double shrink_seconds = 5;
  int max_draws = 40;       // S draws a row from min_draws (samplers that make them: check_row_draws, check_equal)
  int min_draws = 1;
  bool fp32 = true;         // which precisions to check (a sampler may take one)
  bool fp64 = true;
};

// The shrunk input of a failure, for a report that saves and replays it.
struct FailingInput {
  std::string dtype;  // "fp32" | "fp64"
  std::uint64_t seed = 0;
  int rows = 0, cols = 0;
  int row = 0;        // the row the failing property named (0 if none)
  // The S draws a row of the failing S-draw property (all_row_draw_properties,
  // or check_equal's S draws); 0 where a one-draw property failed.
  int draws = 0;
  std::vector<double> weights;  // rows x cols, each exactly the T value
};

struct Report {
  bool ok = true;
  std::string property;  // the first that failed
  std::string text;      // RapidCheck's report: the shrunk counterexample and how to replay it
  std::optional<FailingInput> failing;  // that counterexample as data
};

// A row as a number file line, every value the shortest text that reads
// back to the same T (std::to_chars).
template <class T>
std::string row_text(std::span<const T> row) {
  std::string s;
  char buf[64];
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i) s += ' ';
    s.append(buf, std::to_chars(buf, buf + sizeof buf, row[i]).ptr);
  }
  return s;
}

template <class T>
std::string replay_text(const Matrix<T>& m, int row, std::uint64_t seed, int draws = 0) {
  if (row < 0 || row >= m.rows) row = 0;
  const std::string line = row_text(m.row(row));
  return "failing row " + std::to_string(row) + " of " + std::to_string(m.rows) + " (" + std::to_string(m.cols) + " weights, " +
         (sizeof(T) == 4 ? "fp32" : "fp64") + ", seed " + std::to_string(seed) +
         (draws > 0 ? ", " + std::to_string(draws) + " draws a row" : "") + "):\n  " + line +
         "\nto look at it: printf '%s\\n%s\\n' '" + line + "' '" + line + "' > row.txt && warpsim show prefix --lanes 2 --k " +
         std::to_string(m.cols) + " --weights row.txt --step final";
}

// One generated input inside a property: a family (`only`, or any), M and K
// within the options, a seed, and the matrix.
template <class T>
struct Input {
  std::uint64_t seed;
  Matrix<T> m;
};

inline constexpr int kShrinkWeightsUpTo = 256;

// The shrink budget: once a case has failed, tries past the deadline pass
// without drawing -- except the failing input itself (known by a fingerprint
// of its generated values), which RapidCheck runs again to describe it. So it
// keeps, and reports, the smallest failure found by then.
class ShrinkBudget {
 public:
  explicit ShrinkBudget(double seconds) : seconds_(seconds) {}
  bool skip(std::uint64_t fingerprint) const { return deadline_ && Clock::now() > *deadline_ && fingerprint != failing_; }
  void failed(std::uint64_t fingerprint) {
    failing_ = fingerprint;
    if (!deadline_) deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds_));
  }
  // The last input that failed: RapidCheck runs the shrunk counterexample
  // last, to describe it, so after the check this is that input.
  std::optional<FailingInput> last;

 private:
  using Clock = std::chrono::steady_clock;
  double seconds_;
  std::optional<Clock::time_point> deadline_;
  std::uint64_t failing_ = 0;
};

template <class T>
std::uint64_t fingerprint(std::uint64_t seed, const Matrix<T>& m) {
  std::uint64_t h = 1469598103934665603ull ^ seed;
  auto mix = [&](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(static_cast<std::uint64_t>(m.rows));
  mix(static_cast<std::uint64_t>(m.cols));
  for (T w : m.weights) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &w, sizeof w);
    mix(bits);
  }
  return h;
}

// Runs `body` on a generated input unless the budget says skip; notes failures.
namespace detail {
// The row of the verdict that failed last in this thread (require() sets it).
inline thread_local int failing_row = 0;
// The S of the S-draw properties being checked in this thread, 0 for the
// one-draw properties (set before their require()s).
inline thread_local int failing_draws = 0;
}  // namespace detail

template <class T>
FailingInput failing_input(const Input<T>& in, int row, int draws = 0) {
  FailingInput f{sizeof(T) == 4 ? "fp32" : "fp64", in.seed, in.m.rows, in.m.cols, row, draws, {}};
  f.weights.assign(in.m.weights.begin(), in.m.weights.end());
  return f;
}

template <class T, class Body>
void within_budget(ShrinkBudget& budget, const Input<T>& in, Body&& body) {
  const auto fp = fingerprint(in.seed, in.m);
  if (budget.skip(fp)) return;
  detail::failing_row = 0;
  detail::failing_draws = 0;
  try {
    body();
  } catch (...) {
    budget.failed(fp);
    budget.last = failing_input(in, detail::failing_row, detail::failing_draws);
    throw;
  }
}

template <class T>
Input<T> generate_input(const CheckOptions& o, std::optional<WeightFamily> only) {
  const auto family = only ? *only : *gen_family();
  RC_TAG(family_name(family));
  // Half the inputs take M over its whole range (several warps), the rest
  // grow with RapidCheck's size.
  const int rows = *rc::gen::arbitrary<bool>() ? *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(o.min_rows, o.max_rows + 1))
                                               : *rc::gen::inRange(o.min_rows, o.max_rows + 1);
  const int cols = *rc::gen::inRange(o.min_cols, o.max_cols + 1);
  const auto seed = *gen_seed();
  // Shrinking tries every weight of the matrix, each try a whole draw: only
  // once M and K have shrunk to a small matrix are the weights shrunk too.
  auto matrix = gen_matrix<T>(family, rows, cols, seed);
  return {seed, rows * cols <= kShrinkWeightsUpTo ? *matrix : *rc::gen::noShrink(matrix)};
}

template <class T>
void require(const Verdict& v, const Input<T>& in) {
  if (!v.ok) {
    detail::failing_row = v.row < 0 ? 0 : v.row;
    RC_FAIL(v.property + ": " + v.detail + "\n" + replay_text(in.m, v.row, in.seed, detail::failing_draws));
  }
}

// Every property of one draw on one matrix, in order, the first failure
// first: in_range, zero_never_drawn, single_nonzero, scalar_definition
// (Replayable samplers), same_seed. What a property test runs on each
// generated input, and what a replay of a saved counterexample runs.
template <class T>
std::vector<Verdict> all_properties(const Sampler& s, const Matrix<T>& m, std::uint64_t seed) {
  const auto idx = s.draw(m, seed);
  auto range = in_range(m, idx);
  if (!range.ok) return {range};
  return {range, zero_never_drawn(m, idx), single_nonzero(m, idx),
          s.determinism == Determinism::Replayable ? scalar_definition(m, seed, idx, s.adds_in_order) : Verdict::pass("scalar_definition"),
          same_seed(s, m, seed, idx)};
}

// Every property of S draws a row on one matrix (Sampler::draw_rows), the
// first failure first: in_range, zero_never_drawn, single_nonzero (each
// draw of every row), first_draw (draw 0 is the one draw), same_seed.
template <class T>
std::vector<Verdict> all_row_draw_properties(const Sampler& s, const Matrix<T>& m, std::uint64_t seed, int draws) {
  const auto idx = s.draw_rows(m, seed, draws);
  auto range = in_range(m, draws, idx);
  if (!range.ok) return {range};
  const auto one = s.draw(m, seed);
  if (auto v = in_range(m, one); !v.ok) return {v};
  return {range, zero_never_drawn(m, draws, idx), single_nonzero(m, draws, idx),
          s.row_draws_begin_with_the_one_draw ? first_draw(m, draws, idx, one) : Verdict::pass("first_draw"), same_seed(s, m, seed, draws, idx)};
}

// Every property on one generated input (of `only` if given, else of any
// family); fails (RC_FAIL) with the verdict and its replay text.
template <class T>
void replayable_properties(const Sampler& s, const CheckOptions& o, ShrinkBudget& budget, std::optional<WeightFamily> only = {}) {
  const auto in = generate_input<T>(o, only);
  within_budget(budget, in, [&] {
    for (const Verdict& v : all_properties(s, in.m, in.seed)) require(v, in);
  });
}

namespace detail {

// Listens to nothing: RapidCheck's default listener prints a "reproduce"
// string at exit for every failure, and a failure here is a report's
// finding (with its own replay), not the harness's.
class QuietListener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

template <class Property>
void run_property(Report& report, const std::string& name, const char* dtype, const CheckOptions& o, Property property) {
  if (!report.ok) return;
  rc::detail::TestParams params;
  params.seed = o.seed;
  params.maxSuccess = o.tests;
  params.maxSize = 100;
  rc::detail::TestMetadata meta;
  meta.id = meta.description = name + " (" + dtype + ")";
  QuietListener quiet;
  const auto result = rc::detail::checkProperty(rc::detail::toProperty(property), meta, params, quiet);
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    report.ok = false;
    // A sampler that throws (the model's undefined behaviour, a CUDA error);
    // or one whose failing input passed when run again: nondeterministic.
    report.property = failure.description.find("no exceptions thrown") != std::string::npos ? "nondeterministic" : "exception";
    for (const char* p : {"in_range", "zero_never_drawn", "single_nonzero", "same_seed", "scalar_definition", "same_indices", "first_draw",
                          "table_implies_weights"}) {
      if (failure.description.find(std::string(p) + ": ") != std::string::npos) {
        report.property = p;
        break;
      }
    }
    std::ostringstream text;
    text << name << " (" << dtype << "), after " << failure.numSuccess << " passing inputs:\n" << failure.description << "\n";
    for (const auto& [type, value] : failure.counterExample) text << "  " << type << " = " << value.substr(0, 300) << "\n";
    report.text = text.str();
  }
}

}  // namespace detail

// Bit for bit: `a` and `b` draw the same index on every row of every
// generated input (of `only` if given); where both make S draws a row, the
// same S draws too (S from min_draws to max_draws).
inline Report check_equal(const Sampler& a, const Sampler& b, const CheckOptions& o = {}, std::optional<WeightFamily> only = {}) {
  Report report;
  ShrinkBudget budget(o.shrink_seconds);
  const bool rows = a.draws_rows() && b.draws_rows();
  auto property = [&](auto zero) {
    using T = decltype(zero);
    const auto in = generate_input<T>(o, only);
    const int draws = rows ? *rc::gen::inRange(o.min_draws, o.max_draws + 1) : 1;
    if (rows) RC_TAG(draws == 1 ? "S = 1" : draws <= 8 ? "S 2-8" : "S > 8");
    within_budget(budget, in, [&] {
      require(same_indices(in.m, a.draw(in.m, in.seed), b.draw(in.m, in.seed), a.name, b.name), in);
      if (rows) {
        detail::failing_draws = draws;
        require(same_indices(in.m, draws, a.draw_rows(in.m, in.seed, draws), b.draw_rows(in.m, in.seed, draws), a.name, b.name), in);
      }
    });
  };
  if (o.fp32) detail::run_property(report, a.name + " = " + b.name, "fp32", o, [&] { property(0.0f); });
  if (o.fp64) detail::run_property(report, a.name + " = " + b.name, "fp64", o, [&] { property(0.0); });
  if (!report.ok) report.failing = budget.last;
  return report;
}

inline Report check_sampler(const Sampler& s, const CheckOptions& o = {}, std::optional<WeightFamily> only = {}) {
  Report report;
  ShrinkBudget budget32(o.shrink_seconds), budget64(o.shrink_seconds);
  if (o.fp32) detail::run_property(report, s.name, "fp32", o, [&] { replayable_properties<float>(s, o, budget32, only); });
  if (o.fp64) detail::run_property(report, s.name, "fp64", o, [&] { replayable_properties<double>(s, o, budget64, only); });
  if (!report.ok) report.failing = budget32.last ? budget32.last : budget64.last;
  return report;
}

// S draws a row (Sampler::draw_rows): every property of
// all_row_draw_properties on generated inputs, S from min_draws to max_draws; a
// failure shrinks the matrix and S together.
inline Report check_row_draws(const Sampler& s, const CheckOptions& o = {}, std::optional<WeightFamily> only = {}) {
  Report report;
  ShrinkBudget budget32(o.shrink_seconds), budget64(o.shrink_seconds);
  auto property = [&](auto zero, ShrinkBudget& budget) {
    using T = decltype(zero);
    const auto in = generate_input<T>(o, only);
    const int draws = *rc::gen::inRange(o.min_draws, o.max_draws + 1);
    within_budget(budget, in, [&] {
      detail::failing_draws = draws;
      for (const Verdict& v : all_row_draw_properties(s, in.m, in.seed, draws)) require(v, in);
    });
  };
  if (o.fp32 && s.rows32) detail::run_property(report, s.name + " S draws a row", "fp32", o, [&] { property(0.0f, budget32); });
  if (o.fp64 && s.rows64) detail::run_property(report, s.name + " S draws a row", "fp64", o, [&] { property(0.0, budget64); });
  if (!report.ok) report.failing = budget32.last ? budget32.last : budget64.last;
  return report;
}

// A table builder's tables: every row of every generated input, as one
// distribution, built and checked by table_implies_weights; a failure
// shrinks to a small matrix whose failing row is the counterexample.
inline Report check_table_builder(const Sampler& s, const CheckOptions& o = {}, std::optional<WeightFamily> only = {}) {
  Report report;
  ShrinkBudget budget32(o.shrink_seconds), budget64(o.shrink_seconds);
  auto property = [&](auto zero, ShrinkBudget& budget) {
    using T = decltype(zero);
    const auto& build = [&]() -> const TableBuild<T>& {
      if constexpr (sizeof(T) == 4) return s.table32; else return s.table64;
    }();
    const auto in = generate_input<T>(o, only);
    within_budget(budget, in, [&] {
      for (int r = 0; r < in.m.rows; ++r) {
        const auto row = in.m.row(r);
        require(table_implies_weights<T>(row, build(row), r), in);
      }
    });
  };
  if (o.fp32 && s.table32) detail::run_property(report, s.name + " tables", "fp32", o, [&] { property(0.0f, budget32); });
  if (o.fp64 && s.table64) detail::run_property(report, s.name + " tables", "fp64", o, [&] { property(0.0, budget64); });
  if (!report.ok) report.failing = budget32.last ? budget32.last : budget64.last;
  return report;
}

// A generator's value outside a property (deterministic in `seed`), for
// tests that want the families without RapidCheck's search.
template <class T>
T sample(const rc::Gen<T>& gen, std::uint64_t seed, int size = 100) {
  return gen(rc::Random(seed), size).value();
}

}  // namespace warpsim::properties
