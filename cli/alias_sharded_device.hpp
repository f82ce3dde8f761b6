// `warpsim alias sharded --on gpu`: a table too large for one GPU, its
// shards built and sampled on the ranks' GPUs (gpu/alias_table.hpp's
// build_at and alias_sample_shard_bins), at the whole's unit
// (oracle/alias/sharded.hpp's steps, each rank's shards on its device).
//
// The shards are fixed by the item count and --piece-items alone (shard g:
// items g P .. (g + 1) P - 1), each rank holding whole shards
// (dist::share_of over the shards): the unit, the masses, the split of the
// draws and every draw are the same for any number of ranks. The weights
// are --generate's (cli/generated_weights.hpp), made on the device three
// times (the largest, the exact sum, the build) and never kept; a shard's
// rows stay (16 bytes an item). The draws are counted in bins of
// --bin-items consecutive items, whose masses (sums of u_i) are exact: the
// law is checked over the bins (dist::law_in_parts).
#pragma once

#include <cstdint>
#include <vector>

#include "dist/communicator.hpp"

namespace warpsim::cli {

struct GpuShardedRun {
  std::uint64_t items = 0, piece_items = 0, pieces = 0, bin_items = 0;
  int exponent = 0;                   // the unit, 2^exponent
  std::uint64_t total = 0;            // U
  std::vector<std::uint64_t> masses;  // every shard's U_g
  // This rank's:
  int device = -1;
  std::uint64_t first_piece = 0, own_pieces = 0, own_items = 0, draws = 0;
  double generate_seconds = 0, build_seconds = 0, sample_seconds = 0;
  std::uint64_t rows_bytes = 0, peak_bytes = 0;  // its shards' rows; the most device memory in use (cudaMemGetInfo)
  std::vector<std::uint64_t> bin_masses, bin_counts;  // its shards' bins, in order
  std::vector<std::uint64_t> shard_bins;              // how many bins each of its shards has
  std::uint64_t bins = 0;                             // over every rank
};

// Throws UsageError where no CUDA device runs (or warpsim has no CUDA).
GpuShardedRun run_sharded_on_gpu(const dist::Communicator& comm, std::uint64_t items, std::uint64_t piece_items, std::uint64_t bin_items,
                                 std::uint64_t draws, std::uint64_t seed);

}  // namespace warpsim::cli
