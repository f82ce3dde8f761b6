#include "cli/validate/files.hpp"

#include <algorithm>

#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "cli/errors.hpp"
#include "cli/input/array_view.hpp"
#include "cli/input/arrays.hpp"
#include "cli/input/logits.hpp"
#include "cli/validate/device.hpp"
#include "cli/validate/law.hpp"
#include "cli/validate/rows.hpp"
#include "properties/checks.hpp"
#include "stats/input_checks.hpp"

namespace warpsim::cli::validate {

namespace {

std::string g(double v) { return stats::number_text(v); }

}  // namespace

namespace {

// --row-seeds: one whole number a row.
std::vector<std::uint64_t> read_row_seeds(const InputSource& inputs, const std::string& path, const Weights& w) {
  if (path.empty()) return {};
  const auto a = read_whole_array(inputs, path, kMaxWeights);
  if (a.values.size() != w.rows) {
    throw UsageError(a.info.quoted + " holds " + std::to_string(a.values.size()) + " seeds; the weights have " + std::to_string(w.rows) + " rows: one a row");
  }
  std::vector<std::uint64_t> seeds;
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    const double v = a.values[i];
    if (!(v >= 0) || v != std::floor(v) || v >= 18446744073709551616.0) {
      throw UsageError(a.info.quoted + ": seed " + std::to_string(i) + " is " + g(v) + ", not a whole number in [0, 2^64)");
    }
    seeds.push_back(static_cast<std::uint64_t>(v));
  }
  return seeds;
}

// The scalar definition of each row, built when a draw of that row arrives
// (the last row kept: draws come row by row or from one row).
template <class T>
class DefinitionCache {
 public:
  explicit DefinitionCache(const Weights& w) : w_(w) {}
  const properties::ScalarRow<T>& row(std::uint64_t r) {
    if (!scalar_ || r != row_) {
      std::vector<T> v(w_.cols);
      for (std::uint64_t j = 0; j < w_.cols; ++j) v[j] = static_cast<T>(w_.values[r * w_.cols + j]);
      scalar_ = std::make_unique<properties::ScalarRow<T>>(std::span<const T>(v));
      row_ = r;
    }
    return *scalar_;
  }

