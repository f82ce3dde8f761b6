// `warpsim alias build`: an alias table from a file of weights, by one of
// the constructions of oracle/alias/ (docs/alias.md), with its exact check.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "cli/input/sources.hpp"

namespace CLI {
class App;
}

namespace warpsim::cli {

struct AliasOptions {
  std::string action;             // build | sharded
  std::string weights;
  std::optional<std::string> dtype;
  std::string method = "sweep";   // walker | vose | sweep | psa | psa+
  std::optional<std::size_t> splits;  // psa, psa+: sections (default 1 per 1,024 items)
  std::optional<std::size_t> group;   // psa+: the greedy group size (default 1,024)
  std::optional<std::size_t> lanes;   // psa+: lanes sharing a group (default 32, a warp)
  bool counters = false;              // psa, psa+: also build on the warp model and print its counters
  bool device = false;                // psa: also build with the GPU kernels (gpu/alias_table.hpp) and check the table
  std::string split = "pary";         // --counters: binary | pary
  std::string pack = "chunked";       // --counters: global | shared | chunked
  std::string format = "text";
  // sharded (cli/alias_sharded.cpp): the weights over mpirun's ranks
  std::optional<std::uint64_t> generate;  // N weights made from --seed instead of --weights
  std::optional<std::uint64_t> draws;     // draws of the whole, the law checked
  std::uint64_t seed = 1;
  double alpha = 1e-3;
  std::string on = "host";                 // host | gpu: where each rank builds and samples its shards
  std::optional<std::uint64_t> piece_items;  // --on gpu: items a shard (default 2^30; a rank holds whole shards)
  std::optional<std::uint64_t> bin_items;    // --on gpu: items a bin of the law check (default 1,024, a power of two)
};

// Walker's construction is O(N^2): it takes at most this many items, which
// it builds in well under a second (0.16 s optimised; 2^16 took minutes under
// the sanitizers).
inline constexpr std::size_t kWalkerMaxItems = 1 << 13;
// --counters runs the warp model (about a microsecond an item): at most this many.
inline constexpr std::size_t kModelMaxItems = 1 << 22;

CLI::App* add_alias_command(CLI::App& app, AliasOptions& o);

// 0; throws UsageError for bad input or options.
int run_alias(const AliasOptions& o, std::ostream& out, const InputSource& inputs);

// `warpsim alias sharded` (under mpirun: one shard a rank; docs/distributed.md):
// 0 consistent, 1 not; a rank's bad input ends the job (exit 2).
int run_alias_sharded(const AliasOptions& o, std::ostream& out, const InputSource& inputs);

}  // namespace warpsim::cli
