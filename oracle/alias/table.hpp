// An alias table (seed 001, Sec. 2.4), in exact units (units.hpp).
//
// N rows (buckets), each of capacity U units. Row k keeps keep[k] units of
// item k and gives the other U - keep[k] to item alias[k]. Item i's mass in
// the table is keep[i] + sum of U - keep[k] over the rows k aliased to i; a
// correct table gives every item exactly m_i = N u_i, so it draws item i with
// probability u_i / U.
//
// Sampling, exactly: r uniform in [0, N U); row k = r / U; item k if
// r mod U < keep[k], else alias[k] (`sample`). (Sec. 2.4 states the rule with
// a float u: k = floor(u N), item k if (u N - k) W/N < T_k^w; errata E11: as
// printed the units of the two sides differ.)
//
// Sampling as the kernels do it (`sample_bits`), from 128 random bits: row
// k = floor(hi N / 2^64), then item k if lo < t_k, else the alias, with the
// row's threshold t_k = floor(keep[k] 2^64 / U) (2^64 - 1 for a full row,
// whose alias is then taken as k itself). Each row comes up with probability
// within 2^-64 of 1/N and keeps its item with probability t_k / 2^64, within
// 2^-64 of keep[k] / U: item i is drawn within a_i 2^-63 of its table
// probability, a_i the rows that give it mass. The threshold loses nothing:
// keep[k] = ceil(t_k U / 2^64), since U / 2^64 < 1/4 (U < 2^62).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "oracle/alias/units.hpp"

namespace warpsim::oracle::alias {

// The rows in the order a construction writes them (for `warpsim show alias`).
using WriteOrder = std::vector<std::uint32_t>;

struct Table {
  std::uint64_t capacity = 0;         // U
  int exponent = 0;                   // the unit, 2^exponent of the weights
  std::vector<std::uint64_t> keep;    // units of item k kept in row k, <= U
  std::vector<std::uint32_t> alias;   // who gets the rest of row k (k itself when keep == U)

  std::size_t size() const { return keep.size(); }
};

// Item i's mass in the table (keep[i] plus what rows aliased to i give it).
inline std::vector<u128> implied_mass(const Table& t) {
  std::vector<u128> mass(t.size(), 0);
  for (std::size_t k = 0; k < t.size(); ++k) {
    mass[k] += t.keep[k];
    mass[t.alias[k]] += t.capacity - t.keep[k];
  }
  return mass;
}

// Rows that send mass to another item (Smith and Jacobson count these).
inline std::size_t rows_with_alias(const Table& t) {
  std::size_t n = 0;
  for (std::size_t k = 0; k < t.size(); ++k) n += t.keep[k] < t.capacity && t.alias[k] != k ? 1 : 0;
  return n;
}

// "" if the table represents the units exactly and is well formed, else why not:
// every keep <= U, every alias in range, no mass for an item of weight 0
// (an alias names an item of positive weight wherever the row gives it any),
// and every item's implied mass equal to N u_i.
inline std::string check_table(const Table& t, const Units& u) {
  const std::size_t n = u.units.size();
  if (t.size() != n || t.alias.size() != n) return "the table has " + std::to_string(t.size()) + " rows for " + std::to_string(n) + " items";
  if (t.capacity != u.total) return "the capacity is not the total of the units";
  for (std::size_t k = 0; k < n; ++k) {
    if (t.keep[k] > t.capacity) return "row " + std::to_string(k) + " keeps more than its capacity";
    if (t.alias[k] >= n) return "row " + std::to_string(k) + "'s alias is out of range";
    if (t.keep[k] < t.capacity && u.units[t.alias[k]] == 0) return "row " + std::to_string(k) + " gives mass to an item of weight 0";
  }
  const auto mass = implied_mass(t);
  for (std::size_t i = 0; i < n; ++i) {
    if (mass[i] != static_cast<u128>(n) * u.units[i]) return "item " + std::to_string(i) + "'s implied mass is not N u_i";
  }
  return "";
}

// Row k's threshold, and back.
inline std::uint64_t threshold(std::uint64_t keep, std::uint64_t capacity) {
  if (keep >= capacity) return ~std::uint64_t{0};
  return static_cast<std::uint64_t>((static_cast<u128>(keep) << 64) / capacity);
}
inline std::uint64_t keep_of_threshold(std::uint64_t t, std::uint64_t capacity) {
  if (t == ~std::uint64_t{0}) return capacity;  // only a full row: floor(keep 2^64 / U) < 2^64 - 1 for keep < U
  return static_cast<std::uint64_t>((static_cast<u128>(t) * capacity + ((static_cast<u128>(1) << 64) - 1)) >> 64);
}
// The alias as sampled: a full row gives nothing away, so it names its own item.
inline std::uint32_t sampled_alias(const Table& t, std::size_t k) {
  return t.keep[k] >= t.capacity ? static_cast<std::uint32_t>(k) : t.alias[k];
}

// One draw from the 128 bits (hi, lo), among rows [first, first + rows).
inline std::uint32_t sample_bits(const Table& t, std::uint64_t hi, std::uint64_t lo, std::size_t first = 0, std::size_t rows = 0) {
  if (rows == 0) rows = t.size();
  const std::size_t k = first + static_cast<std::size_t>((static_cast<u128>(hi) * rows) >> 64);
  return lo < threshold(t.keep[k], t.capacity) ? static_cast<std::uint32_t>(k) : sampled_alias(t, k);
}

// One draw with r in [0, N U).
inline std::uint32_t sample(const Table& t, u128 r) {
  const auto k = static_cast<std::size_t>(r / t.capacity);
  const auto rem = static_cast<std::uint64_t>(r % t.capacity);
  return rem < t.keep[k] ? static_cast<std::uint32_t>(k) : t.alias[k];
}

}  // namespace warpsim::oracle::alias
