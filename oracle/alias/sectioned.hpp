// Sectioned sampling (seed 001, Sec. 3.4.2-3.4.4 and 4.7.3): n draws from a
// table split into sections of at most S rows, each group drawing its share
// from its own section (cache- or shared-memory-resident) without talking to
// the others.
//
// The sections: the leaves of a complete binary tree of depth D, the least
// d with ceil(N / 2^d) <= S (so 2^D sections, all at one depth, which lets a
// GPU thread walk from the root to its own section). Node i at depth d holds
// rows [floor(i N / 2^d), floor((i + 1) N / 2^d)); its left child ends at
// floor((2 i + 1) N / 2^(d + 1)). Node (d, i) has the id 2^d + i.
//
// The shares: the root holds the n draws; a node with c draws sends
// Binomial(c, left rows / rows) of them to its left child and the rest to
// its right. Rows are drawn uniformly, so this is exactly the multinomial of
// n draws over the sections (the thesis draws a rounded normal deviate
// instead, errata E13). The binomial is rng::section_split: node id's
// uniforms in the batch's Philox streams (rng/binomial.hpp, the same code on
// the host and the device).
//
// The draws: a batch is n draws numbered first .. first + n - 1; draw d =
// first + i takes half a Philox block (rng/half_block.hpp: half d & 1 of
// block (seed, stream 2^63 + (d >> 1), 0), two 32-bit words): a row of its
// section, exactly uniform, from the first word (index_below), and the
// row's 64-bit threshold against the second word and, on a tie, one more
// (bits_below) -- the law of table.hpp's sample_bits, each row exactly
// 1 / rows and each coin exactly t / 2^64, at half its Philox cost. Draws come out grouped by
// section, not in i.i.d. order; `shuffle_batch` puts them in a uniformly
// random one: output position i gets the key hi of the Philox block (seed,
// stream 2^62 + first + i, 0), and the draws are stably sorted by key.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <string>
#include <vector>

#include "oracle/alias/table.hpp"
#include "rng/binomial.hpp"
#include "rng/half_block.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::oracle::alias {

struct Section {
  std::size_t first_row = 0, rows = 0;
  std::uint64_t draws = 0;
};

// The least depth D with ceil(rows / 2^D) <= section_rows. Throws if the
// node ids would not fit 32 bits (D > 31).
inline int section_depth(std::size_t rows, std::size_t section_rows) {
  if (section_rows == 0) throw std::invalid_argument("sections need at least one row");
  int d = 0;
  while ((rows + (std::size_t{1} << d) - 1) >> d > section_rows) ++d;
  if (d > 31) throw std::invalid_argument("sections of " + std::to_string(section_rows) + " rows: more than 2^31 sections");
  return d;
}

// Node (d, i)'s first row: floor(i N / 2^d).
inline std::size_t node_first_row(std::size_t rows, int d, std::uint64_t i) {
  return static_cast<std::size_t>((static_cast<u128>(i) * rows) >> d);
}

// The 2^D sections and their shares of the batch's n draws, in row order.
inline std::vector<Section> sections(std::size_t rows, std::size_t section_rows, std::uint64_t n, std::uint64_t seed,
                                     std::uint64_t first = 0) {
  const int depth = section_depth(rows, section_rows);
  std::vector<std::uint64_t> draws{n};  // the nodes of depth d, left to right
  for (int d = 0; d < depth; ++d) {
    std::vector<std::uint64_t> next(draws.size() * 2);
    for (std::uint64_t i = 0; i < draws.size(); ++i) {
      const std::size_t lo = node_first_row(rows, d, i), mid = node_first_row(rows, d + 1, 2 * i + 1), hi = node_first_row(rows, d, i + 1);
      const auto id = static_cast<std::uint32_t>((std::uint64_t{1} << d) + i);
      const std::uint64_t left = hi == lo ? 0 : rng::section_split(seed, first, id, draws[i], mid - lo, hi - lo);
      next[2 * i] = left;
      next[2 * i + 1] = draws[i] - left;
    }
    draws = std::move(next);
  }
  std::vector<Section> out(draws.size());
  for (std::uint64_t j = 0; j < draws.size(); ++j) {
    const std::size_t lo = node_first_row(rows, depth, j);
    out[j] = {lo, node_first_row(rows, depth, j + 1) - lo, draws[j]};
  }
  return out;
}

inline constexpr std::uint64_t kSectionedDrawStreams = std::uint64_t{1} << 63;

// Draw d from the section of `rows` rows from `first_row`.
inline std::uint32_t sectioned_draw(const Table& t, std::size_t first_row, std::size_t rows, std::uint64_t seed, std::uint64_t d) {
  rng::HalfBlock bits(seed, kSectionedDrawStreams, d);
  const std::size_t k = first_row + rng::index_below(bits.first(), static_cast<std::uint32_t>(rows), bits);
  return rng::bits_below(bits.second(), threshold(t.keep[k], t.capacity), bits) ? static_cast<std::uint32_t>(k) : sampled_alias(t, k);
}

// A batch of n draws, first .. first + n - 1, grouped by section.
inline std::vector<std::uint32_t> sample_sectioned(const Table& t, std::size_t section_rows, std::uint64_t n, std::uint64_t seed,
                                                   std::uint64_t first = 0) {
  std::vector<std::uint32_t> out;
  out.reserve(static_cast<std::size_t>(n));
  for (const auto& s : sections(t.size(), section_rows, n, seed, first)) {
    for (std::uint64_t d = 0; d < s.draws; ++d) out.push_back(sectioned_draw(t, s.first_row, s.rows, seed, first + out.size()));
  }
  return out;
}

// The batch in the random order of its keys (ties, at 2^-64 a pair, keep
// their positions' order).
inline void shuffle_batch(std::vector<std::uint32_t>& draws, std::uint64_t seed, std::uint64_t first = 0) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(draws.size());
  for (std::size_t i = 0; i < draws.size(); ++i) keyed[i] = {rng::philox_bits128(seed, (std::uint64_t{1} << 62) + first + i, 0).hi, draws[i]};
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < draws.size(); ++i) draws[i] = keyed[i].second;
}

}  // namespace warpsim::oracle::alias
