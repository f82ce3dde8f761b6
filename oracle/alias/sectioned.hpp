// Sectioned sampling (seed 001, Sec. 3.4.2-3.4.4 and 4.7.3): n draws from a
// table split into sections of at most S rows, each group drawing its share
// from its own section (cache- or shared-memory-resident) without talking to
// the others. The shares come from a recursion: the whole table is one
// section, split in half (the left half takes floor(rows / 2) rows), and the
// n draws are divided as a binomial Binomial(n, left rows / rows) -- rows are
// drawn uniformly, so this is exactly the multinomial of n draws over the
// sections. The thesis draws a rounded normal deviate there instead (errata
// E13); this oracle draws the binomial itself, by inversion of its CDF
// (Boost.Math's quantile, rounding up: the smallest k with CDF(k) >= u), with
// node t of the recursion (t = 1 the root, 2t and 2t + 1 its halves) using
// u = rng::uniform<double>(seed, t, 0). Within a section, output draw d takes
// the 128 bits of rng/'s Philox block (seed, stream = 2^63 + d, 0): a row of
// the section from the high word, the row's threshold against the low one
// (table.hpp, sample_bits). Draws come out grouped by section, not in i.i.d.
// order.
#pragma once

#include <boost/math/distributions/binomial.hpp>

#include <cstdint>
#include <vector>

#include "oracle/alias/table.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::oracle::alias {

struct Section {
  std::size_t first_row = 0, rows = 0;
  std::uint64_t draws = 0;
};

// The binomial split of node t: Binomial(n, p) by inversion.
inline std::uint64_t binomial_split(std::uint64_t n, double p, std::uint64_t seed, std::uint64_t node) {
  if (n == 0 || p <= 0) return 0;
  if (p >= 1) return n;
  using namespace boost::math::policies;
  using Binomial = boost::math::binomial_distribution<double, policy<discrete_quantile<integer_round_up>>>;
  const double u = rng::uniform<double>(seed, node, 0);
  if (u == 0) return 0;
  const double k = boost::math::quantile(Binomial(static_cast<double>(n), p), u);
  return static_cast<std::uint64_t>(std::min(k, static_cast<double>(n)));
}

// The sections of at most `section_rows` rows and their shares of n draws.
inline std::vector<Section> sections(std::size_t rows, std::size_t section_rows, std::uint64_t n, std::uint64_t seed) {
  std::vector<Section> out;
  struct Node {
    std::size_t first, rows;
    std::uint64_t draws, id;
  };
  std::vector<Node> stack{{0, rows, n, 1}};
  while (!stack.empty()) {
    const Node x = stack.back();
    stack.pop_back();
    if (x.rows <= section_rows || x.rows < 2) {
      out.push_back({x.first, x.rows, x.draws});
      continue;
    }
    const std::size_t left = x.rows / 2;
    const std::uint64_t to_left = binomial_split(x.draws, static_cast<double>(left) / static_cast<double>(x.rows), seed, x.id);
    stack.push_back({x.first + left, x.rows - left, x.draws - to_left, 2 * x.id + 1});
    stack.push_back({x.first, left, to_left, 2 * x.id});
  }
  return out;  // in row order (left before right)
}

// The draws, grouped by section; draw d of the output uses stream 2^63 + d.
inline std::vector<std::uint32_t> sample_sectioned(const Table& t, std::size_t section_rows, std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> out;
  out.reserve(static_cast<std::size_t>(n));
  for (const auto& s : sections(t.size(), section_rows, n, seed)) {
    for (std::uint64_t d = 0; d < s.draws; ++d) {
      const auto x = rng::philox_bits128(seed, (std::uint64_t{1} << 63) + out.size(), 0);
      out.push_back(sample_bits(t, x.hi, x.lo, s.first_row, s.rows));  // a row of the section, then its threshold
    }
  }
  return out;
}

}  // namespace warpsim::oracle::alias
