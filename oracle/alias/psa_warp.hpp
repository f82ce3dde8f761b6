// PSA on the warp model, end to end (seed 001, Ch. 3-4): partition, split,
// pack, with the methods the thesis compares, and what each phase costs.
//
//   units in global memory
//     -> partition_warp.hpp   l, h (items and masses), D, E
//     -> split_warp.hpp       binary search, a lane a split        (Sec. 3.1.1)
//        split_pary.hpp       partial p-ary, a group a range       (Sec. 3.1.2)
//     -> pack_warp.hpp        l and h in global memory (baseline)  (Sec. 3.2.1)
//                             l and h in shared memory             (Sec. 3.2.2)
//        pack_chunked.hpp     chunks of l and h in shared memory   (Sec. 3.2.4)
//     -> the table, N rows of {keep, alias} in global memory
//
// The model runs the groups one after another (a warp a group of W sections;
// a split group of `group_warps` warps); the table does not depend on that
// order, nor on the number of sections: every configuration's table is
// psa()'s (AliasWarp.EveryModelConfigurationIsPsa*).
#pragma once

#include <stdexcept>

#include "oracle/alias/pack_chunked.hpp"
#include "oracle/alias/pack_warp.hpp"
#include "oracle/alias/partition_warp.hpp"
#include "oracle/alias/psa_plus_warp.hpp"
#include "oracle/alias/split_pary.hpp"
#include "oracle/alias/split_warp.hpp"

