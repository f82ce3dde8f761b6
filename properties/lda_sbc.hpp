// Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari and
// Gelman, "Validating Bayesian inference algorithms with simulation-based
// calibration", 2018) of seed 000's uncollapsed LDA Gibbs sampler: does the
// chain, as warpsim defines its two halves, sample the LDA posterior?
//
// The oracle proves each kernel equals its definition (z: the scalar draw of
// oracle/reference.hpp on theta[m, k] phi[w, k]; theta and phi:
// oracle::rejection::lda_topic_draws). This checks that the definitions
// compose into a sampler of the right law. Each of R replications:
//   1. draws the truth from the prior: theta_m ~ Dirichlet(alpha 1_K) for each
//      document, phi_k ~ Dirichlet(beta 1_V) for each topic;
//   2. draws the data from it: token t of document m takes z ~ theta_m, then
//      its word w ~ phi_z (the documents' lengths fixed by the config);
//   3. runs the chain on the words alone from a start drawn from the prior:
//      `burn` sweeps, then L draws `thin` sweeps apart (each sweep: z given
//      theta and phi, then theta and phi given z; sweep s of replication r
//      from its own seed);
//   4. ranks each quantity of the truth among its L draws (ties, which have
//      probability 0 for these quantities, split at random).
// If the chain samples the posterior, each rank is uniform on 0..L; the R
// ranks of each quantity are tested by Pearson's chi-square (stats/, Monte
// Carlo p-value) over L + 1 cells, each quantity at alpha / Q (Bonferroni).
//
// Ranks that are not uniform mean a wrong sampler only if the chain had
// reached its stationary law by its first kept draw; a correct chain whose
// burn-in is too short for the corpus (a start from the prior climbs
// towards the data for longer the more tokens there are) fails the ranks
// too, and uniform ranks from a chain that is not there yet say little. So
// the run also tests for drift: were the chain stationary from the end of
// its burn-in on (SBC's assumption), the log-likelihood there would have
// the law of each kept draw's, so the R differences (the kept draws' mean
// less the log-likelihood after `burn` sweeps, the start's when burn = 0)
// have mean 0 (Student's t, two-sided, at alpha). A run with drift found is
// "inconclusive" (raise the burn-in), whatever its ranks; only a settled
// chain is "calibrated" or "not calibrated". Drift can go unseen (a chain
// climbing too slowly for R replications to show it), so "not calibrated"
// at a new corpus size is worth a second run at a longer burn-in
// (docs/lda-sbc.md).
// Topics can swap labels, so every quantity is one the labels' order does
// not change: the words' log-likelihood given theta and phi, the mean
// entropy of the documents' topic proportions, document 0's largest topic
// proportion, and word 0's largest topic probability.
//
// A fault (LdaSbcFault) replaces one step by a plausible bug, for the power
// statement: theta's Dirichlet parameter one count too high, or the z draw
// reading the previous sweep's theta.
//
//   properties::LdaSbcConfig c;                 // 4 documents of 12 tokens, K 3, V 8
//   const auto r = properties::run_lda_sbc(c);   // r.ok: every quantity's ranks uniform at alpha
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oracle/lda_corpus.hpp"

namespace warpsim::properties {

enum class LdaSbcFault {
  None,
  ThetaCountOffByOne,  // theta[m, k] ~ Gamma(alpha + n[m, k] + 1)
  StaleTheta,          // the z draw reads the previous sweep's theta
};

struct LdaSbcConfig {
  int documents = 4;
  int tokens = 12;  // a document's
  int topics = 3;
  int vocabulary = 8;
  double alpha = 0.5, beta = 0.5;
  int replications = 1000;
  int draws = 9;  // L: ranks 0..L
  int thin = 30;
  int burn = 100;
  double test_alpha = 0.01;
  std::uint64_t seed = 1;
  LdaSbcFault fault = LdaSbcFault::None;
};

// One sweep of the chain, on the host (the oracle's definitions) or on a GPU
// (its kernels): theta documents x K (rows not normalised: a Dirichlet draw
// up to its scale), phi vocabulary x K (each column a distribution).
class LdaSweep {
 public:
  virtual ~LdaSweep() = default;
  // z[t] for every token t of document m with word w: weights theta[m, k]
  // phi[w, k], u = rng::uniform<double>(seed, t).
  virtual std::vector<int> draw_z(const oracle::LdaCorpus& corpus, const std::vector<double>& theta, const std::vector<double>& phi, int k,
                                  std::uint64_t seed) = 0;
  // theta and phi given z (oracle::rejection::lda_topic_draws's law).
  virtual void draw_topics(const oracle::LdaCorpus& corpus, const std::vector<int>& z, int k, double alpha, double beta, std::uint64_t seed,
                           std::vector<double>& theta, std::vector<double>& phi) = 0;
  virtual std::string name() const = 0;
};

// The oracle's definitions, in double.
std::unique_ptr<LdaSweep> host_lda_sweep();
// The GPU's kernels, in double; null (with why) where no CUDA device runs.
std::unique_ptr<LdaSweep> gpu_lda_sweep(std::string* why = nullptr);

struct LdaSbcQuantity {
  std::string name;
  std::vector<int> rank_counts;  // L + 1 cells
  double statistic = 0, p_value = 1;
  bool rejected = false;
};

enum class LdaSbcVerdict {
  Calibrated,     // the chain stationary, every quantity's ranks uniform
  NotCalibrated,  // the chain stationary, some quantity's ranks not uniform
  Inconclusive,   // the chain still drifting: the ranks say nothing either way
};

struct LdaSbcResult {
  std::vector<LdaSbcQuantity> quantities;
  double alpha_each = 0;
  bool ok = true;  // no quantity rejected
  // The drift test: the mean over replications of (the kept draws' mean
  // log-likelihood - the log-likelihood after `burn` sweeps), its two-sided
  // p-value, and whether it stayed above alpha (always when R = 1).
  double drift = 0, drift_p_value = 1;
  bool settled = true;
  LdaSbcVerdict verdict = LdaSbcVerdict::Calibrated;
  double seconds = 0;
};

// "calibrated", "not calibrated", "inconclusive".
const char* to_string(LdaSbcVerdict v);

// Throws std::invalid_argument for a config out of range (sizes >= 1,
// priors > 0 and finite, draws >= 1, thin >= 1, burn >= 0).
LdaSbcResult run_lda_sbc(const LdaSbcConfig& config, LdaSweep& sweep);
inline LdaSbcResult run_lda_sbc(const LdaSbcConfig& config) {
  auto sweep = host_lda_sweep();
  return run_lda_sbc(config, *sweep);
}

}  // namespace warpsim::properties
