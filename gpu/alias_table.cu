// PSA on the GPU in exact units (gpu/alias_table.hpp), phase by phase as the
// oracle defines them (oracle/alias/units.hpp, psa.hpp, table.hpp), a phase
// a file under gpu/alias/ (units.cuh, partition.cuh, split.cuh, pack.cuh,
// sample.cuh, psa_plus.cuh); this file is the builder: the scratch layout,
// the launches and their order, the CUDA graph.
//
//   check_and_max   every weight finite and >= 0 (the first bad one's index),
//                   the largest (atomicMax on the bits: for x >= 0 they order as the values)
//   fine_sum        S' = sum of a_i = floor(w_i / 2^e'), e' = ilogb(max) - 63
//                   (two 64-bit integer sums of the halves: exact, any order)
//   total           U = sum of u_i = a_i >> (e - e')
//   partition       a scan over the items of {heavies, light units, heavy
//                   units} (integers: the same in any order) as tile totals,
//                   a scan of those, and each tile rescanned, every item
//                   going to l or h with its prefix sum (D or E from it);
//                   by default (the merge pack) l is not written: h, and a
//                   directory of every 32nd light and each chunk's start,
//                   from which the split and the pack find the lights again
//                   in the weights (ImplicitLists)
//   split           the binary search on the merge path (a thread or a warp
//                   a section, or a warp 32 sections: the partial p-ary split)
//   pack            a thread a section, from its split to the next, or the
//                   merge pack (a block a section); every row is written
//                   once, as one 16-byte store
//
// PSA+ (AliasBuildConfig::psa_plus_group = G, psa_plus.hpp with 32 lanes)
// replaces the partition: a warp a group of G items packs greedily (each
// lane its share of the group's lights and heavies), the group's leftovers
// go to its slots with what is left of their masses, a scan over the groups
// and a warp a group put them on l and h with 128-bit prefix sums, and the
// split and pack above run on those lists.
//
// Sampling: draw d takes rng/'s 128 Philox bits (hi, lo) of (seed, d, 0): row
// floor(hi N / 2^64), the item if lo < the row's threshold, else the alias
// (oracle/alias/table.hpp, sample_bits).
#include "gpu/alias_table.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda_pipeline.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/dependent_launch.cuh"
#include "gpu/detail/exact_units.hpp"
#include "gpu/launch.hpp"
#include "rng/philox_uniform.hpp"

#include "gpu/alias/units.cuh"
#include "gpu/alias/partition.cuh"
#include "gpu/alias/split.cuh"
#include "gpu/alias/pack.cuh"
#include "gpu/alias/sample.cuh"
#include "gpu/alias/psa_plus.cuh"

namespace warpsim::gpu {

namespace {

// Whether the build leaves l implicit (AliasBuildConfig::implicit_lights):
// with the merge pack only.
bool implicit_lights_for(std::size_t n, std::size_t sections, const AliasBuildConfig& c) {
  return c.implicit_lights && wants_merge_pack(c) && (n + sections - 1) / sections <= kMergeTile;
}

// The sections: the configuration's, else one per tile of the merge pack
// (kMergeTile items), else one per 64 items.
std::size_t sections_for(std::size_t n, const AliasBuildConfig& c) {
  const std::size_t s = c.sections != 0 ? c.sections : wants_merge_pack(c) ? (n + kMergeTile - 1) / kMergeTile : std::max<std::size_t>(1, n / 64);
  return std::min(std::max<std::size_t>(s, 1), n);
}

// The temporary storage of CUB's scan over the tiles.
std::size_t tile_scan_bytes(std::size_t tiles) {
  std::size_t bytes = 0;
  WARPSIM_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, bytes, static_cast<const PrefixItem*>(nullptr), static_cast<PrefixItem*>(nullptr), PrefixSum{},
                                              PrefixItem{}, static_cast<int>(tiles)));
  return bytes;
}