namespace warpsim::oracle::alias {

enum class SplitMethod { Binary, Pary };
enum class PackMethod { Global, Shared, Chunked };

struct ModelConfig {
  std::size_t sections = 0;       // 0: N / 32 for the global and chunked packs; as few as fit for the shared pack
  SplitMethod split = SplitMethod::Pary;
  PackMethod pack = PackMethod::Chunked;
  bool masses_in_lists = true;    // Sec. 3.2.3 (false: N u[item] read from the weights)
  int width = 32;                 // lanes a warp
  int group_warps = 1;            // warps of a p-ary split group
  std::size_t shared_bytes = 48 * 1024;  // a block's shared memory (shared and chunked packs)
  std::uint64_t chunk = 32;       // items of a chunk (chunked pack)
  std::size_t psa_plus_group = 0; // PSA+ with greedy groups of this many items (0: PSA)
};

struct PhaseCounters {
  sim::Counters partition, split, pack;
  sim::Counters total() const {
    sim::Counters t = partition;
    t += split;
    t += pack;
    return t;
  }
};

struct ModelBuild {
  Table table;
  PhaseCounters counters;         // PSA+: the greedy stage is the partition's
  std::size_t sections = 0;
  std::size_t lights = 0, heavies = 0;  // the lists PSA split and packed
  PsaPlusStats psa_plus;
};

// The sections the shared pack needs: a warp's W sections span at most
// W ceil(N / s) + 1 list items, and they must fit the block's shared memory.
inline std::size_t shared_pack_sections(std::size_t n, const ModelConfig& c) {
  const std::size_t item = c.masses_in_lists ? 20 : 4;
  const std::size_t room = c.shared_bytes > 128 ? c.shared_bytes - 128 : 0;  // alignment of the four arrays
  const std::size_t per_group = room / item;
  if (per_group < 2) throw std::invalid_argument("the shared pack needs more shared memory");
  const std::size_t w = static_cast<std::size_t>(c.width);
  // W ceil(N / s) + 1 <= per_group  <=>  ceil(N / s) <= (per_group - 1) / W
  const std::size_t steps = std::max<std::size_t>(1, (per_group - 1) / w);
  return std::max<std::size_t>(1, (n + steps - 1) / steps);
}

// Downloads the table rows.
inline Table download_table(const sim::GlobalMemory& mem, const sim::DeviceArray<TableRow>& rows, const Units& u) {
  Table t = empty_table(u);
  const auto got = mem.download(rows);
  for (std::size_t k = 0; k < t.size(); ++k) {
    t.keep[k] = got[k].keep;
    t.alias[k] = got[k].alias;
  }
  return t;
}

// The table rows {U, k}: what a row holds until the pack writes it (a light
// item with no heavy item left keeps exactly its bucket).
inline sim::DeviceArray<TableRow> upload_full_rows(sim::GlobalMemory& mem, const Units& u) {
  const std::size_t n = u.units.size();
  const auto rows = mem.allocate<TableRow>(n);
  std::vector<TableRow> init(n);
  for (std::size_t k = 0; k < n; ++k) init[k] = TableRow{u.total, static_cast<std::uint32_t>(k), 0};
  mem.upload<TableRow>(rows, init);
  return rows;
}

// The splits of steps ks (in groups), by the configured method.
inline std::vector<Split> splits_on_model(const sim::GlobalMemory& mem, const DevicePrefixSums& sums, const std::vector<std::size_t>& ks,
                                          const ModelConfig& c, sim::Counters& counters) {
  std::vector<Split> out;
  const std::size_t group = static_cast<std::size_t>(c.width) * static_cast<std::size_t>(c.split == SplitMethod::Pary ? c.group_warps : 1);
  for (std::size_t first = 0; first < ks.size(); first += group) {
    const std::vector<std::size_t> mine(ks.begin() + static_cast<std::ptrdiff_t>(first),
                                        ks.begin() + static_cast<std::ptrdiff_t>(std::min(ks.size(), first + group)));
    if (c.split == SplitMethod::Pary && c.width * c.group_warps >= 2) {
      std::vector<sim::Warp> warps(static_cast<std::size_t>(c.group_warps), sim::Warp({.width = c.width}));
      sim::SharedMemory smem(16 * static_cast<std::size_t>(c.group_warps) + 64);
      const auto got = split_pary_on_group(warps, smem, mem, sums, mine);
      out.insert(out.end(), got.begin(), got.end());
      for (const auto& w : warps) counters += w.counters();
    } else {
      sim::Warp warp({.width = c.width});
      const auto got = split_on_warp(warp, mem, sums, mine);
      out.insert(out.end(), got.begin(), got.end());
      counters += warp.counters();
    }
  }
  return out;
}

// Packs the sections whose splits are `splits` (one more at the end: (|l|, |h|)).
inline void pack_on_model(sim::GlobalMemory& mem, const DevicePartition& p, const sim::DeviceArray<std::uint64_t>& units, std::size_t n,
                          u128 cap, const std::vector<Split>& splits, const std::vector<std::size_t>& ks,
                          const sim::DeviceArray<TableRow>& rows, const ModelConfig& c, sim::Counters& counters) {
  const std::size_t sections = splits.size() - 1;
  const std::size_t w = static_cast<std::size_t>(c.width);
  const MassFromWeights weights = c.masses_in_lists ? MassFromWeights{} : MassFromWeights{&units, n};
  if (c.pack == PackMethod::Chunked && !c.masses_in_lists) throw std::invalid_argument("the chunked pack reads masses beside the items");
  for (std::size_t first = 0; first < sections; first += w) {
    const std::size_t last = std::min(sections, first + w);
    const std::vector<Split> from(splits.begin() + static_cast<std::ptrdiff_t>(first), splits.begin() + static_cast<std::ptrdiff_t>(last));
    const std::vector<std::size_t> to(ks.begin() + static_cast<std::ptrdiff_t>(first + 1), ks.begin() + static_cast<std::ptrdiff_t>(last + 1));
    sim::Warp warp({.width = c.width});
    switch (c.pack) {
      case PackMethod::Global:
        pack_on_warp(warp, mem, p.lists, p.sums, cap, from, to, rows, weights);
        break;
      case PackMethod::Shared: {
        sim::SharedMemory smem(c.shared_bytes);
        pack_shared_on_warp(warp, mem, smem, p.lists, p.sums, cap, from, to, splits[last], rows, weights);
        break;
      }
      case PackMethod::Chunked: {
        sim::SharedMemory smem(std::max(c.shared_bytes, ChunkLists::bytes(c.width, c.chunk)));
        pack_chunked_on_warp(warp, mem, smem, p.lists, p.sums, cap, from, to, c.chunk, rows);
        break;
      }
    }
    counters += warp.counters();
  }
}

// PSA (or PSA+) on the model with configuration c.
inline ModelBuild psa_on_model(const Units& u, const ModelConfig& c = {}) {
  const std::size_t n = u.units.size();
  if (c.psa_plus_group > 0 && !c.masses_in_lists) throw std::invalid_argument("PSA+ keeps masses beside the items (Sec. 4.6)");
  sim::GlobalMemory mem;
  ModelBuild b;
  const auto units = upload_units(mem, u);
  const auto rows = upload_full_rows(mem, u);
  sim::Warp warp({.width = c.width});
  const auto p = c.psa_plus_group > 0 ? psa_plus_partition_on_warp(warp, mem, units, n, u.total, c.psa_plus_group, rows, &b.psa_plus)
                                      : partition_on_warp(warp, mem, units, n, u.total);
  b.counters.partition = warp.counters();
  b.lights = p.lists.lights;
  b.heavies = p.lists.heavies;
  const std::size_t steps = b.lights + b.heavies;  // what PSA packs
  if (steps > 0) {
    std::size_t sections = c.sections;
    if (sections == 0) sections = c.pack == PackMethod::Shared ? shared_pack_sections(steps, c) : std::max<std::size_t>(1, steps / 32);
    if (c.pack == PackMethod::Shared) sections = std::max(sections, shared_pack_sections(steps, c));
    sections = std::min(std::max<std::size_t>(sections, 1), steps);
    b.sections = sections;
    std::vector<std::size_t> ks;
    for (std::size_t q = 0; q <= sections; ++q) ks.push_back(q * steps / sections);
    auto splits = splits_on_model(mem, p.sums, std::vector<std::size_t>(ks.begin(), ks.end() - 1), c, b.counters.split);
    splits.push_back({p.lists.lights, p.lists.heavies});
    pack_on_model(mem, p, units, n, u.total, splits, ks, rows, c, b.counters.pack);
  }
  b.table = download_table(mem, rows, u);
  return b;
}

}  // namespace warpsim::oracle::alias
