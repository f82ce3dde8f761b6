#include "cli/validate/calibration.hpp"

#include <algorithm>
#include <atomic>
#include <boost/math/distributions/binomial.hpp>
#include <chrono>
#include <cmath>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

#include "cli/validate/calibration_detail.hpp"
#include "cli/validate/law.hpp"
#include "stats/stats.hpp"

namespace warpsim::cli::validate::calibration {

using detail::hash_text;
using detail::mix;
using detail::normalised;

const std::vector<std::string>& families() {
  static const std::vector<std::string> f{"uniform",   "power",     "one-heavy",  "tiny-1e-3",
                                          "tiny-1e-6", "tiny-1e-9", "tiny-1e-12", "rows-differ"};
  return f;
}


GridLaw make_law(const std::string& family, std::uint64_t k, int rows) {
  if (k < 2) throw std::invalid_argument("calibration: K must be at least 2");
  GridLaw law{family, k, {}};
  const auto n = static_cast<std::size_t>(k);
  std::vector<double> w(n, 1.0);
  if (family == "uniform") {
  } else if (family == "power") {
    for (std::size_t i = 0; i < n; ++i) w[i] = 1.0 / static_cast<double>(i + 1);
  } else if (family == "one-heavy") {
    w[0] = 99.0 * static_cast<double>(k - 1);
  } else if (family.rfind("tiny-", 0) == 0) {
    const double t = std::stod(family.substr(5));
    for (std::size_t i = 1; i < n; i += 2) w[i] = t;
  } else if (family == "rows-differ") {
    if (rows < 2) throw std::invalid_argument("calibration: rows-differ needs at least 2 rows");
    for (int r = 0; r < rows; ++r) {
      const double exponent = 0.5 + 0.5 * (r % 4);
      const std::size_t shift = static_cast<std::size_t>(r) * n / static_cast<std::size_t>(rows);
      std::vector<double> row(n);
      for (std::size_t i = 0; i < n; ++i) row[(i + shift) % n] = std::pow(static_cast<double>(i + 1), -exponent);
      law.rows.push_back(normalised(std::move(row)));
    }
    return law;
  } else {
    throw std::invalid_argument("calibration: no law family '" + family + "'");
  }
  if (rows != 1) throw std::invalid_argument("calibration: only rows-differ has several rows");
  law.rows.push_back(normalised(std::move(w)));
  return law;
}

std::vector<Cell> small_grid() {
  // The regimes of the full grid, each once, at sizes that run in seconds:
  // the reproducers (100 equal weights and 2,000 draws; {1e-3, 1}
  // with 10^4 draws; {1e-6, 1} with 10^7), few draws over many categories,
  // 10^8 draws, tiny categories, rows that differ.
  return {{"uniform", 100, 2000},   {"tiny-1e-3", 2, 10000}, {"tiny-1e-6", 2, 10000000}, {"power", 64, 200},
          {"one-heavy", 16, 50},    {"tiny-1e-9", 64, 1000}, {"uniform", 16, 100000000}, {"tiny-1e-12", 256, 100},
          {"rows-differ", 16, 300, 30}};
}

std::vector<Cell> full_grid() {
  std::vector<Cell> g;
  // Every family at K = 2..4,096 and n = 10..10^8; at K = 65,536 from 100
  // draws; at K = 2^20 (a second a run) the uniform, power and tiniest laws
  // at 10^3, 10^6 and 10^8 draws.
  const std::uint64_t ks[] = {2, 16, 256, 4096, 65536};
  const std::uint64_t ns[] = {10, 100, 1000, 10000, 1000000, 100000000};
  for (const auto& f : families()) {
    if (f == "rows-differ") continue;
    for (auto k : ks)
      for (auto n : ns)
        if (k < 65536 || n >= 100) g.push_back({f, k, n});
  }
  for (const std::string f : {"uniform", "power", "tiny-1e-12"})
    for (std::uint64_t n : {1000, 1000000, 100000000}) g.push_back({f, 1 << 20, n});
  for (std::uint64_t k : {16, 256, 4096})
    for (int rows : {10, 1000})
      for (std::uint64_t s : {1, 10, 100}) g.push_back({"rows-differ", k, s * static_cast<std::uint64_t>(rows), rows});
  return g;
}

std::uint64_t rejection_bound(std::uint64_t runs, double level, double tail) {
  const boost::math::binomial_distribution<double> b(static_cast<double>(runs), level);
  // the smallest c with P(X > c) <= tail
  auto c = static_cast<std::uint64_t>(boost::math::quantile(boost::math::complement(b, tail)));
  while (c > 0 && boost::math::cdf(boost::math::complement(b, static_cast<double>(c - 1))) <= tail) --c;
  while (boost::math::cdf(boost::math::complement(b, static_cast<double>(c))) > tail) ++c;
  return c;
}

double power_against_doubled(std::uint64_t runs, double level, std::uint64_t bound) {
  const boost::math::binomial_distribution<double> b(static_cast<double>(runs), std::min(1.0, 2 * level));
  return boost::math::cdf(boost::math::complement(b, static_cast<double>(bound)));
}

namespace {

// Simulates a correct sampler's counts for one cell.
class Simulator {
 public:
  Simulator(const GridLaw& law, std::uint64_t n) : law_(law), n_(n) {
    const std::size_t k = static_cast<std::size_t>(law.k);
    if (law.rows.size() == 1) {
      // The counter validate uses, for its cells.
      const LawCounter counter{std::span<const double>(law.rows[0])};
      shape_ = counter.data();
      cell_p_.assign(static_cast<std::size_t>(shape_.cells), 0.0);
      members_.resize(static_cast<std::size_t>(shape_.cells));
      for (std::size_t i = 0; i < k; ++i) {
        cell_p_[shape_.cell_of[i]] += law.rows[0][i];
        members_[shape_.cell_of[i]].push_back(i);
      }
      cells_ = std::make_unique<stats::MultinomialSampler>(cell_p_);
      for (const auto& m : members_) {
        std::vector<double> q;
        for (auto i : m) q.push_back(law.rows[0][i]);
        const bool any = std::any_of(q.begin(), q.end(), [](double v) { return v > 0; });
        within_.push_back(any ? std::make_unique<stats::MultinomialSampler>(q) : nullptr);
      }
      mean_law_ = law.rows[0];
    } else {
      shape_.counts.assign(k, 0.0);
      for (const auto& row : law.rows) rows_.push_back(std::make_unique<stats::MultinomialSampler>(row));
      mean_law_.assign(k, 0.0);
      for (const auto& row : law.rows)
        for (std::size_t i = 0; i < k; ++i) mean_law_[i] += row[i];
      mean_law_ = normalised(mean_law_);
    }
  }