// Where each scratch array lies in one allocation: PSA's unit lists, or
// PSA+'s leftovers and mass lists.
struct Layout {
  std::size_t reduced = 0, counts = 0, light = 0, heavy = 0, light_prefix = 0, heavy_prefix = 0, splits = 0,
              tiles = 0, chunks = 0, tile_prefix = 0, scan_temp = 0, scan_bytes = 0, dir_at = 0, dir_prefix = 0, chunk_start = 0,
              start_item = 0, start_prefix = 0;
  std::size_t left_item = 0, left_mass = 0, group_totals = 0, group_prefix = 0, light_mass = 0, heavy_mass = 0, deficits = 0, excesses = 0;
  std::size_t total = 0;
  Layout(std::size_t n, std::size_t sections, std::size_t group, bool implicit) {
    std::size_t at = 0;
    auto take = [&](std::size_t bytes) {
      const std::size_t here = at;
      at += (bytes + 255) / 256 * 256;
      return here;
    };
    reduced = take(sizeof(Scale));
    counts = take(2 * sizeof(unsigned long long));
    light = take(implicit ? 16 : n * 4 + 16);  // (+ 16: the merge pack copies whole 16-byte chunks)
    heavy = take(n * 4 + 16);
    splits = take((sections + 1) * sizeof(SplitAt));
    if (group == 0) {
      light_prefix = take(implicit ? 16 : (n + 1) * 8 + 16);
      heavy_prefix = take((n + 1) * 8 + 16);
      const std::size_t tile_count = (n + kTile - 1) / kTile;
      if (implicit) {
        dir_at = take((n / 32 + 1) * 4);
        dir_prefix = take((n / 32 + 1) * 8);
        chunk_start = take(tile_count * kTileWarps * sizeof(ChunkStart));
        start_item = take((sections + 1) * 8);
        start_prefix = take((sections + 1) * 8);
      }
      tiles = take(tile_count * sizeof(PrefixItem));
      tile_prefix = take(tile_count * sizeof(PrefixItem));
      scan_bytes = tile_scan_bytes(tile_count);
      scan_temp = take(scan_bytes);
      chunks = take(((n + kTile - 1) / kTile) * kTileWarps * sizeof(PrefixItem));
    } else {
      const std::size_t groups = (n + group - 1) / group;
      left_item = take(n * 4);
      left_mass = take(n * 16);
      group_totals = take(groups * sizeof(GroupTotal));
      group_prefix = take(groups * sizeof(GroupTotal));
      light_mass = take(n * 16);
      heavy_mass = take(n * 16);
      deficits = take((n + 1) * 16);
      excesses = take((n + 1) * 16);
    }
    total = at;
  }
};

}  // namespace

// What a captured build depends on: replaying it with another of these
// would read or write the wrong memory.
struct GraphKey {
  const void* weights = nullptr;
  const void* rows = nullptr;
  const void* scratch = nullptr;
  std::size_t n = 0, sections = 0, psa_plus_group = 0;
  int threads = 0;
  bool shared_pack = false;
  int pack_chunk = 0;
  bool pary_split = false;
  bool merge_pack = false;
  bool implicit_lights = false;
  bool dependent_launch = false;
  bool operator==(const GraphKey& o) const {
    return weights == o.weights && rows == o.rows && scratch == o.scratch && n == o.n && sections == o.sections &&
           psa_plus_group == o.psa_plus_group && threads == o.threads && shared_pack == o.shared_pack && pack_chunk == o.pack_chunk &&
           pary_split == o.pary_split && merge_pack == o.merge_pack && implicit_lights == o.implicit_lights &&
           dependent_launch == o.dependent_launch;
  }
};

template <class T>
struct AliasTableBuilder<T>::Scratch {
  DeviceScratch<unsigned char> device;
  DeviceScratch<unsigned char> weights;  // host weights, copied over
  // AliasBuildConfig::graph: the last build's launches as a CUDA graph.
  cudaStream_t capture = nullptr;
  cudaGraphExec_t exec = nullptr;
  GraphKey key;
  // The scale read back into pinned memory (a pageable copy is staged by
  // the driver: several microseconds more on every build).
  void* pinned = nullptr;
  void* host_scale(std::size_t bytes) {
    if (!pinned) WARPSIM_CUDA(cudaMallocHost(&pinned, bytes));
    return pinned;
  }
  ~Scratch() {
    if (pinned) cudaFreeHost(pinned);
    if (exec) cudaGraphExecDestroy(exec);  // never throw from a destructor
    if (capture) cudaStreamDestroy(capture);
  }
};

