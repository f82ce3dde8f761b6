#include "cli/validate/rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>

#include "rng/philox_uniform.hpp"
#include "stats/input_checks.hpp"
#include "stats/ks_discrete.hpp"

namespace warpsim::cli::validate {

namespace {

std::string four_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

struct RowChecks::State {
  const std::vector<double>& weights;
  std::uint64_t rows, cols;
  std::vector<std::uint64_t> seeds;
  bool keep_laws;  // every row's law kept: rows_score, rows_binomial, rows_chi_square
  std::vector<stats::RowLaw> laws;
  std::vector<stats::RowCounts> counts;
  std::unique_ptr<stats::RowLaw> current;
  std::uint64_t current_row = UINT64_MAX;
  // pass 1
  std::uint64_t row = UINT64_MAX;
  std::vector<std::uint32_t> row_draws;  // the current row's indices
  std::uint64_t most_a_row = 0, draws = 0;
  std::vector<WorstRow> worst;
  bool counts_kept = true;
  std::uint64_t fingerprint = 0x9e3779b97f4a7c15ULL;
  double log_likeliest = 0, row_log_max = 0;  // log of the draws' likeliest outcome; of the current row's heaviest category
  // pass 2
  bool pit_done = false;
  std::uint64_t pit_row = UINT64_MAX, pit_j = 0;
  std::vector<double> even_u;  // the even row's index-order PITs, for its pair
  std::vector<double> pair_d;
  stats::PitHistogram pit{kPitBins};

  const std::vector<stats::RowLaw>* built;

  State(const std::vector<double>& w, std::uint64_t m, std::uint64_t k, std::vector<std::uint64_t> sd, const std::vector<stats::RowLaw>* b)
      : weights(w), rows(m), cols(k), seeds(std::move(sd)), keep_laws(m * k <= kRowsChiSquareMaxWeights), built(b) {
    if (keep_laws) counts.resize(static_cast<std::size_t>(m));
  }

  const stats::RowLaw& law_of(std::uint64_t r) {
    if (built) {
      return (*built)[static_cast<std::size_t>(r)];
    }
    if (keep_laws) {
      while (laws.size() <= r) {
        const auto i = laws.size();
        laws.emplace_back(std::span<const double>(weights.data() + i * cols, static_cast<std::size_t>(cols)));
      }
      return laws[static_cast<std::size_t>(r)];
    }
    if (current_row != r) {
      current = std::make_unique<stats::RowLaw>(std::span<const double>(weights.data() + r * cols, static_cast<std::size_t>(cols)));
      current_row = r;
    }
    return *current;
  }

  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  void note_worst(WorstRow w) {
    worst.push_back(std::move(w));
    std::sort(worst.begin(), worst.end(), [](const WorstRow& a, const WorstRow& b) { return a.score > b.score || (a.score == b.score && a.row < b.row); });
    if (worst.size() > 10) worst.pop_back();
  }