  bool batched() const { return law_.rows.size() == 1; }
  const std::vector<double>& mean_law() const { return mean_law_; }
  const std::vector<double>& cell_p() const { return cell_p_; }

  // `out` keeps its shape from one draw to the next (the cells' map is K long).
  void draw(std::mt19937_64& rng, LawCounts& out) const {
    if (out.counts.size() != shape_.counts.size()) out = shape_;
    out.draws = n_;
    std::fill(out.counts.begin(), out.counts.end(), 0.0);
    if (!batched()) {
      const std::uint64_t each = n_ / law_.rows.size();
      std::vector<double> c(out.counts.size());
      for (const auto& row : rows_) {
        row->draw(rng, each, c);
        for (std::size_t i = 0; i < c.size(); ++i) out.counts[i] += c[i];
      }
      out.draws = each * law_.rows.size();
      return;
    }
    const auto cells = static_cast<std::size_t>(shape_.cells);
    std::vector<double> total(cells, 0.0);
    for (int b = 0; b < kBatches; ++b) {
      const std::uint64_t size = n_ / kBatches + (static_cast<std::uint64_t>(b) < n_ % kBatches ? 1 : 0);
      std::span<double> row(out.batch_counts.data() + static_cast<std::size_t>(b) * cells, cells);
      cells_->draw(rng, size, row);
      for (std::size_t c = 0; c < cells; ++c) total[c] += row[c];
    }
    std::vector<double> within;
    for (std::size_t c = 0; c < cells; ++c) {
      if (!within_[c] || total[c] == 0) continue;
      within.resize(members_[c].size());
      within_[c]->draw(rng, static_cast<std::uint64_t>(total[c]), within);
      for (std::size_t j = 0; j < within.size(); ++j) out.counts[members_[c][j]] = within[j];
    }
  }

