#include "cli/alias_sharded_device.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/errors.hpp"
#include "cli/generated_weights.hpp"
#include "cli/validate/device.hpp"
#include "dist/alias.hpp"
#include "gpu/alias_table.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/launch.hpp"
#include "oracle/alias/sharded.hpp"

namespace warpsim::cli {

namespace {

double since(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

std::uint64_t used_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPSIM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return total_bytes - free_bytes;
}

// A shard's rows, freed with it.
struct Rows {
  gpu::AliasRow* p = nullptr;
  gpu::AliasTableInfo info;
  Rows() = default;
  Rows(Rows&& o) noexcept : p(o.p), info(o.info) { o.p = nullptr; }
  Rows(const Rows&) = delete;
  ~Rows() {
    if (p) cudaFree(p);
  }
};

}  // namespace

GpuShardedRun run_sharded_on_gpu(const dist::Communicator& comm, std::uint64_t items, std::uint64_t piece_items, std::uint64_t bin_items,
                                 std::uint64_t draws, std::uint64_t seed) {
  if (const auto why = validate::device::unavailable(); !why.empty()) throw UsageError("alias sharded --on gpu: " + why);
  if (bin_items == 0 || (bin_items & (bin_items - 1)) != 0) throw UsageError("--bin-items must be a power of two");
  if (piece_items % bin_items != 0) throw UsageError("--piece-items must be a multiple of --bin-items");
  if (piece_items > gpu::kAliasMaxItems) throw UsageError("--piece-items: a shard's table holds at most 2^32 - 1 items");
  GpuShardedRun r;
  r.device = validate::device::use_local_rank_device(dist::local_rank());
  WARPSIM_CUDA(cudaGetDevice(&r.device));
  r.items = items;
  r.piece_items = piece_items;
  r.bin_items = bin_items;
  r.pieces = (items + piece_items - 1) / piece_items;
  if (r.pieces >= (std::uint64_t{1} << 32) - 1) throw UsageError("more than 2^32 - 2 shards: raise --piece-items");
  int bin_shift = 0;
  while ((std::uint64_t{1} << bin_shift) < bin_items) ++bin_shift;
  const dist::Share mine = dist::share_of(r.pieces, 1, comm.rank(), comm.size());
  r.first_piece = mine.first;
  r.own_pieces = mine.count;
  auto piece_size = [&](std::uint64_t g) { return std::min(piece_items, items - g * piece_items); };
  for (std::uint64_t g = mine.first; g < mine.first + mine.count; ++g) r.own_items += piece_size(g);

  std::optional<gpu::DeviceScratch<double>> weights(std::in_place);  // (freed before the sampling)
  double* w = weights->ensure(static_cast<std::size_t>(std::min<std::uint64_t>(piece_items, std::max<std::uint64_t>(r.own_items, 1))));
  auto generate = [&](std::uint64_t g) {
    const auto t0 = std::chrono::steady_clock::now();
    generate_weights_on_device(w, piece_size(g), seed, g * piece_items);
    r.generate_seconds += since(t0);
  };

  // 1. The largest weight of every shard; e' from it.
  const auto t_build = std::chrono::steady_clock::now();
  double largest = 0;
  for (std::uint64_t g = mine.first; g < mine.first + mine.count; ++g) {
    generate(g);
    const auto c = gpu::alias_part_check(w, piece_size(g));
    if (c.first_bad < piece_size(g)) comm.abort(2, "weight " + std::to_string(g * piece_items + c.first_bad) + " is not a finite weight >= 0");
    largest = std::max(largest, c.largest);
  }
  largest = comm.max(largest);
  if (!(largest > 0)) throw UsageError("every weight of every shard is 0: there is no distribution");
  const int fine = oracle::alias::fine_exponent_of(largest);
  // 2. The exact sum S' of every shard's a_i; the unit from it.
  oracle::alias::u128 fine_sum = 0;
  for (std::uint64_t g = mine.first; g < mine.first + mine.count; ++g) {
    generate(g);
    fine_sum += gpu::alias_unit_sum(w, piece_size(g), fine);
  }
  const auto scale = oracle::alias::unit_scale(fine, dist::sum_u128(comm, fine_sum));
  r.exponent = scale.exponent;
  // 3. Each shard's table at that unit, and its bins' masses.
  std::vector<Rows> tables;
  tables.reserve(mine.count);
  r.masses.assign(r.pieces, 0);
  gpu::DeviceScratch<unsigned long long> bins;
  {
    gpu::AliasTableBuilder<double> builder;
    for (std::uint64_t g = mine.first; g < mine.first + mine.count; ++g) {
      const std::uint64_t n = piece_size(g), nb = (n + bin_items - 1) / bin_items;
      generate(g);
      Rows t;
      if (cudaMalloc(reinterpret_cast<void**>(&t.p), n * sizeof(gpu::AliasRow)) != cudaSuccess) {
        cudaGetLastError();
        comm.abort(2, "shard " + std::to_string(g) + "'s rows (" + std::to_string(n * sizeof(gpu::AliasRow)) + " bytes) do not fit on GPU " +
                          std::to_string(r.device) + " beside the " + std::to_string(r.rows_bytes) +
                          " bytes of rows it holds already: run more ranks (one a GPU) or hosts");
      }
      r.rows_bytes += n * sizeof(gpu::AliasRow);
      t.info = builder.build_at(w, n, t.p, r.exponent);
      r.masses[g] = t.info.capacity;
      unsigned long long* b = bins.ensure(nb);
      WARPSIM_CUDA(cudaMemset(b, 0, nb * sizeof(unsigned long long)));
      gpu::alias_unit_bins(w, n, r.exponent, bin_shift, b);
      r.shard_bins.push_back(nb);
      const std::size_t at = r.bin_masses.size();
      r.bin_masses.resize(at + nb);
      WARPSIM_CUDA(cudaMemcpy(r.bin_masses.data() + at, b, nb * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      r.peak_bytes = std::max(r.peak_bytes, used_bytes());
      tables.push_back(std::move(t));
    }
  }
  weights.reset();
  comm.sum(r.masses);
  for (const auto m : r.masses) r.total += m;
  r.build_seconds = since(t_build);
  // 4. The draws: split over the shards, each shard's made and counted in bins.
  const auto t_sample = std::chrono::steady_clock::now();
  const auto split = oracle::alias::split_draws(draws, r.masses, seed);
  r.bin_counts.assign(r.bin_masses.size(), 0);
  std::size_t at = 0;
  for (std::uint64_t g = mine.first; g < mine.first + mine.count; ++g) {
    const std::uint64_t n = piece_size(g), nb = (n + bin_items - 1) / bin_items;
    const auto& t = tables[g - mine.first];
    if (split[g] > 0) {
      unsigned long long* b = bins.ensure(nb);
      WARPSIM_CUDA(cudaMemset(b, 0, nb * sizeof(unsigned long long)));
      gpu::alias_sample_shard_bins(t.p, t.info, seed, static_cast<std::uint32_t>(g), 0, split[g], bin_shift, b);
      WARPSIM_CUDA(cudaMemcpy(r.bin_counts.data() + at, b, nb * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      r.draws += split[g];
    }
    at += nb;
  }
  r.sample_seconds = since(t_sample);
  r.bins = (items + bin_items - 1) / bin_items;
  return r;
}

}  // namespace warpsim::cli
