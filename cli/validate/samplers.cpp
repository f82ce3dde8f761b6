#include "cli/validate/samplers.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <optional>

#include <iostream>
#include <sstream>

#include <rapidcheck/detail/Configuration.h>

#include "cli/alias_view.hpp"
#include "cli/errors.hpp"
#include "cli/rejection_view.hpp"
#include "cli/show_command.hpp"
#include "cli/sum_tree_view.hpp"
#include "cli/validate/device.hpp"
#include "cli/validate/files.hpp"
#include "cli/validate/law.hpp"
#include "cli/validate/values.hpp"
#include "properties/value_mutants.hpp"
#include "properties/mutants.hpp"
#include "properties/registry.hpp"
#include "properties/rc_checks.hpp"
#include "stats/input_checks.hpp"
#include "stats/power.hpp"

namespace warpsim::cli::validate {

namespace {

constexpr int kLawK = 64;

Outcome of(const properties::Verdict& v) { return v.ok ? Outcome::Pass : Outcome::Fail; }

// Writes the counterexample's matrix, one row a line, each value the
// shortest text that reads back to the same value.
void save(Counterexample& c, const std::string& file) {
  if (file.empty()) return;
  refuse_unless_regular(file, "the counterexample file");
  std::ofstream out(file);
  if (!out) throw UsageError("cannot write the counterexample to '" + printable(file, 200) + "'");
  for (int r = 0; r < c.rows; ++r) {
    std::vector<double> row(c.weights.begin() + r * c.cols, c.weights.begin() + (r + 1) * c.cols);
    out << properties::row_text<double>(row) << "\n";
  }
  if (!out) throw UsageError("cannot write the counterexample to '" + printable(file, 200) + "'");
  c.file = file;
}

// Draws first .. first + idx.size() - 1 counted, and the first index out of
// range or of weight 0 noted in `failure` (and not counted).
template <class I, class T>
void tally(const std::vector<I>& idx, const std::vector<T>& w, std::uint64_t first, LawCounter& counter, std::string& failure) {
  const auto draw = [&](std::size_t d) { return "draw " + std::to_string(first + d) + " is " + std::to_string(idx[d]); };  // (only for a failure)
  for (std::size_t d = 0; d < idx.size(); ++d) {
    const I v = idx[d];
    bool negative = false;
    if constexpr (std::is_signed_v<I>) negative = v < 0;
    if (negative || static_cast<std::size_t>(v) >= w.size()) {
      if (failure.empty()) failure = "in_range: " + draw(d);
      continue;
    }
    if (w[static_cast<std::size_t>(v)] == T(0) && failure.empty()) failure = "zero_never_drawn: " + draw(d) + ", of weight 0";
    counter.add(static_cast<std::uint64_t>(v));
  }
}

// A fault injected for the tests of the distributed paths (tests/mpi/):
// WARPSIM_FAULT=R:usage makes rank R refuse its share as bad input once half
// of it is drawn, and WARPSIM_FAULT=R:kill makes it die there (SIGKILL), as a
// rank whose host fails would.
void fault_point(const dist::Communicator& comm, std::uint64_t done, std::uint64_t total) {
  static const std::string spec = [] {
    const char* v = std::getenv("WARPSIM_FAULT");
    return v ? std::string(v) : std::string();
  }();
  if (spec.empty() || 2 * done < total) return;
  const auto colon = spec.find(':');
  if (colon == std::string::npos || spec.substr(0, colon) != std::to_string(comm.rank())) return;
  const std::string kind = spec.substr(colon + 1);
  if (kind == "kill") std::raise(SIGKILL);
  if (kind == "usage") throw UsageError("WARPSIM_FAULT: rank " + std::to_string(comm.rank()) + " refuses its share of the draws (an injected fault)");
}

// This rank's share of n draws, handed out in whole grains of `grain` draws
// (dist::share_of) and made at most `chunk` at a time: draw(first, m) makes
// draws first .. first + m - 1 (global indices), each chunk tallied (progress
// between them); `unit` names what a chunk's indices answer in a size
// mismatch. Where a chunk has a seed of its own (seed + first / chunk), the
// grain is the chunk; a table's draws are keyed by their index alone, so its
// grain is finer. Either way each draw, and its batch (its global index mod
// 20), is the same for any number of ranks.
template <class T, class Draw>
std::string law_in_chunks(const dist::Communicator& comm, std::uint64_t n, std::uint64_t grain, std::uint64_t chunk, const char* unit,
                          const std::vector<T>& w, LawCounter& counter, const std::function<void(std::uint64_t)>& progress, Draw&& draw) {
  std::string failure;
  const dist::Share share = dist::share_of(n, grain, comm.rank(), comm.size());
  const std::uint64_t end = share.first + share.count;
  counter.start_at(share.first);
  for (std::uint64_t first = share.first; first < end; first += chunk) {
    const std::uint64_t m = std::min(chunk, end - first);
    const auto idx = draw(first, m);
    if (idx.size() != m) return "in_range: " + std::to_string(idx.size()) + " indices for " + std::to_string(m) + unit;
    tally(idx, w, first, counter, failure);
    progress(first + m - share.first);
    fault_point(comm, first + m - share.first, share.count);
  }
  return failure;
}

// One draw a row: rows that are each a copy of the weights.
template <class T>
std::string law_through_sampler(const dist::Communicator& comm, const properties::Sampler& s, const std::vector<T>& w, std::uint64_t n, std::uint64_t seed, LawCounter& counter,
                                const std::function<void(std::uint64_t)>& progress) {
  const std::uint64_t chunk = std::max<std::uint64_t>(1, (std::uint64_t{1} << 22) / w.size());
  return law_in_chunks(comm, n, chunk, chunk, " rows", w, counter, progress, [&](std::uint64_t first, std::uint64_t m) {
    properties::Matrix<T> x{static_cast<int>(m), static_cast<int>(w.size()), {}};
    x.weights.reserve(static_cast<std::size_t>(m) * w.size());
    for (std::uint64_t r = 0; r < m; ++r) x.weights.insert(x.weights.end(), w.begin(), w.end());
    return s.draw(x, seed + first / chunk);
  });
}

// A table sampler: one table, draws first .. n - 1.
template <class T>
std::string law_through_table(const dist::Communicator& comm, const properties::Sampler& s, const std::vector<T>& w, std::uint64_t n, std::uint64_t seed, LawCounter& counter,
                              const std::function<void(std::uint64_t)>& progress) {
  return law_in_chunks(comm, n, std::uint64_t{1} << 12, std::uint64_t{1} << 22, " draws", w, counter, progress,
                       [&](std::uint64_t first, std::uint64_t m) { return s.many<T>(w, seed, first, m); });
}

// S draws a row (Sampler::draw_rows): one row of the weights, S = 2^22 draws
// at a time, each chunk's from its own seed -- the multinomial's use, whose
// draws of one row must be independent of each other.
template <class T>
std::string law_through_row_draws(const dist::Communicator& comm, const properties::Sampler& s, const std::vector<T>& w, std::uint64_t n, std::uint64_t seed, LawCounter& counter,
                                  const std::function<void(std::uint64_t)>& progress) {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 22;
  const properties::Matrix<T> x{1, static_cast<int>(w.size()), w};
  return law_in_chunks(comm, n, chunk, chunk, " draws of one row", w, counter, progress,
                       [&](std::uint64_t first, std::uint64_t m) { return s.draw_rows(x, seed + first / chunk, static_cast<int>(m)); });
}

// The sampler's entries that leave their draws on the device, where it has them.
template <class T>
const properties::DeviceMatrixDraw<T>& device_draw(const properties::Sampler& s) {
  if constexpr (sizeof(T) == 4) return s.device32; else return s.device64;
}
template <class T>
const properties::DeviceRowDraws<T>& device_rows(const properties::Sampler& s) {
  if constexpr (sizeof(T) == 4) return s.device_rows32; else return s.device_rows64;
}
template <class T>
const properties::DeviceManyDraw<T>& device_many(const properties::Sampler& s) {
  if constexpr (sizeof(T) == 4) return s.device_many32; else return s.device_many64;
}

// How the law's draws are made: a table's, one draw a row, S draws of one row.
enum class LawWay { Table, OneDrawARow, DrawsOfOneRow };

// The law's draws made and counted on the device (the GPU entries'
// device_* forms): the indices never leave it, the counts come back once.
// The same draws as the host paths above, shared over the ranks the same
// way: a table's 2^26 at a time (its draws keyed by their index alone), one
// draw a row in chunks of 2^22 / K rows and S draws of one row in chunks of
// 2^22, each chunk from seed + first / chunk.
template <class T>
std::string law_on_device(const dist::Communicator& comm, const properties::Sampler& s, LawWay way, const std::vector<T>& w, std::uint64_t n,
                          std::uint64_t seed, LawCounter& counter, const std::function<void(std::uint64_t)>& progress) {
  const LawCounts& d = counter.data();
  device::LawTally tally(std::vector<double>(w.begin(), w.end()), d.cell_of, d.cells, d.batched ? kBatches : 0);
  const std::uint64_t k = w.size();
  const std::uint64_t chunk = way == LawWay::Table          ? std::uint64_t{1} << 26
                              : way == LawWay::OneDrawARow ? std::max<std::uint64_t>(1, (std::uint64_t{1} << 22) / k)
                                                           : std::uint64_t{1} << 22;
  const dist::Share share = dist::share_of(n, way == LawWay::Table ? std::uint64_t{1} << 12 : chunk, comm.rank(), comm.size());
  const std::uint64_t end = share.first + share.count, most = std::max<std::uint64_t>(1, std::min(chunk, share.count));
  device::Buffer out(most * sizeof(std::int32_t), "the law's draws");
  std::optional<device::Buffer> rows;
  if (way != LawWay::Table) {  // the rows (one draw a row: each a copy of the weights) on the device once
    const std::uint64_t copies = way == LawWay::OneDrawARow ? most : 1;
    std::vector<T> x;
    x.reserve(copies * k);
    for (std::uint64_t r = 0; r < copies; ++r) x.insert(x.end(), w.begin(), w.end());
    rows.emplace(x.size() * sizeof(T), "the law's rows");
    rows->upload(x.data(), x.size() * sizeof(T));
  }
  auto* idx = static_cast<std::int32_t*>(out.get());
  for (std::uint64_t first = share.first; first < end; first += chunk) {
    const std::uint64_t m = std::min(chunk, end - first);
    const auto* dw = rows ? static_cast<const T*>(rows->get()) : nullptr;
    if (way == LawWay::Table) {
      device_many<T>(s)(w, seed, first, m, idx);
    } else if (way == LawWay::OneDrawARow) {
      device_draw<T>(s)(dw, static_cast<int>(m), static_cast<int>(k), seed + first / chunk, idx);
    } else {
      device_rows<T>(s)(dw, 1, static_cast<int>(k), seed + first / chunk, static_cast<int>(m), idx);
    }
    tally.add(idx, m, first);
    progress(first + m - share.first);
    fault_point(comm, first + m - share.first, share.count);
  }
  const auto c = tally.counts();
  if (d.batched) counter.add_batched_counts(c.counts, c.batch_counts);
  else counter.add_counts(c.counts);
  // The first failing draw, as the host's tally words it.
  if (c.out_of_range > 0 && (c.zero_weight == 0 || c.first_out_of_range < c.first_zero_weight)) {
    return "in_range: draw " + std::to_string(c.first_out_of_range) + " is " + std::to_string(tally.first_out_of_range_index());
  }
  if (c.zero_weight > 0) {
    return "zero_never_drawn: draw " + std::to_string(c.first_zero_weight) + " is " + std::to_string(static_cast<std::int64_t>(c.first_zero_weight_index)) +
           ", of weight 0";
  }
  return "";
}

template <class T>
std::string law_row_draws(const dist::Communicator& comm, const properties::Sampler& s, const std::vector<T>& w, std::uint64_t n, std::uint64_t seed,
                          LawCounter& counter, const std::function<void(std::uint64_t)>& progress) {
  if (device_rows<T>(s)) return law_on_device(comm, s, LawWay::DrawsOfOneRow, w, n, seed, counter, progress);
  return law_through_row_draws(comm, s, w, n, seed, counter, progress);
}

template <class T>
std::string law_draws(const dist::Communicator& comm, const properties::Sampler& s, const std::vector<T>& w, std::uint64_t n, std::uint64_t seed,
                      LawCounter& counter, const std::function<void(std::uint64_t)>& progress) {
  if (s.draws_many() ? static_cast<bool>(device_many<T>(s)) : static_cast<bool>(device_draw<T>(s))) {
    return law_on_device(comm, s, s.draws_many() ? LawWay::Table : LawWay::OneDrawARow, w, n, seed, counter, progress);
  }
  return s.draws_many() ? law_through_table(comm, s, w, n, seed, counter, progress) : law_through_sampler(comm, s, w, n, seed, counter, progress);
}

// Every rank's counts summed (as 64-bit integers), on every rank; the first
// failing draw is the lowest rank's first, since ranks hold contiguous
// shares in rank order.
void reduce_law(const dist::Communicator& comm, const std::vector<double>& p, LawCounter& counter, std::string& failure) {
  if (!comm.distributed()) return;
  const LawCounts& d = counter.data();
  std::vector<std::uint64_t> all(d.counts.size() + d.batch_counts.size() + 1);
  for (std::size_t i = 0; i < d.counts.size(); ++i) all[i] = static_cast<std::uint64_t>(d.counts[i]);
  for (std::size_t i = 0; i < d.batch_counts.size(); ++i) all[d.counts.size() + i] = static_cast<std::uint64_t>(d.batch_counts[i]);
  all.back() = d.batched ? 1 : 0;
  comm.sum(all);
  const bool batched = all.back() == static_cast<std::uint64_t>(comm.size());  // every rank kept its batches
  LawCounter total = batched ? LawCounter{std::span<const double>(p)} : LawCounter{static_cast<std::uint64_t>(p.size())};
  const std::span<const std::uint64_t> counts(all.data(), d.counts.size());
  if (batched) {
    total.add_batched_counts(counts, std::span<const std::uint64_t>(all.data() + d.counts.size(), d.batch_counts.size()));
  } else {
    total.add_counts(counts);
  }
  counter = std::move(total);
  for (const auto& f : comm.gather(failure)) {
    if (!f.empty()) {
      failure = f;
      return;
    }
  }
  failure.clear();
}

// The law of n draws of `weights`, through the sampler's one draw (or its
// plugin's law entry), or through S draws of one row (row_draws).
template <class T>
void law_check(const dist::Communicator& comm, SamplerUnderTest& s, const std::vector<double>& weights, const std::string& label, std::uint64_t n, std::uint64_t seed,
               double alpha_each, Progress& progress, Report& report, bool row_draws = false) {
  std::vector<T> w(weights.begin(), weights.end());
  const auto p = probabilities_of(weights);
  LawCounter counter{std::span<const double>(p)};
  const dist::Share share = dist::share_of(n, 1, comm.rank(), comm.size());
  progress.start("draws (" + label + ")" + (comm.distributed() ? ", this rank's share" : ""), comm.distributed() ? share.count : n);
  auto tick = [&](std::uint64_t done) { progress.update(done); };
  std::string failure;
  if (row_draws) {
    if constexpr (sizeof(T) == 4) {
      failure = s.row_law32 ? s.row_law32(comm, w, n, seed, counter, tick) : law_row_draws(comm, s.sampler, w, n, seed, counter, tick);
    } else {
      failure = s.row_law64 ? s.row_law64(comm, w, n, seed, counter, tick) : law_row_draws(comm, s.sampler, w, n, seed, counter, tick);
    }
  } else if constexpr (sizeof(T) == 4) {
    failure = s.law32 ? s.law32(comm, w, n, seed, counter, tick) : law_draws(comm, s.sampler, w, n, seed, counter, tick);
  } else {
    failure = s.law64 ? s.law64(comm, w, n, seed, counter, tick) : law_draws(comm, s.sampler, w, n, seed, counter, tick);
  }
  progress.finish();
  reduce_law(comm, p, counter, failure);
  if (s.take_error) {
    if (auto e = s.take_error(); !e.empty()) throw UsageError(e);
  }
  if (!failure.empty()) {
    const auto colon = failure.find(':');
    report.checks.push_back({failure.substr(0, colon) + " (" + label + ")", Outcome::Fail, failure.substr(colon + 2), std::nullopt});
  }
  if (counter.draws() > 0) law_checks(counter.data(), p, {.alpha_each = alpha_each, .label = label}, report);
}

// RapidCheck announces its configuration on standard error the first time it
// is used ("Using configuration: seed=..."); a report has its own seed.
void quiet_rapidcheck() {
  static const bool done = [] {
    std::ostringstream sink;
    auto* old = std::cerr.rdbuf(sink.rdbuf());
    try {
      rc::detail::configuration();
    } catch (...) {
      std::cerr.rdbuf(old);
      throw;
    }
    std::cerr.rdbuf(old);
    return true;
  }();
  (void)done;
}

}  // namespace

void choose_view(Counterexample& c, const std::string& algorithm) {
  const properties::Algorithm* a = nullptr;
  try {
    a = &properties::find_algorithm(algorithm);
  } catch (const std::invalid_argument&) {
    a = nullptr;  // a plugin's sampler: no registry row
  }
  const auto cols = static_cast<std::size_t>(c.cols);
  using properties::Family;
  if (a && a->family == Family::SumTree) {
    if (cols <= kSumTreeViewMaxItems) c.show = {"sum-tree"};
  } else if (a && a->family == Family::AliasTable) {
    if (cols <= kAliasViewMaxItems) {
      c.show = {"alias-sample", "--method", a->alias.psa_plus_group ? "psa+" : "psa"};
      if (a->alias.psa_plus_group) c.show.insert(c.show.end(), {"--group", std::to_string(std::min(a->alias.psa_plus_group, cols))});
      if (a->alias.section_rows) c.show.insert(c.show.end(), {"--section-rows", std::to_string(a->alias.section_rows)});
    }
  } else if (a && a->family == Family::BringmannLarsen) {
    if (cols <= kRejectionViewMaxItems) c.show = {"rejection"};
  } else if (cols <= static_cast<std::size_t>(kShowMaxK)) {
    c.show_two_lanes = true;
    const bool butterfly = a && a->name.rfind("butterfly-", 0) == 0;
    c.show = butterfly ? std::vector<std::string>{"butterfly", "--variant", a->name == "butterfly-addsub" ? "addsub" : "standard"}
                       : std::vector<std::string>{"prefix"};
    c.show.insert(c.show.end(), {"--lanes", "2", "--k", std::to_string(c.cols)});
  }
}

std::vector<double> law_weights() {
  // A shuffled power law (w_i = 1 / (1 + i), exponent 1), two weights set to
  // 0: what a sampler that mishandles order, tails or zeros gets wrong.
  std::vector<double> w(kLawK);
  for (int i = 0; i < kLawK; ++i) w[static_cast<std::size_t>((i * 37 + 11) % kLawK)] = 1.0 / (1 + i);
  w[5] = 0;
  w[40] = 0;
  return w;
}

std::uint64_t draws_for_target(double target_tv, double alpha_each, int processes) {
  const double n = stats::sample_size_for_total_variation(kLawK - 3, alpha_each, 0.9, target_tv);
  if (!(n <= 1e12 * processes)) {
    throw UsageError("--target-tv " + stats::number_text(target_tv) + " needs " + stats::number_text(n) + " draws, more than 10^12" +
                     (processes > 1 ? " a process (" + std::to_string(processes) + " processes)" : " (mpirun -np R shares them over R processes)"));
  }
  return static_cast<std::uint64_t>(std::ceil(n));
}

Report check_sampler_report(const InputSource& inputs, SamplerUnderTest& s, const SamplerOptions& o, Progress& progress) {
  const dist::Communicator alone = dist::Communicator::self();
  const dist::Communicator& comm = o.comm ? *o.comm : alone;
  const bool lead = comm.rank() == 0;  // the properties run here; the other ranks make their share of the law's draws
  Report report;
  report.kind = s.kind;
  report.subject = s.subject;
  report.alpha = o.alpha;
  if (const auto why = s.sampler.unavailable(); !why.empty()) throw UsageError(s.subject + " cannot run here: " + why);
  const bool f32 = static_cast<bool>(s.sampler.f32), f64 = static_cast<bool>(s.sampler.f64);
  auto plugin_error = [&] {
    if (s.take_error) {
      if (auto e = s.take_error(); !e.empty()) throw UsageError(e);
    }
  };
  const char* replayable = s.sampler.determinism == properties::Determinism::Replayable ? ""
                           : s.sampler.determinism == properties::Determinism::Mapped
                               ? " (scalar_definition skipped: its draws follow its own mapping of rng/, checked in law)"
                               : " (scalar_definition skipped: not replayable)";

  std::vector<double> law = law_weights();
  std::string law_label = "a shuffled power law of 64 weights, 2 of them 0";
  if (o.row_draws != 0 && o.weights.empty()) throw UsageError("--row-draws replays a saved S-draw failure: it goes with --weights");
  if (!o.weights.empty()) {
    // Replay: the properties on the given matrix.
    const auto w = read_weights(inputs, o.weights, o.dtype);
    if (w.fp32 ? !f32 : !f64) throw UsageError(s.subject + " takes no " + (w.fp32 ? "fp32" : "fp64") + " weights (pass --dtype)");
    if (o.row_draws != 0 && (w.fp32 ? !s.sampler.rows32 : !s.sampler.rows64)) {
      throw UsageError("--row-draws: " + s.subject + " makes one draw a row, not S (" + (w.fp32 ? "fp32" : "fp64") + ")");
    }
    auto run = [&](auto zero) {
      using T = decltype(zero);
      if (!lead) return;
      properties::Matrix<T> m{static_cast<int>(w.rows), static_cast<int>(w.cols), {}};
      m.weights.assign(w.values.begin(), w.values.end());
      auto verdicts = properties::all_properties(s.sampler, m, o.seed);
      const auto& build = [&]() -> const properties::TableBuild<T>& {
        if constexpr (sizeof(T) == 4) return s.sampler.table32; else return s.sampler.table64;
      }();
      if (build) {  // a table builder: each row's table against its weights
        properties::Verdict v = properties::Verdict::pass("table_implies_weights");
        for (int r = 0; r < m.rows && v.ok; ++r) v = properties::table_implies_weights<T>(m.row(r), build(m.row(r)), r);
        verdicts.push_back(v);
      }
      plugin_error();
      const std::string on = "on the " + std::to_string(w.rows) + " x " + std::to_string(w.cols) + " weights in " + w.quoted + ", seed " + std::to_string(o.seed);
      for (const auto& v : verdicts) report.checks.push_back({v.property, of(v), v.ok ? on : v.detail, std::nullopt});
      if (o.row_draws != 0) {  // a saved S-draw failure: the S-draw properties with its S
        const std::string s_draws = " (" + std::to_string(o.row_draws) + " draws a row)";
        for (const auto& v : properties::all_row_draw_properties(s.sampler, m, o.seed, o.row_draws)) {
          report.checks.push_back({v.property + s_draws, of(v), v.ok ? on : v.detail, std::nullopt});
        }
        plugin_error();
      }
    };
    if (w.fp32) run(0.0f); else run(0.0);
    if (w.vector) {
      law = w.values;
      law_label = "the weights in " + w.quoted;
    } else {
      law.clear();
    }
    if (!law.empty()) {
      const int tests = law_check_count(true);
      const double each = o.alpha / tests;
      const std::uint64_t n = o.draws.value_or(draws_for_target(o.target_tv, each, comm.size()));
      if (w.fp32) law_check<float>(comm, s, law, law_label, n, o.seed, each, progress, report);
      else law_check<double>(comm, s, law, law_label, n, o.seed, each, progress, report);
      report.notes.push_back("the statistical checks run at alpha / " + std::to_string(tests) + " each");
    }
    return report;
  }

  // 1. The properties on generated inputs.
  quiet_rapidcheck();
  properties::CheckOptions co;
  co.tests = o.tests;
  co.max_rows = o.max_rows;
  co.max_cols = o.max_cols;
  co.seed = o.seed;
  co.shrink_seconds = o.shrink_seconds;
  // The first failure's shrunk input: saved, with the commands that replay it.
  auto record = [&](const properties::Report& r) {
    if (!r.ok && !report.counterexample && r.failing) {
      Counterexample c;
      c.property = r.property;
      c.dtype = r.failing->dtype;
      c.seed = r.failing->seed;
      c.rows = r.failing->rows;
      c.cols = r.failing->cols;
      c.failing_row = r.failing->row;
      c.draws = r.failing->draws;
      c.weights = r.failing->weights;
      c.detail = r.text;
      save(c, o.counterexample_file);
      const std::string file = c.file.empty() ? "FILE" : c.file;
      c.replay.push_back(o.replay_prefix + " --weights " + file + " --seed " + std::to_string(c.seed) + " --dtype " + (c.dtype == "fp32" ? "f32" : "f64") +
                         (c.draws > 0 ? " --row-draws " + std::to_string(c.draws) : ""));
      choose_view(c, s.kind == "builtin" ? s.sampler.algorithm : std::string());  // (a plugin's names are its own)
      if (!c.show.empty()) {
        const std::string line = std::to_string(c.failing_row + 1);
        std::string view;
        for (const auto& a : c.show) view += " " + a;
        c.replay.push_back("sed -n '" + line + "p" + (c.show_two_lanes ? ";" + line + "p" : "") + "' " + file + " | warpsim show" + view +
                           " --weights - --step final");
      }
      report.counterexample = std::move(c);
    }
  };
  // One property check in one precision: run, report, keep its counterexample.
  auto check = [&](bool fp32, const std::string& what, const std::string& check_name, const auto& run, const std::string& passed) {
    if (!lead) return;
    co.fp32 = fp32;
    co.fp64 = !fp32;
    const std::string dtype = fp32 ? "fp32" : "fp64";
    progress.start(what + " (" + dtype + ")", std::nullopt);
    const properties::Report r = run();
    progress.finish();
    plugin_error();
    report.checks.push_back({check_name + " (" + dtype + ")", r.ok ? Outcome::Pass : Outcome::Fail,
                             r.ok ? passed : r.property + " fails; shrunk counterexample below", std::nullopt});
    record(r);
  };
  for (const bool fp32 : {true, false}) {
    if (fp32 ? !f32 : !f64) continue;
    check(fp32, "property tests", "properties", [&] { return properties::check_sampler(s.sampler, co); },
          std::to_string(o.tests) + " generated inputs of every weight family, M up to " + std::to_string(o.max_rows) + ", K up to " +
              std::to_string(o.max_cols) + ": in_range, zero_never_drawn, single_nonzero, scalar_definition, same_seed" + replayable);
  }
  // 1b. A table builder's tables against their weights.
  for (const bool fp32 : {true, false}) {
    if (fp32 ? !s.sampler.table32 : !s.sampler.table64) continue;
    check(fp32, "alias tables", "table_implies_weights", [&] { return properties::check_table_builder(s.sampler, co); },
          "the alias table of every row of " + std::to_string(o.tests) +
              " generated inputs implies its weights' distribution within the format's resolution, and gives nothing to a weight of 0");
  }

  // 1c. S draws a row, where the sampler makes them.
  for (const bool fp32 : {true, false}) {
    if (fp32 ? !s.sampler.rows32 : !s.sampler.rows64) continue;
    check(fp32, "S draws a row", "row_draws", [&] { return properties::check_row_draws(s.sampler, co); },
          std::to_string(o.tests) + " generated inputs, S from 1 to " + std::to_string(co.max_draws) +
              " draws a row: in_range, zero_never_drawn, single_nonzero (each draw of every row), " +
              (s.sampler.row_draws_begin_with_the_one_draw ? "first_draw (draw 0 is the one draw), " : "") + "same_seed");
  }

  // 2. The law, in each precision: through the one draw of many rows, and
  // where the sampler makes S draws a row, through S draws of one row.
  const bool r32 = static_cast<bool>(s.sampler.rows32), r64 = static_cast<bool>(s.sampler.rows64);
  const int laws = (f32 ? 1 : 0) + (f64 ? 1 : 0) + (r32 ? 1 : 0) + (r64 ? 1 : 0);
  const int tests = laws * law_check_count(true);
  const double each = o.alpha / tests;
  const std::uint64_t n = o.draws.value_or(draws_for_target(o.target_tv, each, comm.size()));
  if (f32) law_check<float>(comm, s, law, law_label + " (fp32)", n, o.seed, each, progress, report);
  if (f64) law_check<double>(comm, s, law, law_label + " (fp64)", n, o.seed + 1000003, each, progress, report);
  if (r32) law_check<float>(comm, s, law, law_label + " (fp32, S draws of one row)", n, o.seed + 2000006, each, progress, report, true);
  if (r64) law_check<double>(comm, s, law, law_label + " (fp64, S draws of one row)", n, o.seed + 3000009, each, progress, report, true);
  report.notes.push_back("the law check takes " + std::to_string(n) + " draws a precision" + (r32 || r64 ? " (and as many of one row)" : "") +
                         (o.draws ? " (--draws)" : ", what detects a total-variation bias of " + stats::number_text(o.target_tv) + " with power 0.9 (--target-tv)") +
                         "; its " + std::to_string(tests) + " statistical checks run at alpha / " + std::to_string(tests) + " each");
  return report;
}

Report mutants_report(const SamplerOptions& o, bool cuda, const std::string& only, Progress& progress) {
  Report report;
  report.kind = "mutants";
  report.subject = std::string("the seeded-bug catalogue (properties/mutants.hpp): the warp-per-row sampler with one bug each, ") +
                   (cuda ? "host and CUDA forms" : "host forms on the warp model");
  report.alpha = o.alpha;
  bool value_only = false;
  if (!only.empty()) {
    bool known = false;
    std::string names;
    for (const auto& m : properties::mutants()) {
      known = known || m.name == only;
      names += (names.empty() ? "" : ", ") + m.name;
    }
    for (const auto& m : properties::value_mutants()) {
      value_only = value_only || m.name == only;
      names += ", " + m.name;
    }
    if (!known && !value_only) throw UsageError("no mutant '" + printable(only) + "' (known: " + names + ")");
  }
  if (cuda) {
    if (auto why = properties::cuda_mutant(properties::Mutation::None).unavailable(); !why.empty()) {
      throw UsageError("--on gpu: the CUDA forms cannot run here: " + why);
    }
  }
  properties::CheckOptions co;
  co.tests = o.tests;
  co.seed = o.seed;
  co.shrink_seconds = o.shrink_seconds;
  quiet_rapidcheck();
  progress.start("mutants", std::nullopt);
  properties::MutationScore score;
  if (!value_only) {
    try {
      score = properties::mutation_score(co, cuda, only);
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  }
  progress.finish();
  for (const auto& r : score.results) {
    std::string bug;
    for (const auto& m : properties::mutants())
      if (m.name == r.name) bug = m.bug;
    report.mutants.push_back({r.name, r.form, bug, r.property, r.killed, r.seconds, r.counterexample});
  }
  // The samplers of values (host forms): judged as `--builtin gamma` is.
  for (auto& line : value_mutant_lines(only, o.seed, o.alpha, progress)) report.mutants.push_back(std::move(line));
  report.checks.push_back({"correct sampler", Outcome::Pass,
                           "the unmutated warp-per-row sampler passes every property, and the unmutated gamma sampler every check at each law (checked first)",
                           std::nullopt});
  report.notes.push_back("a mutant is killed when a property fails on it; the score is killed / total");
  return report;
}

}  // namespace warpsim::cli::validate