namespace {

// The unit's passes: the weights' check and their largest, e', S', e, U on
// the device (each pass finds the scalars it needs from the one before).
template <class T, int kThreads>
void enqueue_units(const T* weights, std::size_t n, Scale* scale, int grid, cudaStream_t on, bool dependent) {
  detail::launch(init_scale, 1, 1, 0, on, false, scale, n);
  detail::launch(check_and_max<T, kThreads>, grid, kThreads, 0, on, dependent, weights, n, scale);
  detail::launch(fine_sum<T, kThreads>, grid, kThreads, 0, on, dependent, weights, n, scale);
  detail::launch(total_units<T, kThreads>, grid, kThreads, 0, on, dependent, weights, n, scale);
}

// One round trip after the unit's passes: the scale, and with it whether the
// weights were good (std::invalid_argument with the oracle's message if not).
template <class T>
Scale read_scale(const Scale* scale, const T* weights, std::size_t n, cudaStream_t stream, void* pinned) {
  WARPSIM_CUDA(cudaMemcpyAsync(pinned, scale, sizeof(Scale), cudaMemcpyDeviceToHost, stream));
  WARPSIM_CUDA(cudaStreamSynchronize(stream));
  Scale host{};
  std::memcpy(&host, pinned, sizeof host);
  if (host.first_bad < n) {
    T x{};
    WARPSIM_CUDA(cudaMemcpy(&x, weights + host.first_bad, sizeof x, cudaMemcpyDeviceToHost));
    throw std::invalid_argument(bad_weight_message(static_cast<std::size_t>(host.first_bad), x));
  }
  if (host.max_bits == 0) throw std::invalid_argument("every weight is 0: there is no distribution");
  if (host.total == 0 || host.total >= (std::uint64_t{1} << kUnitBits)) throw std::logic_error("alias table: the units' total left its range");
  return host;
}

}  // namespace

template <class T>
AliasTableBuilder<T>::AliasTableBuilder() : scratch_(new Scratch) {}

template <class T>
AliasTableBuilder<T>::~AliasTableBuilder() {
  delete scratch_;
}

template <class T>
std::size_t AliasTableBuilder<T>::scratch_bytes(std::size_t n, const AliasBuildConfig& config) {
  const std::size_t sections = sections_for(n, config);
  return Layout(n, sections, config.psa_plus_group, implicit_lights_for(n, sections, config)).total;
}

template <class T>
AliasTableInfo AliasTableBuilder<T>::build(const T* weights, std::size_t n, AliasRow* rows, const AliasBuildConfig& config, cudaStream_t stream) {
  return build_impl(weights, n, rows, config, stream, nullptr);
}

template <class T>
AliasTableInfo AliasTableBuilder<T>::build_at(const T* weights, std::size_t n, AliasRow* rows, int exponent, const AliasBuildConfig& config,
                                              cudaStream_t stream) {
  if (config.graph) throw std::invalid_argument("build_at: a part's build is not captured as a graph (AliasBuildConfig::graph)");
  return build_impl(weights, n, rows, config, stream, &exponent);
}

