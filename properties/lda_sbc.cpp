#include "properties/lda_sbc.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <chrono>
#include <cmath>
#include <span>
#include <stdexcept>

#include "oracle/reference.hpp"
#include "oracle/rejection/gamma.hpp"
#include "rng/philox_uniform.hpp"
#include "stats/goodness_of_fit.hpp"

namespace warpsim::properties {

namespace {

namespace rj = oracle::rejection;

// A seed for each (replication, purpose, sweep): splitmix64 of the three.
std::uint64_t key(std::uint64_t seed, std::uint64_t replication, std::uint64_t purpose, std::uint64_t sweep = 0) {
  std::uint64_t x = seed ^ (replication * 0x9e3779b97f4a7c15ull) ^ (purpose << 56) ^ (sweep * 0xbf58476d1ce4e5b9ull);
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The smallest j whose running sum of p exceeds u (the last where rounding leaves none).
template <class Get>
int categorical(int n, double u, Get&& p) {
  double total = 0;
  for (int j = 0; j < n; ++j) total += p(j);
  const double target = u * total;
  double s = 0;
  for (int j = 0; j < n - 1; ++j) {
    s += p(j);
    if (target < s) return j;
  }
  return n - 1;
}

struct Topics {
  std::vector<double> theta, phi;  // documents x K (rows not normalised), vocabulary x K (columns normalised)
};

// theta_m ~ Dirichlet(alpha 1_K), phi_k ~ Dirichlet(beta 1_V), by gamma variates.
Topics prior_draw(int documents, int vocabulary, int k, double alpha, double beta, std::uint64_t seed) {
  const auto kk = static_cast<std::size_t>(k);
  Topics t{std::vector<double>(static_cast<std::size_t>(documents) * kk), std::vector<double>(static_cast<std::size_t>(vocabulary) * kk)};
  for (std::size_t i = 0; i < t.theta.size(); ++i) t.theta[i] = rj::gamma_draw<double>(alpha, seed, i);
  std::vector<double> sums(kk, 0.0);
  for (std::size_t i = 0; i < t.phi.size(); ++i) sums[i % kk] += t.phi[i] = rj::gamma_draw<double>(beta, seed, t.theta.size() + i);
  for (std::size_t i = 0; i < t.phi.size(); ++i) t.phi[i] /= sums[i % kk];
  return t;
}

// The quantities the topics' labels do not change.
std::vector<double> quantities(const oracle::LdaCorpus& c, const Topics& t, int k) {
  const auto kk = static_cast<std::size_t>(k);
  double loglik = 0, entropy = 0, top_theta0 = 0, top_phi0 = 0;
  std::vector<double> th(kk);
  for (int m = 0; m < c.documents; ++m) {
    double s = 0;
    for (std::size_t j = 0; j < kk; ++j) s += t.theta[static_cast<std::size_t>(m) * kk + j];
    double h = 0;
    for (std::size_t j = 0; j < kk; ++j) {
      th[j] = t.theta[static_cast<std::size_t>(m) * kk + j] / s;
      if (th[j] > 0) h -= th[j] * std::log(th[j]);
      if (m == 0) top_theta0 = std::max(top_theta0, th[j]);
    }
    entropy += h / c.documents;
    for (int i = c.offsets[static_cast<std::size_t>(m)]; i < c.offsets[static_cast<std::size_t>(m) + 1]; ++i) {
      const auto w = static_cast<std::size_t>(c.words[static_cast<std::size_t>(i)]);
      double p = 0;
      for (std::size_t j = 0; j < kk; ++j) p += th[j] * t.phi[w * kk + j];
      loglik += std::log(p);
    }
  }
  for (std::size_t j = 0; j < kk; ++j) top_phi0 = std::max(top_phi0, t.phi[j]);
  return {loglik, entropy, top_theta0, top_phi0};
}

const char* const kQuantityNames[] = {"log-likelihood of the words", "mean entropy of the documents' topic proportions",
                                      "document 0's largest topic proportion", "word 0's largest topic probability"};

class HostSweep final : public LdaSweep {
 public:
  std::vector<int> draw_z(const oracle::LdaCorpus& c, const std::vector<double>& theta, const std::vector<double>& phi, int k,
                          std::uint64_t seed) override {
    const auto kk = static_cast<std::size_t>(k);
    std::vector<int> z(c.words.size());
    std::vector<double> w(kk);
    for (int m = 0; m < c.documents; ++m) {
      for (int t = c.offsets[static_cast<std::size_t>(m)]; t < c.offsets[static_cast<std::size_t>(m) + 1]; ++t) {
        const auto word = static_cast<std::size_t>(c.words[static_cast<std::size_t>(t)]);
        for (std::size_t j = 0; j < kk; ++j) w[j] = theta[static_cast<std::size_t>(m) * kk + j] * phi[word * kk + j];
        z[static_cast<std::size_t>(t)] = oracle::reference_draw<double>(w, rng::uniform<double>(seed, static_cast<std::uint64_t>(t)));
      }
    }
    return z;
  }
  void draw_topics(const oracle::LdaCorpus& c, const std::vector<int>& z, int k, double alpha, double beta, std::uint64_t seed,
                   std::vector<double>& theta, std::vector<double>& phi) override {
    auto r = rj::lda_topic_draws<double>(z, c.offsets, c.words, c.vocabulary, k, alpha, beta, seed);
    theta = std::move(r.theta);
    phi = std::move(r.phi);
  }
  std::string name() const override { return "the oracle's definitions (host, double)"; }
};

}  // namespace

std::unique_ptr<LdaSweep> host_lda_sweep() { return std::make_unique<HostSweep>(); }

const char* to_string(LdaSbcVerdict v) {
  switch (v) {
    case LdaSbcVerdict::Calibrated:
      return "calibrated";
    case LdaSbcVerdict::NotCalibrated:
      return "not calibrated";
    case LdaSbcVerdict::Inconclusive:
      return "inconclusive";
  }
  return "?";
}

LdaSbcResult run_lda_sbc(const LdaSbcConfig& cfg, LdaSweep& sweep) {
  const auto t0 = std::chrono::steady_clock::now();
  if (cfg.documents < 1 || cfg.tokens < 1 || cfg.topics < 1 || cfg.vocabulary < 1 || cfg.replications < 1 || cfg.draws < 1 || cfg.thin < 1 ||
      cfg.burn < 0) {
    throw std::invalid_argument("LDA SBC: sizes, replications, draws and thin must be at least 1, burn at least 0");
  }
  if (!(cfg.alpha > 0) || !(cfg.beta > 0) || !std::isfinite(cfg.alpha) || !std::isfinite(cfg.beta)) {
    throw std::invalid_argument("LDA SBC: alpha and beta must be finite and > 0");
  }
  if (!(cfg.test_alpha > 0 && cfg.test_alpha < 1)) throw std::invalid_argument("LDA SBC: the test's alpha must lie in (0, 1)");
  const int k = cfg.topics, cells = cfg.draws + 1;
  const auto kk = static_cast<std::size_t>(k);
  constexpr std::size_t kQ = 4;
  std::vector<std::vector<int>> ranks(kQ, std::vector<int>(static_cast<std::size_t>(cells), 0));
  // The drift test's differences (the kept draws' mean log-likelihood less
  // that at the end of the burn-in), by Welford's update.
  double drift_mean = 0, drift_m2 = 0;
  oracle::LdaCorpus c;
  c.documents = cfg.documents;
  c.vocabulary = cfg.vocabulary;
  for (int m = 0; m <= cfg.documents; ++m) c.offsets.push_back(m * cfg.tokens);
  c.words.resize(static_cast<std::size_t>(cfg.documents) * static_cast<std::size_t>(cfg.tokens));
  for (int r = 0; r < cfg.replications; ++r) {
    const auto rep = static_cast<std::uint64_t>(r);
    // 1-2. The truth from the prior, the words from the truth.
    const Topics truth = prior_draw(cfg.documents, cfg.vocabulary, k, cfg.alpha, cfg.beta, key(cfg.seed, rep, 1));
    const std::uint64_t data_seed = key(cfg.seed, rep, 2);
    for (int m = 0; m < cfg.documents; ++m) {
      for (int i = c.offsets[static_cast<std::size_t>(m)]; i < c.offsets[static_cast<std::size_t>(m) + 1]; ++i) {
        const auto t = static_cast<std::uint64_t>(i);
        const int topic = categorical(k, rng::uniform<double>(data_seed, t, 0), [&](int j) { return truth.theta[static_cast<std::size_t>(m) * kk + static_cast<std::size_t>(j)]; });
        c.words[static_cast<std::size_t>(i)] =
            categorical(cfg.vocabulary, rng::uniform<double>(data_seed, t, 1), [&](int w) { return truth.phi[static_cast<std::size_t>(w) * kk + static_cast<std::size_t>(topic)]; });
      }
    }
    const auto truth_q = quantities(c, truth, k);
    // 3. The chain on the words, from a start drawn from the prior.
    Topics state = prior_draw(cfg.documents, cfg.vocabulary, k, cfg.alpha, cfg.beta, key(cfg.seed, rep, 3));
    double burnt_ll = cfg.burn == 0 ? quantities(c, state, k)[0] : 0;  // the drift test's reference: the state after the burn-in
    std::vector<double> older = state.theta;  // (StaleTheta: the theta before the last update)
    const double theta_alpha = cfg.fault == LdaSbcFault::ThetaCountOffByOne ? cfg.alpha + 1 : cfg.alpha;
    std::vector<std::vector<double>> draws(kQ);
    const int sweeps = cfg.burn + cfg.draws * cfg.thin;
    for (int s = 0; s < sweeps; ++s) {
      const auto sw = static_cast<std::uint64_t>(s);
      const auto z = sweep.draw_z(c, cfg.fault == LdaSbcFault::StaleTheta ? older : state.theta, state.phi, k, key(cfg.seed, rep, 4, sw));
      older = state.theta;
      sweep.draw_topics(c, z, k, theta_alpha, cfg.beta, key(cfg.seed, rep, 5, sw), state.theta, state.phi);
      if (s + 1 == cfg.burn) burnt_ll = quantities(c, state, k)[0];
      if (s >= cfg.burn && (s - cfg.burn + 1) % cfg.thin == 0) {
        const auto q = quantities(c, state, k);
        for (std::size_t j = 0; j < kQ; ++j) draws[j].push_back(q[j]);
      }
    }
    {
      double mean = 0;
      for (const double v : draws[0]) mean += v;
      const double d = mean / static_cast<double>(cfg.draws) - burnt_ll, delta = d - drift_mean;
      drift_mean += delta / static_cast<double>(r + 1);
      drift_m2 += delta * (d - drift_mean);
    }
    // 4. Each quantity's rank among the draws (ties split at random).
    for (std::size_t j = 0; j < kQ; ++j) {
      int below = 0, equal = 0;
      for (const double d : draws[j]) {
        below += d < truth_q[j] ? 1 : 0;
        equal += d == truth_q[j] ? 1 : 0;
      }
      const int extra = equal == 0 ? 0 : static_cast<int>(rng::uniform<double>(key(cfg.seed, rep, 6), j) * (equal + 1));
      ++ranks[j][static_cast<std::size_t>(below + std::min(extra, equal))];
    }
  }
  LdaSbcResult out;
  out.alpha_each = cfg.test_alpha / static_cast<double>(kQ);
  const std::vector<double> uniform(static_cast<std::size_t>(cells), 1.0 / cells);
  for (std::size_t j = 0; j < kQ; ++j) {
    const std::vector<double> observed(ranks[j].begin(), ranks[j].end());
    stats::GofOptions o;
    o.alpha = out.alpha_each;
    o.seed = key(cfg.seed, j, 7);
    const auto test = stats::chi_square_test(observed, uniform, o);
    out.quantities.push_back({kQuantityNames[j], ranks[j], test.statistic, test.p_value, test.reject});
    out.ok = out.ok && !test.reject;
  }
  out.drift = drift_mean;
  if (cfg.replications >= 2) {
    const double n = cfg.replications, se = std::sqrt(drift_m2 / (n - 1) / n);
    if (se > 0) {
      const boost::math::students_t t(n - 1);
      out.drift_p_value = 2 * boost::math::cdf(boost::math::complement(t, std::abs(drift_mean) / se));
    } else {
      out.drift_p_value = drift_mean == 0 ? 1 : 0;
    }
    out.settled = !(out.drift_p_value < cfg.test_alpha);
  }
  out.verdict = !out.settled ? LdaSbcVerdict::Inconclusive : out.ok ? LdaSbcVerdict::Calibrated : LdaSbcVerdict::NotCalibrated;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace warpsim::properties
