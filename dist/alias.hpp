// An alias table larger than one process's memory: the weights sharded over
// the ranks of a Communicator, a table built per shard, the whole's law that
// of one table over every weight (oracle/alias/sharded.hpp says how, and what
// is bit for bit), sampled by an exact multinomial split of n draws over the
// shards, and its law checked in parts so that no rank holds every count.
//
//   const auto t = dist::build_sharded_alias<double>(comm, my_weights);
//   const auto c = dist::sample_counts(comm, t, n, seed);   // this shard's items' counts
//   const auto v = dist::law_in_parts(comm, t, c, alpha);    // the same verdict on every rank
//
// Built on the host from the oracle's PSA (one shard a rank). A rank's bad
// weight (NaN, infinite, negative) ends the job (Communicator::abort, exit
// 2) naming its index in the whole; weights all 0 on every shard are a
// std::invalid_argument on every rank.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dist/communicator.hpp"
#include "oracle/alias/table.hpp"

namespace warpsim::dist {

struct ShardedAlias {
  int shard = 0;                      // this rank's
  std::uint64_t offset = 0;           // this shard's item i is item offset + i of the whole
  std::uint64_t items = 0;            // of the whole
  oracle::alias::Table table;         // this shard's (capacity: its mass U_s)
  std::vector<std::uint64_t> units;   // this shard's u_i
  std::vector<std::uint64_t> masses;  // every shard's U_s, by rank
  std::uint64_t total = 0;            // U, the sum of the masses
  int exponent = 0;                   // the unit, 2^exponent
  double build_seconds = 0;           // this rank's, the collective steps included
};

template <class T>
ShardedAlias build_sharded_alias(const Communicator& comm, std::span<const T> weights);

// The draws of the whole that fall to this shard (split_draws), counted per
// local item; `draws` gets their number.
std::vector<std::uint64_t> sample_counts(const Communicator& comm, const ShardedAlias& t, std::uint64_t n, std::uint64_t seed,
                                         std::uint64_t* draws = nullptr);

// The law of the whole's counts (each rank its shard's) against u_i / U,
// by statistics summed over the ranks:
//   pearson, g: Pearson's chi-square and the G statistic over the cells of
//     expected count >= 5, each shard's smaller ones pooled into one cell per
//     shard where that reaches 5 (else left out, which makes the statistic
//     stochastically smaller: conservative), each compared with the scaled
//     chi-square of its null mean and variance (Satterthwaite: at small
//     expected counts both vary more than the chi-square limit says);
//   binomial: every item's exact two-sided binomial test at alpha / items
//     (Bonferroni over every shard), reported as the number rejected;
//   zero: a draw of an item of weight 0 (a failure whatever its count).
// Each check runs at alpha / 3.
struct PartsVerdict {
  std::uint64_t draws = 0, items = 0, cells = 0;
  double pearson = 0, pearson_p = 1, g = 0, g_p = 1;
  std::uint64_t binomial_rejected = 0, zero_weight_draws = 0;
  bool consistent = true;
  std::string text() const;
};
PartsVerdict law_in_parts(const Communicator& comm, const ShardedAlias& t, std::span<const std::uint64_t> counts, double alpha);

// The same over cells of any size (the items of a table too large to count
// one by one, grouped in bins): this rank's cell c holds masses[c] of the
// whole's U units and drew counts[c]; `cells` over every rank (the
// binomial tests' Bonferroni count). A cell of mass 0 is one of weight 0.
// `parts`: how many of this rank's cells each of its shards holds, in
// order (empty: one shard). Each shard's share of the statistics is summed
// alone and the shards' sums added in the whole's shard order, so that
// where shards do not depend on the number of ranks, neither does any
// digit of the verdict.
PartsVerdict law_in_parts(const Communicator& comm, std::span<const std::uint64_t> masses, std::uint64_t total, std::uint64_t cells,
                          std::span<const std::uint64_t> counts, double alpha, std::span<const std::uint64_t> parts = {});

// The collective steps of a build whose parts are made elsewhere (a GPU's
// shards, cli/alias_sharded_device.cpp): every rank's value by rank, and an
// exact sum of 128-bit integers below 2^96 each.
std::vector<std::uint64_t> all_of(const Communicator& comm, std::uint64_t mine);
oracle::alias::u128 sum_u128(const Communicator& comm, oracle::alias::u128 x);

}  // namespace warpsim::dist