// `exponent`: the unit given (build_at), else found from the weights.
template <class T>
AliasTableInfo AliasTableBuilder<T>::build_impl(const T* weights, std::size_t n, AliasRow* rows, const AliasBuildConfig& config, cudaStream_t stream,
                                                const int* exponent) {
  if (n == 0) throw std::invalid_argument("no weights");
  if (n > kAliasMaxItems) throw std::invalid_argument("more than 2^32 - 1 weights: alias indices are 32-bit");
  constexpr int kThreads = 256;
  if (config.threads_per_block < 32 || config.threads_per_block > 1024 || config.threads_per_block % 32 != 0) {
    throw std::invalid_argument("threads_per_block must be a multiple of 32 in [32, 1024]");
  }
  if (config.psa_plus_group > kPlusGroupMax) {
    throw std::invalid_argument("PSA+ groups of at most " + std::to_string(kPlusGroupMax) + " items (" + std::to_string(config.psa_plus_group) +
                                " asked)");
  }
  const std::size_t sections = sections_for(n, config);
  const bool implicit = implicit_lights_for(n, sections, config);
  const Layout at(n, sections, config.psa_plus_group, implicit);
  const std::size_t held = scratch_->device.size();
  if (at.total > held) {  // refuse, saying how much, what the device cannot hold
    std::size_t free_bytes = 0, total_bytes = 0;
    WARPSIM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (at.total - held > free_bytes) {
      throw std::invalid_argument("an alias table of " + std::to_string(n) + " items needs " + std::to_string(at.total) +
                                  " bytes of device memory besides its weights and rows (" + std::to_string(at.total / n) +
                                  " an item); the device has " + std::to_string(free_bytes) + " free");
    }
  }
  if (!device_readable(weights)) {  // host weights: to the device first
    T* copy = reinterpret_cast<T*>(scratch_->weights.ensure(n * sizeof(T)));
    WARPSIM_CUDA(cudaMemcpyAsync(copy, weights, n * sizeof(T), cudaMemcpyHostToDevice, stream));
    weights = copy;
  }
  auto* base = reinterpret_cast<char*>(scratch_->device.ensure(at.total));
  auto* scale = reinterpret_cast<Scale*>(base + at.reduced);
  const int grid = grid_for(n, kThreads);

  // The pack from shared memory where a warp's range fits (set before any
  // capture: not a stream operation).
  const std::size_t per_section = (n + sections - 1) / sections;
  const std::size_t per_warp = (32 * per_section + 2 + 1) / 2 * 2;  // even: the units stay 8-byte aligned
  constexpr std::size_t kSharedMax = 200 * 1024;
  const int warps_per_block = static_cast<int>(std::min<std::size_t>(4, kSharedMax / (per_warp * 12)));
  // The merge pack where every section fits its tile.
  const bool merge_pack = wants_merge_pack(config) && per_section <= kMergeTile;
  const bool shared_pack = config.psa_plus_group == 0 && config.shared_pack && warps_per_block >= 1;
  const std::size_t pack_smem = shared_pack ? static_cast<std::size_t>(warps_per_block) * per_warp * 12 : 0;
  if (shared_pack) {
    WARPSIM_CUDA(cudaFuncSetAttribute(pack_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(pack_smem)));
  }
  if (config.pack_chunk != 0 && config.pack_chunk != 8 && config.pack_chunk != 16) {
    throw std::invalid_argument("pack_chunk must be 0, 8 or 16 (" + std::to_string(config.pack_chunk) + " asked)");
  }

  // Every launch of the build, in order, on one stream; each after the
  // first a programmatic dependent launch of the one before
  // (gpu/detail/dependent_launch.cuh) unless the config says not.
  const bool dependent = config.dependent_launch;
  if (exponent) {
    // A part at the whole's unit: its units and mass first, read back, so
    // that a part of mass 0 (or bad weights) stops before the lists.
    detail::launch(init_scale_at, 1, 1, 0, stream, false, scale, n, *exponent);
    detail::launch(check_and_max<T, kThreads>, grid, kThreads, 0, stream, dependent, weights, n, scale);
    detail::launch(total_units<T, kThreads>, grid, kThreads, 0, stream, dependent, weights, n, scale);
    Scale host{};
    WARPSIM_CUDA(cudaMemcpyAsync(&host, scale, sizeof host, cudaMemcpyDeviceToHost, stream));
    WARPSIM_CUDA(cudaStreamSynchronize(stream));
    if (host.first_bad < n) {
      T x{};
      WARPSIM_CUDA(cudaMemcpy(&x, weights + host.first_bad, sizeof x, cudaMemcpyDeviceToHost));
      throw std::invalid_argument(bad_weight_message(static_cast<std::size_t>(host.first_bad), x));
    }
    // The whole's unit is at least 2^(ilogb(its largest) - 60) and keeps its
    // total below 2^62; a finer one could wrap a unit or the sum (the
    // doubles' sum `approx`, within 2^-18 of the weights', says so).
    using B = typename Bits<T>::type;
    const auto bits = static_cast<B>(host.max_bits);
    T largest;
    std::memcpy(&largest, &bits, sizeof largest);
    if ((largest > 0 && *exponent < std::ilogb(static_cast<double>(largest)) - 60) || std::ldexp(host.approx, 64 - *exponent) >= 0x1.01p62 ||
        host.total >= (std::uint64_t{1} << kUnitBits)) {
      throw std::invalid_argument("build_at: unit 2^" + std::to_string(*exponent) + " is finer than these weights allow (their units would reach 2^62)");
    }
    if (host.total == 0) {
      AliasTableInfo info;
      info.n = n;
      info.exponent = *exponent;
      return info;
    }
  }
  auto enqueue = [&](cudaStream_t on) {
    if (!exponent) enqueue_units<T, kThreads>(weights, n, scale, grid, on, dependent);

    auto* splits = reinterpret_cast<SplitAt*>(base + at.splits);
    const int threads = config.threads_per_block;
    const auto split_blocks = static_cast<unsigned>((sections + 1 + threads - 1) / threads);
    const auto pack_blocks = static_cast<unsigned>((sections + threads - 1) / threads);
    // The splits: a thread a split (binary search), or a warp 32 (p-ary).
    auto split = [&](const auto& args) {
      if (config.pary_split) {
        const auto warps = (sections + 1 + 31) / 32, per_block = static_cast<std::size_t>(threads / 32);
        detail::launch(split_pary_kernel<typename std::decay_t<decltype(args)>::List>, static_cast<unsigned>((warps + per_block - 1) / per_block), threads, 0, on, dependent, args, scale, splits);
      } else {
        detail::launch(split_kernel<typename std::decay_t<decltype(args)>::List>, split_blocks, threads, 0, on, dependent, args, scale, splits);
      }
    };
    if (config.psa_plus_group > 0) {
      // PSA+: the greedy stage a warp a group, its leftovers scanned and
      // scattered onto l and h with their masses, then PSA's split and pack.
      const auto group = static_cast<std::uint32_t>(config.psa_plus_group);
      const std::size_t groups = (n + group - 1) / group;
      Leftovers left{reinterpret_cast<std::uint32_t*>(base + at.left_item), reinterpret_cast<u128*>(base + at.left_mass),
                     reinterpret_cast<GroupTotal*>(base + at.group_totals)};
      auto* prefix = reinterpret_cast<GroupTotal*>(base + at.group_prefix);
      MassLists lists{reinterpret_cast<std::uint32_t*>(base + at.light), reinterpret_cast<std::uint32_t*>(base + at.heavy),
                      reinterpret_cast<u128*>(base + at.light_mass),     reinterpret_cast<u128*>(base + at.heavy_mass),
                      reinterpret_cast<u128*>(base + at.deficits),       reinterpret_cast<u128*>(base + at.excesses),
                      0};
      detail::launch(find_recip, 1, 1, 0, on, dependent, scale, n);  // (PSA's tile totals find these themselves)
      detail::launch(psa_plus_greedy<T>, static_cast<unsigned>(groups), 32, 0, on, dependent, weights, n, scale, group, rows, left);
      detail::launch(scan_groups, 1, 512, 0, on, dependent, left.totals, prefix, groups, scale);
      detail::launch(psa_plus_scatter, static_cast<unsigned>(groups), 32, 0, on, dependent, left, prefix, group, n, scale, lists);
      const PackArgs<MassLists> args{lists, 0, 0, 0, sections, 0, 0};
      split(args);
      detail::launch(pack_kernel<MassLists>, pack_blocks, threads, 0, on, dependent, args, scale, splits, rows);
    } else {
      // The partition: lists, units and prefix sums.
      Lists lists{reinterpret_cast<std::uint32_t*>(base + at.light),    reinterpret_cast<std::uint32_t*>(base + at.heavy),
                  reinterpret_cast<std::uint64_t*>(base + at.light_prefix), reinterpret_cast<std::uint64_t*>(base + at.heavy_prefix),
                  n, 0, scale->counts};
      const LightDirectory dir{reinterpret_cast<std::uint32_t*>(base + at.dir_at), reinterpret_cast<std::uint64_t*>(base + at.dir_prefix),
                               reinterpret_cast<ChunkStart*>(base + at.chunk_start), reinterpret_cast<unsigned long long*>(base + at.start_item),
                               reinterpret_cast<unsigned long long*>(base + at.start_prefix)};
      auto* tiles = reinterpret_cast<PrefixItem*>(base + at.tiles);
      const auto tile_count = static_cast<unsigned>((n + kTile - 1) / kTile);
      auto* chunks = reinterpret_cast<PrefixItem*>(base + at.chunks);
      detail::launch(tile_totals<T>, (tile_count + kTileWarps - 1) / kTileWarps, kScanThreads, 0, on, dependent, weights, n, scale, tiles, chunks, tile_count);
      // tile_prefix[b] <- the sum of tiles[0 .. b - 1] (CUB's single-pass scan).
      auto* tile_prefix = reinterpret_cast<PrefixItem*>(base + at.tile_prefix);
      std::size_t scan_bytes = at.scan_bytes;
      WARPSIM_CUDA(cub::DeviceScan::ExclusiveScan(base + at.scan_temp, scan_bytes, tiles, tile_prefix, PrefixSum{}, PrefixItem{},
                                                  static_cast<int>(tile_count), on));
      WARPSIM_CUDA(cudaGetLastError());
      if (implicit) {
        detail::launch(tile_scatter<T, true>, tile_count, kScanThreads, 0, on, dependent, weights, n, scale, lists, tile_prefix, chunks, dir);
        const ImplicitLists<T> found{weights, lists.heavy, lists.heavy_prefix, dir, n, 0};
        const PackArgs<ImplicitLists<T>> args{found, 0, 0, n, sections, 0, 0};
        const std::size_t per_block = static_cast<std::size_t>(threads / 32);
        if (sections + 1 <= kWarpSplitsMax) {  // a warp a split
          detail::launch(split_implicit_warp_kernel<T>, static_cast<unsigned>((sections + 1 + per_block - 1) / per_block), threads, 0, on, dependent, args, scale, splits);
        } else {  // a warp 32 splits
          const std::size_t warps = (sections + 1 + 31) / 32;
          detail::launch(split_implicit_kernel<T>, static_cast<unsigned>((warps + per_block - 1) / per_block), threads, 0, on, dependent, args, scale, splits);
        }
        detail::launch(pack_merge_kernel<ImplicitLists<T>>, static_cast<unsigned>(sections), kMergeThreads, 0, on, dependent, args, scale, splits, rows);
        return;
      }
      detail::launch(tile_scatter<T, false>, tile_count, kScanThreads, 0, on, dependent, weights, n, scale, lists, tile_prefix, chunks, dir);

      // Split and pack (the lengths, U and 1 / U read from the scale).
      const PackArgs<Lists> args{lists, 0, 0, n, sections, 0, 0};
      split(args);
      // The pack: chunked, or the merge pack, or from shared memory where a
      // warp's range fits, else from global memory.
      const auto chunk_blocks = static_cast<unsigned>((sections + kChunkThreads - 1) / kChunkThreads);
      if (merge_pack) {
        detail::launch(pack_merge_kernel<Lists>, static_cast<unsigned>(sections), kMergeThreads, 0, on, dependent, args, scale, splits, rows);
      } else if (config.pack_chunk == 8) {
        detail::launch(pack_chunked_kernel<8>, chunk_blocks, kChunkThreads, 0, on, dependent, args, scale, splits, rows);
      } else if (config.pack_chunk == 16) {
        detail::launch(pack_chunked_kernel<16>, chunk_blocks, kChunkThreads, 0, on, dependent, args, scale, splits, rows);
      } else if (shared_pack) {
        const std::size_t warps = (sections + 31) / 32;
        const auto blocks = static_cast<unsigned>((warps + static_cast<std::size_t>(warps_per_block) - 1) / static_cast<std::size_t>(warps_per_block));
        detail::launch(pack_shared_kernel, blocks, 32 * warps_per_block, pack_smem, on, dependent, args, scale, splits, rows, static_cast<std::uint32_t>(per_warp));
      } else {
        detail::launch(pack_kernel<Lists>, pack_blocks, threads, 0, on, dependent, args, scale, splits, rows);
      }
    }
  };

  const GraphKey key{weights, rows, base, n, sections, config.psa_plus_group, config.threads_per_block, config.shared_pack, config.pack_chunk,
                     config.pary_split, config.merge_pack, implicit, dependent};
  if (!config.graph) {
    enqueue(stream);
  } else {
    if (!scratch_->exec || !(scratch_->key == key)) {  // capture the launches once, replay them after
      if (scratch_->exec) {
        WARPSIM_CUDA(cudaGraphExecDestroy(scratch_->exec));
        scratch_->exec = nullptr;
      }
      if (!scratch_->capture) WARPSIM_CUDA(cudaStreamCreateWithFlags(&scratch_->capture, cudaStreamNonBlocking));
      WARPSIM_CUDA(cudaStreamBeginCapture(scratch_->capture, cudaStreamCaptureModeThreadLocal));
      cudaGraph_t graph = nullptr;
      try {
        enqueue(scratch_->capture);
      } catch (...) {
        cudaStreamEndCapture(scratch_->capture, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
      }
      WARPSIM_CUDA(cudaStreamEndCapture(scratch_->capture, &graph));
      const cudaError_t made = cudaGraphInstantiate(&scratch_->exec, graph, 0);
      cudaGraphDestroy(graph);
      WARPSIM_CUDA(made);
      scratch_->key = key;
    }
    WARPSIM_CUDA(cudaGraphLaunch(scratch_->exec, stream));
  }

  const Scale host = read_scale(scale, weights, n, stream, scratch_->host_scale(sizeof(Scale)));
  AliasTableInfo info;
  info.n = n;
  info.exponent = host.exponent;
  info.capacity = host.total;
  info.lights = host.counts[0];
  info.heavies = host.counts[1];
  info.sections = sections;
  return info;
}

template <class T>
AliasTableInfo AliasTableBuilder<T>::find_units(const T* weights, std::size_t n, cudaStream_t stream) {
  if (n == 0) throw std::invalid_argument("no weights");
  constexpr int kThreads = 256;
  auto* scale = reinterpret_cast<Scale*>(scratch_->device.ensure(sizeof(Scale)));
  enqueue_units<T, kThreads>(weights, n, scale, grid_for(n, kThreads), stream, true);
  const Scale host = read_scale(scale, weights, n, stream, scratch_->host_scale(sizeof(Scale)));
  AliasTableInfo info;
  info.n = n;
  info.exponent = host.exponent;
  info.capacity = host.total;
  return info;
}

namespace {
SampleArgs sample_args(const AliasRow* rows, const AliasTableInfo& t, std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
  if (t.n == 0 || t.capacity == 0) throw std::invalid_argument("alias_sample: an empty table");
  return {rows, t.n, seed, first, count};
}
}  // namespace

void alias_sample(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                  std::uint32_t* out, cudaStream_t stream) {
  if (count == 0) return;
  const auto a = sample_args(rows, table, seed, first, count);
  sample_kernel<<<grid_for(count, 256), 256, 0, stream>>>(a, out);
  WARPSIM_CUDA(cudaGetLastError());
}

void alias_sample_counts(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                         unsigned long long* counts, cudaStream_t stream) {
  if (count == 0) return;
  const auto a = sample_args(rows, table, seed, first, count);
  sample_counts_kernel<<<grid_for(count, 256), 256, 0, stream>>>(a, counts);
  WARPSIM_CUDA(cudaGetLastError());
}

void alias_sample_shard(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint32_t shard, std::uint64_t first,
                        std::uint64_t count, std::uint32_t* out, cudaStream_t stream) {
  if (count == 0) return;
  auto a = sample_args(rows, table, seed, first, count);
  a.word = 1 + shard;
  sample_kernel<<<grid_for(count, 256), 256, 0, stream>>>(a, out);
  WARPSIM_CUDA(cudaGetLastError());
}

void alias_sample_shard_bins(const AliasRow* rows, const AliasTableInfo& table, std::uint64_t seed, std::uint32_t shard, std::uint64_t first,
                             std::uint64_t count, int bin_shift, unsigned long long* bins, cudaStream_t stream) {
  if (count == 0) return;
  auto a = sample_args(rows, table, seed, first, count);
  a.word = 1 + shard;
  sample_bins_kernel<<<grid_for(count, 256), 256, 0, stream>>>(a, bin_shift, bins);
  WARPSIM_CUDA(cudaGetLastError());
}

template <class T>
AliasPartCheck alias_part_check(const T* weights, std::size_t n, cudaStream_t stream) {
  if (n == 0) return {0, 0};
  constexpr int kThreads = 256;
  DeviceScratch<unsigned char> buffer;
  auto* scale = reinterpret_cast<Scale*>(buffer.ensure(sizeof(Scale)));
  detail::launch(init_scale, 1, 1, 0, stream, false, scale, n);
  detail::launch(check_and_max<T, kThreads>, grid_for(n, kThreads), kThreads, 0, stream, false, weights, n, scale);
  Scale host{};
  WARPSIM_CUDA(cudaMemcpyAsync(&host, scale, sizeof host, cudaMemcpyDeviceToHost, stream));
  WARPSIM_CUDA(cudaStreamSynchronize(stream));
  using B = typename Bits<T>::type;
  const auto bits = static_cast<B>(host.max_bits);
  T largest;
  std::memcpy(&largest, &bits, sizeof largest);
  return {host.first_bad, static_cast<double>(largest)};
}

template <class T>
AliasSum128 alias_unit_sum(const T* weights, std::size_t n, int exponent, cudaStream_t stream) {
  if (n == 0) return 0;
  constexpr int kThreads = 256;
  DeviceScratch<unsigned long long> buffer;
  unsigned long long* halves = buffer.ensure(2);
  WARPSIM_CUDA(cudaMemsetAsync(halves, 0, 2 * sizeof(unsigned long long), stream));
  unit_sum_kernel<T, kThreads><<<grid_for(n, kThreads), kThreads, 0, stream>>>(weights, n, exponent, halves);
  WARPSIM_CUDA(cudaGetLastError());
  unsigned long long host[2];
  WARPSIM_CUDA(cudaMemcpyAsync(host, halves, sizeof host, cudaMemcpyDeviceToHost, stream));
  WARPSIM_CUDA(cudaStreamSynchronize(stream));
  return static_cast<AliasSum128>(host[0]) + (static_cast<AliasSum128>(host[1]) << 32);
}

template <class T>
void alias_unit_bins(const T* weights, std::size_t n, int exponent, int bin_shift, unsigned long long* bins, cudaStream_t stream) {
  if (bin_shift < 5 || bin_shift > 40) throw std::invalid_argument("alias_unit_bins: bins of 2^5 to 2^40 items");
  if (n == 0) return;
  unit_bins_kernel<T><<<grid_for(n, 256), 256, 0, stream>>>(weights, n, exponent, bin_shift, bins);
  WARPSIM_CUDA(cudaGetLastError());
  WARPSIM_CUDA(cudaStreamSynchronize(stream));
}

template class AliasTableBuilder<float>;
template class AliasTableBuilder<double>;
template AliasPartCheck alias_part_check<float>(const float*, std::size_t, cudaStream_t);
template AliasPartCheck alias_part_check<double>(const double*, std::size_t, cudaStream_t);
template AliasSum128 alias_unit_sum<float>(const float*, std::size_t, int, cudaStream_t);
template AliasSum128 alias_unit_sum<double>(const double*, std::size_t, int, cudaStream_t);
template void alias_unit_bins<float>(const float*, std::size_t, int, int, unsigned long long*, cudaStream_t);
template void alias_unit_bins<double>(const double*, std::size_t, int, int, unsigned long long*, cudaStream_t);

}  // namespace warpsim::gpu