 private:
  const Weights& w_;
  std::unique_ptr<properties::ScalarRow<T>> scalar_;
  std::uint64_t row_ = 0;
};

struct FirstDraw {
  bool found = false;
  std::uint64_t draw = 0, row = 0, count = 0;
  double value = 0;
  std::string extra;
  void note(std::uint64_t e, std::uint64_t r, double v, std::string more = {}) {
    ++count;
    if (found) return;
    found = true;
    draw = e;
    row = r;
    value = v;
    extra = std::move(more);
  }
};

std::string index_text(double v) {
  if (std::abs(v) < 9.007199254740992e15) return std::to_string(static_cast<long long>(v));
  return g(v);
}

// "'a.npy'", or "'a.npy', 'b.npy' (2 files)".
std::string files_text(const std::vector<std::string>& files) {
  std::string t;
  for (std::size_t i = 0; i < files.size() && i < 3; ++i) t += (i ? ", '" : "'") + printable(files[i], 200) + "'";
  if (files.size() > 3) t += ", ...";
  if (files.size() > 1) t += " (" + std::to_string(files.size()) + " files)";
  return t;
}

template <class T>
Report check(const InputSource& inputs, const FileOptions& o, const Weights& w, Progress& progress) {
  Report report;
  report.kind = "file";
  report.alpha = o.alpha;
  report.subject = "draws in " + files_text(o.draws) + " from the weights in " + w.quoted + " (" +
                   (w.vector ? std::to_string(w.cols) + " weights" : std::to_string(w.rows) + " x " + std::to_string(w.cols)) + ", " +
                   (w.fp32 ? "fp32" : "fp64") + ")" + (o.uniforms.empty() ? "" : " with the uniforms in " + files_text(o.uniforms));

  auto draws = open_arrays(inputs, o.draws, {.max_elements = kMaxDraws});
  const auto& di = draws->info();
  if (di.kind == ElementKind::Float) {
    throw UsageError(di.quoted + " holds " + di.dtype() + "; draws are indices, an integer array (int32 or int64)");
  }
  if (di.npy && !w.vector) {
    if (di.shape.empty() || di.shape[0] != w.rows || (di.shape.size() == 1 && w.rows > 1 && di.shape[0] != w.rows)) {
      throw UsageError(di.quoted + " has shape " + (di.shape.empty() ? "()" : std::to_string(di.shape[0]) + (di.shape.size() > 1 ? " x " + std::to_string(di.shape[1]) : "")) +
                       "; the weights have " + std::to_string(w.rows) + " rows, so the draws must be " + std::to_string(w.rows) +
                       " (one a row) or " + std::to_string(w.rows) + " x S (S a row)");
    }
  }
  std::unique_ptr<ArrayReader> uniforms;
  if (!o.uniforms.empty()) {
    for (const auto& f : o.uniforms) {
      if (std::find(o.draws.begin(), o.draws.end(), f) != o.draws.end()) throw UsageError("--uniforms and --draws name the same file");
    }
    uniforms = open_arrays(inputs, o.uniforms, {.max_elements = kMaxDraws});
    const auto& ui = uniforms->info();
    if (ui.npy && ui.kind != ElementKind::Float) throw UsageError(ui.quoted + " holds " + ui.dtype() + "; uniforms are float32 or float64");
    if (ui.npy && di.npy && ui.shape != di.shape) throw UsageError(ui.quoted + " and " + di.quoted + " differ in shape: one uniform a draw");
  }

  const std::uint64_t k = w.cols;
  // One law for every draw: the counter also keeps the two-level batches.
  const std::vector<double> one_law = w.rows_differ ? std::vector<double>{} : probabilities_of(std::span<const double>(w.values.data(), k));
  LawCounter counter = w.rows_differ ? LawCounter(k) : LawCounter(std::span<const double>(one_law));
  std::vector<std::uint64_t> per_row(w.rows, 0);
  std::unique_ptr<RowChecks> row_checks;
  if (w.rows_differ) row_checks = std::make_unique<RowChecks>(w.values, w.rows, w.cols, read_row_seeds(inputs, o.row_seeds, w));
  else if (!o.row_seeds.empty()) throw UsageError("--row-seeds goes with weights whose rows differ (every row here is the same law)");
  FirstDraw out_of_range, zero_weight, off_definition;
  std::uint64_t exact = 0, within = 0;
  DefinitionCache<T> definitions(w);

  constexpr std::size_t kChunk = 1 << 16;
  std::vector<double> v(kChunk), u(kChunk);
  std::vector<std::uint64_t> rows(kChunk), urows(kChunk);
  std::uint64_t e = 0;
  bool counted = false;  // on the device
  // Draws in device memory, of one law, without uniforms: counted where they
  // lie (cli/validate/device.hpp), the counts and batches as the loop below
  // makes them. With an index out of range the loop runs instead, so that
  // the batches hold the same draws (it leaves those out).
  if (const ArrayView* dv = draws->device_array(); dv && !uniforms && !row_checks && device::can_count(*dv)) {
    const auto& c = counter.data();
    const auto t0 = std::chrono::steady_clock::now();
    const auto d = device::count_law(*dv, std::vector<double>(w.values.begin(), w.values.begin() + static_cast<std::ptrdiff_t>(k)), c.cell_of, c.cells, c.batched ? kBatches : 0);
    if (d.out_of_range == 0) {
      counter.add_batched_counts(d.counts, d.batch_counts);
      if (d.zero_weight > 0) {
        zero_weight.note(d.first_zero_weight, w.vector ? 0 : d.first_zero_weight / di.columns, d.first_zero_weight_index);
        zero_weight.count = d.zero_weight;
      }
      e = d.draws;
      counted = true;
      report.notes.push_back("the draws were counted on CUDA device " + std::to_string(dv->device) + ", where they lie, in " +
                             g(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()) + " s; none was copied to the host");
    }
  }
  if (!counted) progress.start("draws", di.npy ? std::optional<std::uint64_t>(di.shape.empty() ? 1 : di.shape[0] * di.columns) : std::nullopt);
  while (const std::size_t n = counted ? 0 : draws->read(v, rows)) {
    if (uniforms) {
      std::size_t got = 0;
      while (got < n) {
        const std::size_t m = uniforms->read(std::span<double>(u).subspan(got, n - got), std::span<std::uint64_t>(urows).subspan(got, n - got));
        if (m == 0) break;
        got += m;
      }
      if (got < n) throw UsageError(uniforms->info().quoted + " holds fewer values than " + di.quoted + ": one uniform a draw");
    }
    for (std::size_t i = 0; i < n; ++i, ++e) {
      const std::uint64_t r = w.vector ? 0 : rows[i];
      if (r >= w.rows) {
        throw UsageError(di.quoted + " has more rows than the weights (" + std::to_string(w.rows) + "): row " + std::to_string(r + 1) +
                         (di.npy ? "" : " (a line)") + " has no weights");
      }
      const double x = v[i];
      if (x != std::floor(x) || !std::isfinite(x)) {
        throw UsageError(di.quoted + ": draw " + std::to_string(e) + " is " + g(x) + ", not an index (a whole number)");
      }
      T uu = 0;
      if (uniforms) {
        if (!(u[i] >= 0 && u[i] < 1)) throw UsageError(uniforms->info().quoted + ": uniform " + std::to_string(e) + " is " + g(u[i]) + ", outside [0, 1)");
        uu = static_cast<T>(u[i]);
        if (static_cast<double>(uu) != u[i]) {
          throw UsageError(uniforms->info().quoted + ": uniform " + std::to_string(e) + " (" + g(u[i]) + ") is not an fp32 value, and the weights are fp32");
        }
        if (!di.npy && urows[i] != rows[i]) throw UsageError(uniforms->info().quoted + " and " + di.quoted + " differ in shape (line by line)");
      }
      if (x < 0 || x >= static_cast<double>(k)) {
        out_of_range.note(e, r, x);
        continue;
      }
      const auto idx = static_cast<std::uint64_t>(x);
      if (w.values[r * k + idx] == 0) zero_weight.note(e, r, x);
      else if (row_checks) row_checks->add(e, r, idx);
      if (uniforms) {
        const auto& def = definitions.row(r);
        const int want = def.definition(uu);
        if (static_cast<std::uint64_t>(want) == idx) {
          ++exact;
        } else if (!o.adds_in_order && def.within_bound(uu, static_cast<int>(idx))) {
          ++within;
        } else {
          off_definition.note(e, r, x, "the scalar definition draws " + std::to_string(want) + " with u = " + g(u[i]) + ", and " +
                                           (o.adds_in_order ? std::string("the sampler adds in index order (--adds-in-order)")
                                                            : index_text(x) + " is not within the rounding bound " + g(static_cast<double>(def.bound())) +
                                                                  " of u' = " + g(static_cast<double>(def.exact_target(uu)))));
        }
      }
      counter.add(idx);
      per_row[r] += 1;
    }
    progress.update(e);
  }
  if (uniforms) {
    double extra = 0;
    std::uint64_t extra_row = 0;
    if (uniforms->read(std::span<double>(&extra, 1), std::span<std::uint64_t>(&extra_row, 1)) != 0) {
      throw UsageError(uniforms->info().quoted + " holds more values than " + di.quoted + ": one uniform a draw");
    }
  }
  progress.finish();
  if (e == 0) throw UsageError(di.quoted + " holds no draws");
  const auto& shape = draws->info().shape;
  if (!w.vector && shape[0] != w.rows) {
    throw UsageError(di.quoted + " has " + std::to_string(shape[0]) + " rows; the weights have " + std::to_string(w.rows) +
                     ": one draw a row (a line), or S a row");
  }

  auto at = [&](const FirstDraw& f) {
    return "draw " + std::to_string(f.draw) + (w.vector ? "" : " (row " + std::to_string(f.row) + ")") + " is " + index_text(f.value);
  };
  report.checks.push_back({"shape", Outcome::Pass,
                           std::to_string(e) + " draws" + (w.vector ? " from one distribution of " + std::to_string(k)
                                                                    : ", " + std::to_string(e / w.rows) + " a row of " + std::to_string(w.rows)) +
                               (w.rows_differ ? "" : w.vector ? "" : " (every row the same distribution)"),
                           std::nullopt});
  report.checks.push_back({"in_range", out_of_range.found ? Outcome::Fail : Outcome::Pass,
                           out_of_range.found ? at(out_of_range) + ", outside [0, " + std::to_string(k) + "); " + std::to_string(out_of_range.count) +
                                                    " draws are"
                                              : "every index in [0, " + std::to_string(k) + ")",
                           std::nullopt});
  report.checks.push_back({"zero_never_drawn", zero_weight.found ? Outcome::Fail : Outcome::Pass,
                           zero_weight.found ? at(zero_weight) + ", of weight 0; " + std::to_string(zero_weight.count) + " draws are"
                                             : "no draw of weight 0",
                           std::nullopt});
  if (uniforms) {
    report.checks.push_back({"scalar_definition", off_definition.found ? Outcome::Fail : Outcome::Pass,
                             off_definition.found ? at(off_definition) + ": " + off_definition.extra + "; " + std::to_string(off_definition.count) +
                                                        " draws are outside the bound"
                                                  : std::to_string(exact) + " draws equal the scalar definition, " + std::to_string(within) +
                                                        " differ from it within its rounding bound (another order of additions)",
                             std::nullopt});
  } else {
    report.checks.push_back({"scalar_definition", Outcome::Skipped, "no --uniforms: the draws are checked in law only", std::nullopt});
  }

  if (counter.draws() > 0) {
    std::vector<double> p;
    if (!w.rows_differ) {
      p = one_law;
    } else {
      std::vector<long double> mass(k, 0.0L);
      for (std::uint64_t r = 0; r < w.rows; ++r) {
        if (per_row[r] == 0) continue;
        long double total = 0;
        for (std::uint64_t j = 0; j < k; ++j) total += w.values[r * k + j];
        for (std::uint64_t j = 0; j < k; ++j) mass[j] += static_cast<long double>(per_row[r]) * w.values[r * k + j] / total;
      }
      std::vector<double> m(k);
      for (std::uint64_t j = 0; j < k; ++j) m[j] = static_cast<double>(mass[j]);
      p = probabilities_of(m);
    }
    const int tests = law_check_count(counter.data().batched) + (row_checks ? row_checks->check_count() : 0);
    const std::string label = "the weights in " + w.quoted;
    law_checks(counter.data(), p, {.alpha_each = o.alpha / tests, .label = label, .rows_differ = w.rows_differ}, report);
    if (row_checks) {
      // The second pass: every draw again, for the PITs (cli/validate/rows.hpp).
      std::string no_pit;
      if (row_checks->wants_pit_pass()) {
        if (o.draws.front() == "-") {
          no_pit = "the draws came from standard input, and the PITs read them twice";
        } else {
          auto again = open_arrays(inputs, o.draws, {.max_elements = kMaxDraws});
          progress.start("draws, again for the PITs", e);
          std::uint64_t f = 0;
          while (const std::size_t n = again->read(v, rows)) {
            for (std::size_t i = 0; i < n; ++i, ++f) {
              const std::uint64_t r = w.vector ? 0 : rows[i];
              const double x = v[i];
              if (x < 0 || x >= static_cast<double>(k)) continue;
              const auto idx = static_cast<std::uint64_t>(x);
              if (w.values[r * k + idx] > 0) row_checks->pit(f, r, idx);
            }
            progress.update(f);
          }
          progress.finish();
        }
      }
      row_checks->finish(o.alpha / tests, label, report, no_pit);
    }
    report.notes.push_back("the statistical checks run at alpha / " + std::to_string(tests) + " each, so the report's false-positive rate is at most " +
                           g(o.alpha));
  }
  return report;
}

}  // namespace