 private:
  const GridLaw& law_;
  std::uint64_t n_;
  LawCounts shape_;
  std::vector<double> cell_p_, mean_law_;
  std::vector<std::vector<std::size_t>> members_;
  std::unique_ptr<stats::MultinomialSampler> cells_;
  std::vector<std::unique_ptr<stats::MultinomialSampler>> within_, rows_;
};

// per_category_binomial's decision at a level: Holm's smallest adjusted
// p-value K p_(1) is at most `level` exactly when some category's count lies
// outside its acceptance interval at level / K.
class BinomialTable {
 public:
  BinomialTable(const std::vector<double>& p, std::uint64_t n, const std::vector<double>& levels, int threads) {
    const double k = static_cast<double>(p.size());
    std::vector<double> distinct(p);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::vector<std::vector<stats::BinomialAcceptance>> of(distinct.size());
    std::atomic<std::size_t> next{0};
    auto fill = [&] {
      for (std::size_t i; (i = next++) < distinct.size();)
        for (double level : levels) of[i].push_back(stats::binomial_acceptance(n, distinct[i], level / k));
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(fill);
    fill();
    for (auto& t : pool) t.join();
    intervals_.resize(p.size());
    for (std::size_t i = 0; i < p.size(); ++i)
      intervals_[i] = of[static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), p[i]) - distinct.begin())];
  }
  bool rejects(const std::vector<double>& counts, std::size_t level) const {
    for (std::size_t i = 0; i < counts.size(); ++i) {
      const auto c = static_cast<std::uint64_t>(counts[i]);
      if (c < intervals_[i][level].lo || c > intervals_[i][level].hi) return true;
    }
    return false;
  }

 private:
  std::vector<std::vector<stats::BinomialAcceptance>> intervals_;
};

// ks_discrete_test's decision at a level: the exact p-value P(D >= d) falls
// as d grows, so D below the critical value (found by bisection) passes; D
// at or above it is decided by the test itself (rarely: a level's share of
// the runs). Where the exact p-value does not reach the critical value within
// its work limit, the test decides every run.
class KsTable {
 public:
  KsTable(const std::vector<double>& p, std::uint64_t n, const std::vector<double>& levels, int threads, double work)
      : pass_below_(levels.size(), 0.0) {
    std::vector<double> computed(levels.size(), 0.0);
    std::atomic<std::size_t> next{0};
    auto bisect = [&] {
      for (std::size_t i; (i = next++) < levels.size();) computed[i] = critical(p, n, levels[i], work);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min<int>(threads, static_cast<int>(levels.size())); ++t) pool.emplace_back(bisect);
    bisect();
    for (auto& t : pool) t.join();
    // A D that passes at a level passes at every smaller one: each level's
    // threshold is the largest of its own and those of the larger levels.
    for (std::size_t i = 0; i < levels.size(); ++i)
      for (std::size_t j = 0; j < levels.size(); ++j)
        if (levels[j] >= levels[i]) pass_below_[i] = std::max(pass_below_[i], computed[j]);
  }
  double pass_below(std::size_t level) const { return pass_below_[level]; }

