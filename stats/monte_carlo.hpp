// Monte Carlo p-values: the null distribution of a statistic simulated, not
// approximated, so that a p-value is valid whatever the expected counts are.
//
// A Monte Carlo p-value is valid (P(p <= u) <= u for every u, exactly, over
// the data and the simulation together) when the observed statistic and the
// simulated ones are the same function of samples drawn from the same law:
// the B + 1 values are then exchangeable. Two forms:
//   - sequential (Besag & Clifford 1991): simulate until h replicates reach
//     the observed value (p = h / L after L replicates) or until B_max (p =
//     (g + 1) / (B_max + 1) with g reaching): a few dozen replicates where p
//     is large, B_max only where it is small;
//   - randomised: the observed value's rank among B + 1 with ties broken at
//     random, less a uniform fraction: exactly Uniform(0, 1) under the null,
//     however discrete the statistic (what a second-level test needs).
//
// The simulation's seed. With one seed for every sample, the simulated null
// is one fixed sample, and the rate at which correct samplers are rejected
// is that sample's, anywhere from about half to twice alpha
// (tests/stats/calibration_test.cpp shows one). The tests therefore seed each simulation from the
// observed counts (seed_from_counts) unless given a seed: a report is
// reproducible, and over samples the rate is alpha's.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <vector>

namespace warpsim::stats {

// Multinomial(n, p) by conditional binomials: category i gets
// Binomial(n - drawn so far, p_i / (p_i + ... + p_{K-1})), each from
// Boost.Random's BTRD sampler (constant time a draw for any n; libstdc++'s
// std::binomial_distribution does not return for n near 2^60).
class MultinomialSampler {
 public:
  // `probabilities` non-negative with a positive sum (normalised here).
  explicit MultinomialSampler(std::span<const double> probabilities);
  // counts.size() == categories(); overwritten.
  void draw(std::mt19937_64& rng, std::uint64_t n, std::span<double> counts) const;
  std::size_t categories() const { return conditional_.size(); }

 private:
  std::vector<double> conditional_;
};

// A seed made from the counts' values (splitmix64 over their bits).
std::uint64_t seed_from_counts(std::span<const double> counts, std::uint64_t salt = 0);

// A uniform in [0, 1) from 53 of the generator's bits (std::uniform_real_
// distribution computes a logarithm a call in libstdc++: most of a
// simulation's time where a replicate draws one uniform a draw).
inline double unit_uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Simulates one sample under the null and returns its statistic.
using NullStatistic = std::function<double(std::mt19937_64&)>;

struct SequentialOptions {
  std::uint64_t max_replicates = 100'000;  // B_max
  std::uint64_t stop_after = 10;           // h: exceedances that end the run
  std::uint64_t seed = 20261129;
};

struct SequentialP {
  double p_value = 1;
  std::uint64_t replicates = 0;   // L
  std::uint64_t exceedances = 0;  // simulated values >= the observed one
  bool stopped_early = false;     // reached h before B_max
};

// Besag & Clifford's sequential p-value of `observed` (larger is more
// extreme; a simulated value equal to it counts as reaching it).
SequentialP sequential_p_value(double observed, const NullStatistic& simulate, const SequentialOptions& options);

// The replicates needed so that a sequential p-value can reach `alpha` with
// h exceedances to spare: ceil(h / alpha) - 1, and at least `floor_replicates`.
std::uint64_t replicates_to_resolve(double alpha, std::uint64_t h = 10, std::uint64_t floor_replicates = 10'000);

// The randomised p-value (r - V) / (B + 1): r the observed value's rank from
// the top among itself and B simulated values, ties broken uniformly at
// random, V ~ Uniform(0, 1). Exactly Uniform(0, 1) under the null.
double randomised_p_value(double observed, std::uint64_t replicates, const NullStatistic& simulate, std::mt19937_64& rng);

}  // namespace warpsim::stats