  // The row's draws are all in: its counts, and its standing.
  void close_row() {
    if (row == UINT64_MAX || row_draws.empty()) return;
    const auto& law = law_of(row);
    std::sort(row_draws.begin(), row_draws.end());
    std::vector<std::pair<std::uint32_t, double>> drawn;
    for (std::size_t a = 0; a < row_draws.size();) {
      std::size_t b = a;
      while (b < row_draws.size() && row_draws[b] == row_draws[a]) ++b;
      drawn.emplace_back(row_draws[a], static_cast<double>(b - a));
      a = b;
    }
    const double s = static_cast<double>(row_draws.size());
    most_a_row = std::max<std::uint64_t>(most_a_row, row_draws.size());
    if (row_draws.size() == 1) {
      // one draw: how improbable was it under this row's law
      const auto x = row_draws[0];
      note_worst({row, "drew " + std::to_string(x) + " (probability " + four_digits(law.p(x)) + "; the heavier categories hold " + four_digits(law.before_heavier(x)) +
                           " of the row)",
                  -std::log(law.p(x))});
    } else {
      double x2 = -s, top = 0;
      std::uint32_t top_i = 0;
      std::size_t positive = 0;
      for (std::size_t i = 0; i < law.size(); ++i) positive += law.p(i) > 0;
      for (const auto& [i, c] : drawn) {
        x2 += c * c / (s * law.p(i));
        if (c > top) top = c, top_i = i;
      }
      const double df = std::max(1.0, static_cast<double>(positive) - 1);
      note_worst({row, std::to_string(row_draws.size()) + " draws: chi-square " + four_digits(x2) + " over " + std::to_string(positive) + " categories; most drawn " +
                           std::to_string(top_i) + ", " + four_digits(top) + " times, " + four_digits(s * law.p(top_i)) + " expected",
                  (x2 - df) / std::sqrt(2 * df)});
    }
    if (keep_laws && counts_kept) counts[static_cast<std::size_t>(row)].drawn = std::move(drawn);
    row_draws.clear();
  }
};

RowChecks::RowChecks(const std::vector<double>& weights, std::uint64_t rows, std::uint64_t cols, std::vector<std::uint64_t> seeds,
                     const std::vector<stats::RowLaw>* built)
    : s_(std::make_unique<State>(weights, rows, cols, std::move(seeds), built)) {}

RowChecks::~RowChecks() = default;

void RowChecks::add(std::uint64_t, std::uint64_t r, std::uint64_t x) {
  auto& s = *s_;
  if (r != s.row) {
    s.close_row();
    s.row = r;
    const auto& law = s.law_of(r);
    double most = 0;
    for (std::size_t i = 0; i < law.size(); ++i) most = std::max(most, law.p(i));
    s.row_log_max = std::log(most);
  }
  s.log_likeliest += s.row_log_max;
  s.fingerprint = State::mix(s.fingerprint ^ State::mix(r * 0x100000001b3ULL + x + 1));
  s.row_draws.push_back(static_cast<std::uint32_t>(x));
  if (++s.draws > kRowsChiSquareMaxDraws) s.counts_kept = false;
}

bool RowChecks::wants_pit_pass() {
  s_->close_row();
  return s_->draws > 0 && s_->log_likeliest <= std::log(kPitMostLikelyOutcome);
}

void RowChecks::pit(std::uint64_t e, std::uint64_t r, std::uint64_t x) {
  auto& s = *s_;
  s.pit_done = true;
  const auto& law = s.law_of(r);
  if (r != s.pit_row) {
    s.pit_row = r;
    s.pit_j = 0;
    if (r % 2 == 0) s.even_u.clear();
  }
  const double v = rng::uniform<double>(s.fingerprint, e);
  s.pit.add(law, static_cast<std::size_t>(x), v);
  const double u = stats::randomised_pit(law, static_cast<std::size_t>(x), v, stats::PitOrder::Index);
  // rows (2i, 2i + 1) paired draw by draw
  if (r % 2 == 0) {
    s.even_u.push_back(u);
  } else if (s.pit_j < s.even_u.size() && s.pair_d.size() < kIndependencePairs &&
             (s.seeds.empty() || s.seeds[static_cast<std::size_t>(r)] != s.seeds[static_cast<std::size_t>(r - 1)])) {
    s.pair_d.push_back((s.even_u[s.pit_j] - u) * (s.even_u[s.pit_j] - u));
  }
  ++s.pit_j;
}

int RowChecks::check_count() {
  s_->close_row();
  return s_->most_a_row >= 2 ? 6 : 5;
}

void RowChecks::finish(double alpha, const std::string& label, Report& report, const std::string& no_pit_pass) {
  auto& s = *s_;
  s.close_row();
  auto pit_check = [&](const char* name, stats::PitOrder order, const char* which) {
    const auto t = stats::pit_uniformity_test(s.pit.counts(order), alpha);
    report.checks.push_back({name, t.reject ? Outcome::Fail : Outcome::Pass,
                             label + ": every draw's randomised PIT under its own row (" + which + "), " + std::to_string(s.pit.draws()) + " draws in " +
                                 std::to_string(kPitBins) + " bins, against the uniform law: KS p = " + four_digits(t.p_value) + " (" + t.p_value_method +
                                 ") at alpha " + four_digits(alpha) + "; a pass rules out, with power 0.9, PITs whose CDF is >= " +
                                 four_digits(t.detectable.kolmogorov_distance.value_or(1)) + " from the uniform one",
                             t});
  };
  const bool fixed = s.log_likeliest > std::log(kPitMostLikelyOutcome);
  if (!s.pit_done) {
    const std::string why = fixed ? "the draws are nearly fixed (their likeliest outcome together has probability " +
                                        four_digits(std::exp(s.log_likeliest)) + "): PITs would follow the uniforms, not the draws"
                                  : no_pit_pass.empty() ? "no draws" : no_pit_pass;
    for (const char* name : {"pit_heaviest", "pit_index", "rows_independent"})
      report.checks.push_back({name, Outcome::Skipped, label + ": " + why, std::nullopt});
  } else {
    pit_check("pit_heaviest", stats::PitOrder::Heaviest, "each row's categories heaviest first");
    pit_check("pit_index", stats::PitOrder::Index, "in index order");
    if (s.pair_d.empty()) {
      report.checks.push_back({"rows_independent", Outcome::Skipped,
                               label + ": no pair of rows to compare" + std::string(s.seeds.empty() ? "" : " (pairs of equal seeds are left out)"),
                               std::nullopt});
    } else {
      const auto t = stats::rows_independence_test(s.pair_d, alpha);
      double mean = 0;
      for (double d : s.pair_d) mean += d;
      mean /= static_cast<double>(s.pair_d.size());
      report.checks.push_back({"rows_independent", t.reject ? Outcome::Fail : Outcome::Pass,
                               label + ": rows (0, 1), (2, 3), ... draw by draw, " + std::to_string(s.pair_d.size()) +
                                   " pairs: mean squared difference of their PITs " + four_digits(mean) + " against 1/6 for independent rows; p = " +
                                   four_digits(t.p_value) + " (" + t.p_value_method + ")" + (s.seeds.empty() ? "" : "; pairs of equal seeds left out") +
                                   "; a pass rules out, with power 0.9, a mean off 1/6 by >= " + four_digits(t.detectable.mean_shift.value_or(1)) +
                                   " (rows that share a uniform: 1/6)",
                               t});
    }
  }
  // laws are built up to the last row that drew; the rows after it hold no counts
  const std::span<const stats::RowLaw> laws = s.built ? std::span<const stats::RowLaw>(*s.built) : std::span<const stats::RowLaw>(s.laws);
  const auto kept_counts = std::span<const stats::RowCounts>(s.counts).first(std::min(s.counts.size(), laws.size()));
  const auto kept_laws = laws.first(kept_counts.size());
  const std::string not_kept = label + ": more than 2^22 weights or 2^26 draws: the rows' laws and counts are not all kept";
  if (!s.keep_laws || !s.counts_kept) {
    report.checks.push_back({"rows_score", Outcome::Skipped,
                             not_kept, std::nullopt});
  } else {
    const auto t = stats::rows_score_test(kept_laws, kept_counts, alpha, std::nullopt, kRowsChiSquareWork);
    report.checks.push_back({"rows_score", t.reject ? Outcome::Fail : Outcome::Pass,
                             label + ": the draws' log-probabilities under their rows, summed, against their expectation: |T - E T| = " +
                                 four_digits(t.statistic) + ", p = " + four_digits(t.p_value) + " (" + t.p_value_method + ", the null drawn from the rows' laws)" +
                                 (t.notes.empty() ? "" : "; " + t.notes.front()) +
                                 (t.detectable.mean_shift ? "; a pass rules out, with power 0.9, draws whose mean log-probability under their rows is off "
                                                            "its expectation by >= " + four_digits(*t.detectable.mean_shift) + " nats a draw"
                                                          : std::string()),
                             t});
  }
  if (!s.keep_laws || !s.counts_kept) {
    report.checks.push_back({"rows_binomial", Outcome::Skipped,
                             not_kept, std::nullopt});
  } else {
    std::vector<stats::RowCell> cells;
    const auto t = stats::rows_binomial_test(kept_laws, kept_counts, alpha, &cells, 3);
    std::string worst;
    for (const auto& c : cells) {
      worst += (worst.empty() ? "; smallest p: row " : ", row ") + std::to_string(c.row) + " category " + std::to_string(c.category) + " drawn " +
               four_digits(c.count) + " times, " + four_digits(c.expected) + " expected (p " + four_digits(c.p_value) + ")";
    }
    report.checks.push_back({"rows_binomial", t.reject ? Outcome::Fail : Outcome::Pass,
                             label + ": every (row, category) by its exact binomial test, Bonferroni over the " + t.notes.front() + worst, t});
  }
  if (s.most_a_row >= 2) {
    if (!s.keep_laws || !s.counts_kept) {
      report.checks.push_back({"rows_chi_square", Outcome::Skipped,
                               not_kept, std::nullopt});
    } else {
      const auto t = stats::rows_chi_square_test(kept_laws, kept_counts, alpha, std::nullopt, kRowsChiSquareWork);
      report.checks.push_back({"rows_chi_square", t.reject ? Outcome::Fail : Outcome::Pass,
                               label + ": each row's chi-square against its own law, summed over the rows: " + four_digits(t.statistic) + " (df " +
                                   four_digits(t.df.value_or(0)) + "), p = " + four_digits(t.p_value) + " (" + t.p_value_method + ", the null drawn from the rows' laws)",
                               t});
    }
  }
  RowsView view;
  view.rows = s.rows;
  view.draws = s.draws;
  view.pit_heaviest.assign(s.pit.counts(stats::PitOrder::Heaviest).begin(), s.pit.counts(stats::PitOrder::Heaviest).end());
  view.pit_index.assign(s.pit.counts(stats::PitOrder::Index).begin(), s.pit.counts(stats::PitOrder::Index).end());
  view.worst = s.worst;
  report.rows = std::move(view);
}

}  // namespace warpsim::cli::validate
