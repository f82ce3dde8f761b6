// An alias table over weights split into shards (one a process: dist/alias.hpp
// runs the collective steps), with a law equal to the one table's over all
// the weights.
//
//   1. The unit is the one table's (units.hpp): from the largest weight of
//      all shards, e' = ilogb(max) - 63, and the exact sum S' of every shard's
//      fine_sum (integers: the order of the shards' additions is immaterial),
//      unit_scale(e', S'). Every item's u_i is then the one table's, and the
//      shards' masses U_s = sum of u_i over shard s add up to its U.
//   2. Each shard builds its own table from its u_i (capacity U_s): item i of
//      shard s drawn with probability u_i / U_s, exactly (table.hpp).
//   3. The top level: n draws of the whole split over the shards by a
//      multinomial with probabilities U_s / U (split_draws: binomials, each
//      p = U_s / (U - U_0 - ... - U_{s-1}) rounded once to a double, which
//      moves a shard's probability by at most about 2^-52 of itself). Shard s
//      makes its n_s draws from its table: draw j from philox_bits128(seed, j,
//      1 + s) (shard_draw), so item i is drawn with probability u_i / U.
//
// What is and is not bit for bit: every u_i, U and each shard's probability
// u_i / U_s equal the one table's; the table rows and the draws do not (other
// rows, other random bits). An item of the whole is named by its shard and
// its index there (a table holds at most 2^32 items; the whole at most 2^32
// a shard): global index = the shard's offset + local index, 64 bits.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "oracle/alias/psa.hpp"
#include "oracle/alias/table.hpp"
#include "oracle/alias/units.hpp"
#include "rng/binomial.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::oracle::alias {

// The largest weight of a shard (0 for none), after checking every weight
// (std::invalid_argument naming the local index: NaN, infinite, negative).
template <class T>
double shard_largest(std::span<const T> w) {
  double largest = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double x = static_cast<double>(w[i]);
    if (std::isnan(x)) throw std::invalid_argument("weight " + std::to_string(i) + " is not a number");
    if (std::isinf(x)) throw std::invalid_argument("weight " + std::to_string(i) + " is infinite");
    if (x < 0) throw std::invalid_argument("weight " + std::to_string(i) + " is negative");
    largest = std::max(largest, x);
  }
  return largest;
}

// The fine exponent e' of the largest weight of all shards (> 0).
inline int fine_exponent_of(double largest) { return std::ilogb(largest) - 63; }

// A shard's sum of a_i = floor(w_i / 2^e') (exact; < 2^96 a shard).
template <class T>
u128 shard_fine_sum(std::span<const T> w, int fine_exponent) {
  u128 s = 0;
  for (const T x : w) s += fine_units(x, fine_exponent);
  return s;
}

// A shard's units at the whole's scale; total = the shard's mass U_s.
template <class T>
Units shard_units(std::span<const T> w, UnitScale scale) {
  Units u;
  u.exponent = scale.exponent;
  u.units.resize(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    u.units[i] = fine_units(w[i], scale.fine_exponent) >> scale.shift();
    u.total += u.units[i];
  }
  return u;
}

// A shard's table: PSA on its units (no rows for a shard of no mass).
inline Table shard_table(const Units& u, std::size_t sections = 1) {
  if (u.total == 0) return Table{0, u.exponent, {}, {}};
  if (u.units.size() > (std::size_t{1} << 32)) throw std::invalid_argument("a shard holds more than 2^32 items");
  return psa(u, sections);
}

// n draws split over shards of masses U_s (sum U < 2^62): n_s, summing to n.
// Binomial s's uniforms come from philox(seed, s, 0xffffffff): the same split
// on every process.
inline std::vector<std::uint64_t> split_draws(std::uint64_t n, std::span<const std::uint64_t> masses, std::uint64_t seed) {
  std::vector<std::uint64_t> out(masses.size(), 0);
  std::uint64_t left_mass = 0;
  for (const auto m : masses) left_mass += m;
  std::uint64_t left = n;
  for (std::size_t s = 0; s < masses.size() && left > 0; ++s) {
    if (masses[s] == 0) continue;
    if (masses[s] == left_mass) {  // the last shard of any mass takes the rest
      out[s] = left;
      left = 0;
      break;
    }
    std::uint32_t word = 0;
    auto next = [&] { return rng::uniform_of<double>(rng::philox_bits(seed, s, 0xffffffffu, word++)); };
    out[s] = rng::binomial(left, static_cast<double>(masses[s]) / static_cast<double>(left_mass), next);
    left -= out[s];
    left_mass -= masses[s];
  }
  return out;
}

// Draw j of shard s (a local index).
inline std::uint32_t shard_draw(const Table& t, std::uint64_t seed, std::uint32_t shard, std::uint64_t j) {
  const auto x = rng::philox_bits128(seed, j, 1 + shard);
  return sample_bits(t, x.hi, x.lo);
}

}  // namespace warpsim::oracle::alias
