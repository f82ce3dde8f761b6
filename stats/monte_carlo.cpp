#include "stats/monte_carlo.hpp"

#include <algorithm>
#include <bit>
#include <boost/random/binomial_distribution.hpp>
#include <cmath>
#include <stdexcept>

#include "stats/input_checks.hpp"

namespace warpsim::stats {

MultinomialSampler::MultinomialSampler(std::span<const double> p) : conditional_(p.size()) {
  checked_weights_total(p, "multinomial: the probabilities");
  // conditional_[i] = p_i / (p_i + ... + p_{K-1}), from the back in long
  // double so that the last positive category takes everything left (1).
  long double suffix = 0;
  for (std::size_t i = p.size(); i-- > 0;) {
    suffix += p[i];
    conditional_[i] = suffix > 0 ? static_cast<double>(std::min(1.0L, p[i] / suffix)) : 0.0;
  }
}

void MultinomialSampler::draw(std::mt19937_64& rng, std::uint64_t n, std::span<double> counts) const {
  if (counts.size() != conditional_.size()) throw std::invalid_argument("multinomial: counts and probabilities differ in length");
  std::uint64_t left = n;
  for (std::size_t i = 0; i < conditional_.size(); ++i) {
    std::uint64_t x = 0;
    const double q = conditional_[i];
    if (left > 0 && q >= 1) {
      x = left;
    } else if (left > 0 && q > 0) {
      x = static_cast<std::uint64_t>(boost::random::binomial_distribution<std::int64_t, double>(static_cast<std::int64_t>(left), q)(rng));
    }
    counts[i] = static_cast<double>(x);
    left -= x;
  }
}

std::uint64_t seed_from_counts(std::span<const double> counts, std::uint64_t salt) {
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::uint64_t h = mix(salt ^ counts.size());
  for (double c : counts) h = mix(h ^ std::bit_cast<std::uint64_t>(c));
  return h;
}

SequentialP sequential_p_value(double observed, const NullStatistic& simulate, const SequentialOptions& o) {
  if (o.max_replicates == 0 || o.stop_after == 0) throw std::invalid_argument("sequential Monte Carlo: needs replicates and h >= 1");
  std::mt19937_64 rng(o.seed);
  SequentialP r;
  for (r.replicates = 1; r.replicates <= o.max_replicates; ++r.replicates) {
    if (simulate(rng) >= observed && ++r.exceedances == o.stop_after) {
      r.stopped_early = true;
      r.p_value = static_cast<double>(o.stop_after) / static_cast<double>(r.replicates);
      return r;
    }
  }
  r.replicates = o.max_replicates;
  r.p_value = (static_cast<double>(r.exceedances) + 1) / (static_cast<double>(o.max_replicates) + 1);
  return r;
}

std::uint64_t replicates_to_resolve(double alpha, std::uint64_t h, std::uint64_t floor_replicates) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("replicates_to_resolve: alpha must lie in (0, 1)");
  const double b = std::ceil(static_cast<double>(h) / alpha) - 1;
  return std::max(floor_replicates, b >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(b));
}

double randomised_p_value(double observed, std::uint64_t replicates, const NullStatistic& simulate, std::mt19937_64& rng) {
  std::uint64_t above = 0, ties = 0;
  for (std::uint64_t b = 0; b < replicates; ++b) {
    const double t = simulate(rng);
    above += t > observed;
    ties += t == observed;
  }
  // rank from the top: 1 + the values above + a uniform share of the ties
  const std::uint64_t rank = 1 + above + std::uniform_int_distribution<std::uint64_t>(0, ties)(rng);
  const double v = std::uniform_real_distribution<double>(0, 1)(rng);
  return std::clamp((static_cast<double>(rank) - v) / (static_cast<double>(replicates) + 1), 0.0, 1.0);
}

}  // namespace warpsim::stats