 private:
  // The largest d found with every D < d passing at `level` (0: none): the
  // critical value, or short of it the largest d whose exact p-value fits
  // the work limit and exceeds the level.
  static double critical(const std::vector<double>& p, std::uint64_t n, double level, double work) {
    // p(lo) > level (or lo = 0); above hi, p <= level (the DKW-Massart bound
    // 2 exp(-2 n d^2)) or past the work limit
    double lo = 0, hi = std::sqrt(std::log(2 / level) / (2 * static_cast<double>(n))) + 1e-9;
    // The table pays only where the exact p-value reaches a typical D (half
    // the bound); else the test decides every run, and bisecting at the edge
    // of the work limit would cost a hundred runs' work for nothing.
    if (!stats::ks_exact_p_value(p, n, hi / 2, work)) return 0;
    for (int it = 0; it < 25; ++it) {
      const double mid = (lo + hi) / 2;
      // each step costs what the test would; a smaller limit (a Debug
      // build's) makes the table cheaper and sends more runs to the test
      const auto pv = stats::ks_exact_p_value(p, n, mid, work);
      (pv && *pv > level ? lo : hi) = mid;
    }
    // every D < lo takes the exact path (its work grows with D), with p > level
    return lo;
  }
  std::vector<double> pass_below_;
};

struct Check {
  std::string name;
  std::vector<double> p_values;  // this run's (NaN: not run); or decisions at each level
};

}  // namespace