// Each row's token law as the weights (float64: the law's p_i).
Weights token_laws(const InputSource& inputs, const FileOptions& o) {
  const Logits l = read_logits(inputs, o.logits, o.logit_type);
  Weights w;
  w.quoted = l.quoted;
  w.fp32 = false;
  w.vector = l.vector;
  w.rows = static_cast<std::uint64_t>(l.rows);
  w.cols = static_cast<std::uint64_t>(l.cols);
  w.values.reserve(w.rows * w.cols);
  for (std::int64_t r = 0; r < l.rows; ++r) {
    const auto p = token_law_of_row(l, r, o.sampling);
    w.values.insert(w.values.end(), p.begin(), p.end());
  }
  for (std::uint64_t r = 1; r < w.rows && !w.rows_differ; ++r)
    w.rows_differ = std::memcmp(w.values.data(), w.values.data() + r * w.cols, w.cols * sizeof(double)) != 0;
  return w;
}

Report check_files(const InputSource& inputs, const FileOptions& o, Progress& progress) {
  const std::string& in = o.logits.empty() ? o.weights : o.logits;
  if (o.draws.empty()) throw UsageError("no file of draws given");
  const auto stdin_uses = std::count(o.draws.begin(), o.draws.end(), "-") + std::count(o.uniforms.begin(), o.uniforms.end(), "-") + (in == "-" ? 1 : 0);
  if (stdin_uses > 1) throw UsageError("only one input can come from standard input");
  if (!o.logits.empty()) {
    Report r = check<double>(inputs, o, token_laws(inputs, o), progress);
    r.notes.push_back("each row's law: the token law of its logits (docs/tokens.md), temperature " + g(o.sampling.temperature) + ", top-k " +
                      std::to_string(o.sampling.top_k) + ", top-p " + g(o.sampling.top_p) + ", min-p " + g(o.sampling.min_p));
    return r;
  }
  const auto w = read_weights(inputs, o.weights, o.dtype);
  return w.fp32 ? check<float>(inputs, o, w, progress) : check<double>(inputs, o, w, progress);
}

}  // namespace warpsim::cli::validate
