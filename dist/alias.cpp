#include "dist/alias.hpp"

#include <boost/math/distributions/chi_squared.hpp>

#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "oracle/alias/sharded.hpp"
#include "stats/binomial.hpp"

namespace warpsim::dist {

namespace al = oracle::alias;

// Every rank's value in slot `rank`, summed: every rank's values, on every rank.
std::vector<std::uint64_t> all_of(const Communicator& comm, std::uint64_t mine) {
  std::vector<std::uint64_t> v(static_cast<std::size_t>(comm.size()), 0);
  v[static_cast<std::size_t>(comm.rank())] = mine;
  comm.sum(v);
  return v;
}

// An exact sum of 128-bit integers below 2^96 each, over the ranks: in
// 32-bit limbs, each summed as a 64-bit integer (no carry lost below 2^32 ranks).
al::u128 sum_u128(const Communicator& comm, al::u128 x) {
  std::vector<std::uint64_t> limbs(4);
  for (int k = 0; k < 4; ++k) limbs[static_cast<std::size_t>(k)] = static_cast<std::uint64_t>(x >> (32 * k)) & 0xffffffffu;
  comm.sum(limbs);
  al::u128 s = 0;
  for (int k = 0; k < 4; ++k) s += static_cast<al::u128>(limbs[static_cast<std::size_t>(k)]) << (32 * k);
  return s;
}

namespace {

// The mean and variance of one cell's deviance term 2 (O ln(O / E) - (O - E))
// for O ~ Poisson(E): summed over O where E < 100, else the expansion
// mean 1 + 1 / (6 E), variance 2 (1 + 1 / (6 E))^2 (errors O(E^-2)).
// The multinomial's cells are Poisson counts conditioned on their total,
// which takes one degree of freedom away: negligible over the many cells
// this check is for (it makes the test slightly conservative).
struct Moments {
  double mean = 0, variance = 0;
};
Moments deviance_moments(double e) {
  if (e >= 100) {
    const double m = 1 + 1 / (6 * e);
    return {m, 2 * m * m};
  }
  const double sd = std::sqrt(e);
  const auto lo = static_cast<std::uint64_t>(std::max(0.0, std::floor(e - 14 * sd - 10)));
  const auto hi = static_cast<std::uint64_t>(std::ceil(e + 14 * sd + 20));
  double s1 = 0, s2 = 0, mass = 0;
  for (std::uint64_t k = lo; k <= hi; ++k) {
    const double o = static_cast<double>(k);
    const double p = std::exp(o * std::log(e) - e - std::lgamma(o + 1));
    const double d = 2 * ((o > 0 ? o * std::log(o / e) : 0) - (o - e));
    s1 += p * d;
    s2 += p * d * d;
    mass += p;
  }
  s1 /= mass;
  s2 /= mass;
  return {s1, s2 - s1 * s1};
}

}  // namespace

template <class T>
ShardedAlias build_sharded_alias(const Communicator& comm, std::span<const T> weights) {
  const auto t0 = std::chrono::steady_clock::now();
  ShardedAlias s;
  s.shard = comm.rank();
  const auto sizes = all_of(comm, weights.size());
  for (int r = 0; r < comm.rank(); ++r) s.offset += sizes[static_cast<std::size_t>(r)];
  for (const auto n : sizes) s.items += n;
  double largest = 0;
  try {
    largest = al::shard_largest(weights);
  } catch (const std::invalid_argument& e) {
    // (its local index made global)
    std::string what = e.what();
    const auto sp = what.find(' '), sp2 = what.find(' ', sp + 1);
    const std::uint64_t local = std::stoull(what.substr(sp + 1, sp2 - sp - 1));
    comm.abort(2, "weight " + std::to_string(s.offset + local) + what.substr(sp2) + " (this rank's weight " + std::to_string(local) + ")");
  }
  largest = comm.max(largest);
  if (!(largest > 0)) throw std::invalid_argument("every weight of every shard is 0: there is no distribution");
  const int fine = al::fine_exponent_of(largest);
  const al::u128 fine_sum = sum_u128(comm, al::shard_fine_sum(weights, fine));
  const al::UnitScale scale = al::unit_scale(fine, fine_sum);
  al::Units u = al::shard_units(weights, scale);
  s.exponent = scale.exponent;
  s.masses = all_of(comm, u.total);
  for (const auto m : s.masses) s.total += m;
  s.table = al::shard_table(u);
  s.units = std::move(u.units);
  s.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

template ShardedAlias build_sharded_alias<float>(const Communicator&, std::span<const float>);
template ShardedAlias build_sharded_alias<double>(const Communicator&, std::span<const double>);

std::vector<std::uint64_t> sample_counts(const Communicator& comm, const ShardedAlias& t, std::uint64_t n, std::uint64_t seed, std::uint64_t* draws) {
  const auto split = al::split_draws(n, t.masses, seed);
  const std::uint64_t mine = split[static_cast<std::size_t>(comm.rank())];
  std::vector<std::uint64_t> counts(t.units.size(), 0);
  for (std::uint64_t j = 0; j < mine; ++j) counts[al::shard_draw(t.table, seed, static_cast<std::uint32_t>(t.shard), j)] += 1;
  if (draws) *draws = mine;
  return counts;
}

PartsVerdict law_in_parts(const Communicator& comm, const ShardedAlias& t, std::span<const std::uint64_t> counts, double alpha) {
  return law_in_parts(comm, t.units, t.total, t.items, counts, alpha);
}

PartsVerdict law_in_parts(const Communicator& comm, std::span<const std::uint64_t> masses, std::uint64_t total_units, std::uint64_t cells_total,
                          std::span<const std::uint64_t> counts, double alpha, std::span<const std::uint64_t> parts) {
  if (masses.size() != counts.size()) throw std::invalid_argument("law_in_parts: a count for each cell");
  std::uint64_t in_parts = 0;
  for (const auto c : parts) in_parts += c;
  if (!parts.empty() && in_parts != counts.size()) throw std::invalid_argument("law_in_parts: the parts do not cover the cells");
  PartsVerdict v;
  v.items = cells_total;
  std::uint64_t local_draws = 0;
  for (const auto c : counts) local_draws += c;
  std::vector<std::uint64_t> n{local_draws};
  comm.sum(n);
  v.draws = n[0];
  const double each = alpha / 3;
  const double total = static_cast<double>(total_units), draws = static_cast<double>(v.draws);
  // Each shard's parts of the statistics (its cells of expected count < 5
  // pooled into one): the doubles are gathered (as round-trip text) and
  // summed in shard order, the same sum on every rank.
  std::uint64_t cells = 0, rejected = 0, zero = 0;
  const double bonferroni = each / static_cast<double>(cells_total);
  const std::vector<std::uint64_t> shards = parts.empty() ? std::vector<std::uint64_t>{counts.size()} : std::vector<std::uint64_t>(parts.begin(), parts.end());
  std::ostringstream mine;
  mine.precision(17);
  std::size_t i = 0;
  for (const std::uint64_t shard_cells : shards) {
    double pearson = 0, g = 0, pool_o = 0, pool_e = 0, g_mean = 0, g_var = 0, inverse_e = 0;
    for (const std::size_t end_i = i + shard_cells; i < end_i; ++i) {
      const double p = static_cast<double>(masses[i]) / total;
      const double e = draws * p, o = static_cast<double>(counts[i]);
      if (masses[i] == 0) {
        zero += counts[i];
        continue;
      }
      if (e >= 5) {
        pearson += (o - e) * (o - e) / e;
        if (o > 0) g += 2 * o * std::log(o / e);
        g -= 2 * (o - e);  // (the G statistic's form whose terms need no pooling of the total)
        const auto m = deviance_moments(e);
        g_mean += m.mean;
        g_var += m.variance;
        inverse_e += 1 / e;
        ++cells;
      } else {
        pool_o += o;
        pool_e += e;
      }
      // Within 2 standard deviations of a mean of 25 or more, the exact
      // p-value is about 0.05 (the normal limit is within a few per cent
      // there), far above a Bonferroni level under 0.01: the exact test is skipped.
      const bool central = bonferroni < 0.01 && e >= 25 && (o - e) * (o - e) < 4 * e * (1 - p);
      if (!central && stats::binomial_two_sided_p_value(counts[i], v.draws, p) < bonferroni) ++rejected;
    }
    if (pool_e >= 5) {
      pearson += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
      if (pool_o > 0) g += 2 * pool_o * std::log(pool_o / pool_e);
      g -= 2 * (pool_o - pool_e);
      const auto m = deviance_moments(pool_e);
      g_mean += m.mean;
      g_var += m.variance;
      inverse_e += 1 / pool_e;
      ++cells;
    }
    mine << pearson << " " << g << " " << g_mean << " " << g_var << " " << inverse_e << " ";
  }
  double sum_mean = 0, sum_var = 0, sum_inverse_e = 0;
  for (const auto& rank_parts : comm.gather(mine.str())) {
    std::istringstream in(rank_parts);
    double a = 0, b = 0, c = 0, d = 0, f = 0;
    while (in >> a >> b >> c >> d >> f) {
      sum_inverse_e += f;
      v.pearson += a;
      v.g += b;
      sum_mean += c;
      sum_var += d;
    }
  }
  std::vector<std::uint64_t> ints{cells, rejected, zero};
  comm.sum(ints);
  v.cells = ints[0];
  v.binomial_rejected = ints[1];
  v.zero_weight_draws = ints[2];
  if (v.cells >= 2) {
    // Pearson's statistic over k cells of a multinomial has mean k - 1 and
    // variance 2 (k - 1) + sum(1 / E_i) - (k^2 + 2 k - 2) / n, above the
    // chi-square's 2 (k - 1) at small expected counts: it is compared with the
    // scaled chi-square of those two moments (Satterthwaite), as G is.
    const double k = static_cast<double>(v.cells);
    const double p_mean = k - 1, p_var = std::max(2 * (k - 1), 2 * (k - 1) + sum_inverse_e - (k * k + 2 * k - 2) / draws);
    v.pearson_p = boost::math::cdf(boost::math::complement(boost::math::chi_squared(2 * p_mean * p_mean / p_var), std::max(0.0, v.pearson * 2 * p_mean / p_var)));
    // G's terms have means above 1 at small expected counts (by about
    // 1 / (6 E)), which over 10^5 cells moves G by several of its standard
    // deviations: G is compared with the scaled chi-square a chi2(nu) of its
    // null mean and variance (Satterthwaite), each cell's from deviance_moments.
    const double a = sum_var / (2 * sum_mean), nu = 2 * sum_mean * sum_mean / sum_var;
    v.g_p = boost::math::cdf(boost::math::complement(boost::math::chi_squared(nu), std::max(0.0, v.g / a)));
  }
  v.consistent = v.zero_weight_draws == 0 && v.binomial_rejected == 0 && v.pearson_p >= each && v.g_p >= each;
  return v;
}

std::string PartsVerdict::text() const {
  std::ostringstream s;
  s << draws << " draws of " << items << " items: chi-square " << pearson << " over " << cells << " cells (p " << pearson_p << "), G " << g
    << " (p " << g_p << "), " << binomial_rejected << " items rejected by their binomial test, " << zero_weight_draws << " draws of weight 0: "
    << (consistent ? "CONSISTENT" : "INCONSISTENT");
  return s.str();
}

}  // namespace warpsim::dist