CellResult run_cell(const Cell& cell, const RunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const GridLaw law = make_law(cell.family, cell.k, cell.rows);
  const Simulator sim(law, cell.n);
  const auto& p = sim.mean_law();
  const bool batched = sim.batched();
  const int m = law_check_count(batched);
  std::size_t positive = 0;
  for (double v : p) positive += v > 0;

  // The levels decided: each check's (0.05, 0.01), then the report's share of
  // each (alpha / m).
  constexpr std::size_t nl = std::size(kLevels);
  std::vector<double> levels(std::begin(kLevels), std::end(kLevels));
  for (double l : kLevels) levels.push_back(l / m);
  std::unique_ptr<BinomialTable> btable;
  std::unique_ptr<KsTable> ktable;
  if (o.decide_by_tables) {
    btable = std::make_unique<BinomialTable>(p, cell.n, levels, o.threads);
    if (positive >= 2) ktable = std::make_unique<KsTable>(p, cell.n, levels, o.threads, o.ks_table_work);
  }
  const bool binomial_in_validate = p.size() <= 1'000'000;  // law_checks' limit

  // Tallies: validate's 5, then stats' 5.
  const std::vector<std::string> names{"chi_square", "per_category_binomial", "ks_discrete", "two_level", "report",
                                       "chi-square", "g-test",                "binomial",    "ks-discrete", "two-level"};
  constexpr std::size_t kStats = 5;
  std::vector<std::vector<std::uint64_t>> rejected(names.size(), std::vector<std::uint64_t>(nl, 0));
  std::vector<std::uint64_t> ran(names.size(), 0);
  std::mutex merge;
  std::atomic<std::uint64_t> next{0}, done{0};
  const std::uint64_t cell_seed = mix(o.seed, mix(hash_text(cell.family), mix(cell.k, mix(cell.n, static_cast<std::uint64_t>(cell.rows)))));

  auto worker = [&] {
    std::vector<std::vector<std::uint64_t>> rej(names.size(), std::vector<std::uint64_t>(nl, 0));
    std::vector<std::uint64_t> ran_here(names.size(), 0);
    LawCounts counts;
    std::vector<std::vector<bool>> decide(names.size());  // [check][level]; empty: not run
    for (std::uint64_t run; (run = next++) < o.runs;) {
      std::mt19937_64 rng(mix(cell_seed, run));
      sim.draw(rng, counts);
      for (auto& d : decide) d.clear();
      auto by_p = [&](std::size_t c, double pv) {
        for (double l : levels) decide[c].push_back(pv <= l);
      };
      // per_category_binomial and ks_discrete: the same function in both
      // subjects (validate's at alpha / m: it changes only how many Monte
      // Carlo samples KS may take)
      if (btable) {
        for (std::size_t l = 0; l < levels.size(); ++l) decide[kStats + 2].push_back(btable->rejects(counts.counts, l));
      } else {
        by_p(kStats + 2, stats::per_category_binomial(counts.counts, p, 0.05).summary.p_value);
      }
      if (binomial_in_validate) decide[1] = decide[kStats + 2];
      if (positive >= 2) {
        const double d = stats::ks_statistic(counts.counts, p);
        std::optional<stats::TestResult> exact;  // an exact p-value serves both subjects
        for (std::size_t c : {std::size_t{2}, kStats + 3}) {
          std::optional<double> pv;
          for (std::size_t l = 0; l < levels.size(); ++l) {
            if (ktable && d < ktable->pass_below(l)) {
              decide[c].push_back(false);
              continue;
            }
            if (!pv && exact) pv = exact->p_value;
            if (!pv) {
              stats::KsOptions ks;
              ks.alpha = c == 2 ? 0.001 / m : 0.05;  // Monte Carlo's replicates only
              const auto r = stats::ks_discrete_test(counts.counts, p, ks);
              if (r.p_value_method == "exact") exact = r;
              pv = r.p_value;
            }
            decide[c].push_back(*pv <= levels[l]);
          }
        }
      }
      // validate's chi_square and two_level, as law_checks runs them
      Report report;
      law_checks(counts, p, {.alpha_each = 0.001 / m, .label = "grid", .rows_differ = !batched, .binomial = false, .ks = false}, report);
      for (const auto& ch : report.checks) {
        const auto it = std::find(names.begin(), names.begin() + 4, ch.name);
        if (it == names.begin() + 4 || ch.outcome == Outcome::Skipped || !ch.test) continue;
        by_p(static_cast<std::size_t>(it - names.begin()), ch.test->p_value);
      }
      // the report: any check at alpha / m (levels nl.. are those)
      decide[4].assign(levels.size(), false);
      for (std::size_t c = 0; c < 4; ++c)
        for (std::size_t l = 0; l < nl && !decide[c].empty(); ++l)
          if (decide[c][nl + l]) decide[4][l] = true;
      // stats used directly, with their defaults
      stats::GofOptions g;
      g.alpha = 0.05;
      const auto chi = stats::chi_square_test(counts.counts, p, g);
      if (!(chi.df && *chi.df < 1)) by_p(kStats, chi.p_value);
      // G at 2^20 categories simulates about 10^8 binomial draws a run: not run
      if (p.size() <= 65536) {
        const auto gt = stats::g_test(counts.counts, p, g);
        if (!(gt.df && *gt.df < 1)) by_p(kStats + 1, gt.p_value);
      }
      // two_level_test with its defaults is what law_checks ran (its alpha
      // changes no p-value): validate's p-value serves stats too
      if (!decide[3].empty()) decide[kStats + 4] = decide[3];
      for (std::size_t c = 0; c < names.size(); ++c) {
        if (decide[c].empty()) continue;
        ++ran_here[c];
        for (std::size_t l = 0; l < nl; ++l) rej[c][l] += decide[c][l];
      }
      const auto d = ++done;
      if (o.progress && d % 50 == 0) o.progress(d);
    }
    std::lock_guard<std::mutex> lock(merge);
    for (std::size_t c = 0; c < names.size(); ++c) {
      ran[c] += ran_here[c];
      for (std::size_t l = 0; l < nl; ++l) rejected[c][l] += rej[c][l];
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, o.threads); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  CellResult r{cell, o.runs, {}, {}, 0};
  for (std::size_t c = 0; c < names.size(); ++c) {
    (c < kStats ? r.validate : r.stats).push_back({names[c], ran[c], {rejected[c][0], rejected[c][1]}});
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {

// Every outcome of n draws over K = 2 or 3 categories with its probability
// (outcomes below 1e-16 of probability left out and counted apart).
template <class Visit>
double each_outcome(const std::vector<double>& p, std::uint64_t n, Visit&& visit) {
  const double nd = static_cast<double>(n);
  double left_out = 0;
  auto log_pmf = [&](const std::vector<double>& c) {
    double s = std::lgamma(nd + 1);
    for (std::size_t i = 0; i < c.size(); ++i) s += c[i] * std::log(p[i]) - std::lgamma(c[i] + 1);
    return s;
  };
  std::vector<double> c(p.size());
  if (p.size() == 2) {
    for (std::uint64_t a = 0; a <= n; ++a) {
      c = {static_cast<double>(a), nd - static_cast<double>(a)};
      const double pr = std::exp(log_pmf(c));
      if (pr < 1e-16) left_out += pr; else visit(c, pr);
    }
  } else {
    for (std::uint64_t a = 0; a <= n; ++a)
      for (std::uint64_t b = 0; a + b <= n; ++b) {
        c = {static_cast<double>(a), static_cast<double>(b), nd - static_cast<double>(a + b)};
        const double pr = std::exp(log_pmf(c));
        if (pr < 1e-16) left_out += pr; else visit(c, pr);
      }
  }
  return left_out;
}

}  // namespace

std::vector<ExactTail> exact_tails(double level, std::uint64_t most_outcomes) {
  struct Law {
    std::string name;
    std::vector<double> p;
    std::vector<std::uint64_t> ns;
  };
  const std::vector<Law> laws{{"{0.5, 0.5}", {0.5, 0.5}, {10, 30, 100, 300, 1000, 3000}},
                              {"{0.1, 0.9}", {0.1, 0.9}, {10, 30, 100, 300, 1000, 3000}},
                              {"{1e-3, 1}", normalised({1e-3, 1}), {100, 1000, 5000, 10000, 30000}},
                              {"{1/3, 1/3, 1/3}", normalised({1, 1, 1}), {10, 30, 100}},
                              {"{0.01, 0.2, 0.79}", {0.01, 0.2, 0.79}, {10, 30, 100, 300}}};
  std::vector<ExactTail> out;
  // The Monte Carlo chi-square rejects x when at most c of its B simulated
  // statistics reach T(x), each with probability t(x) = P(T >= T(x)): over
  // the simulation, with probability P(Bin(B, t(x)) <= c).
  const std::uint64_t b = stats::replicates_to_resolve(level);
  const double c = std::floor(level * static_cast<double>(b + 1)) - 1;
  for (const auto& law : laws) {
    for (auto n : law.ns) {
      const std::uint64_t outcomes = law.p.size() == 2 ? n + 1 : (n + 1) * (n + 2) / 2;
      if (outcomes > most_outcomes) continue;
      double chi = 0, limit = 0, binom = 0, ks = 0;
      std::vector<std::pair<double, double>> statistic;  // (T, probability)
      const double left_out = each_outcome(law.p, n, [&](const std::vector<double>& x, double pr) {
        stats::GofOptions g;
        g.alpha = level;
        g.method = stats::PValueMethod::MonteCarlo;
        const auto mc = stats::chi_square_test(x, law.p, g);
        statistic.emplace_back(mc.statistic, pr);
        if (mc.p_value <= level) chi += pr;
        g.method = stats::PValueMethod::Asymptotic;
        if (stats::chi_square_test(x, law.p, g).p_value <= level) limit += pr;
        if (stats::per_category_binomial(x, law.p, level).summary.p_value <= level) binom += pr;
        stats::KsOptions k;
        k.alpha = level;
        if (stats::ks_discrete_test(x, law.p, k).p_value <= level) ks += pr;
      });
      std::sort(statistic.begin(), statistic.end(), [](const auto& u, const auto& v) { return u.first > v.first; });
      double expected = 0, reach = left_out;  // outcomes left out counted as reaching every T: an upper bound
      for (std::size_t i = 0; i < statistic.size();) {
        std::size_t j = i;
        double tied = 0;
        for (; j < statistic.size() && statistic[j].first == statistic[i].first; ++j) tied += statistic[j].second;
        reach += tied;
        const boost::math::binomial_distribution<double> sims(static_cast<double>(b), std::min(1.0, reach));
        expected += tied * (c >= 0 ? boost::math::cdf(sims, c) : 0.0);
        i = j;
      }
      // outcomes left out count as rejections: the figures are upper bounds
      out.push_back({law.name, n, "chi_square, over the simulation", level, expected + left_out});
      out.push_back({law.name, n, "chi_square, its seeds", level, chi + left_out});
      out.push_back({law.name, n, "chi-square limit", level, limit + left_out});
      out.push_back({law.name, n, "per_category_binomial", level, binom + left_out});
      out.push_back({law.name, n, "ks_discrete", level, ks + left_out});
    }
  }
  return out;
}

}  // namespace warpsim::cli::validate::calibration
