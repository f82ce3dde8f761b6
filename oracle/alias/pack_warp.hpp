// PSA's pack on the warp model (seed 001, Sec. 3.2): lane l packs one
// section, from its split to the next, writing each finished row as one
// 16-byte store {keep, alias, pad}; a warp-level loop runs while any lane has
// steps left. The heavy item's remainder w is carried from step to step (the
// split gives the first), as the thesis's pack does; in integers it equals
// the prefix-sum form of psa.hpp, so the table equals psa()'s.
//
// Where the lanes read l and h is a policy (the methods of Sec. 3.2):
//   GlobalLists   the baseline (3.2.1): l and h in global memory, each lane
//                 reading its own section's items -- uncoalesced
//   SharedLists   l and h in shared memory (3.2.2): the warp first copies its
//                 sections' ranges of l and h there, coalesced
//   ChunkLists    chunked loading (3.2.4, Alg. 3.2): pack_chunked.hpp
// and each reads an item's mass beside it (3.2.3, "weight in l and h") or,
// without, from the weights: N u[item] from the units array in global memory
// (the thesis's arrays hold indices only; PSA+ needs masses beside the items,
// since a partly packed heavy item's mass is not N u).
#pragma once

#include <string>
#include <vector>

#include "oracle/alias/psa.hpp"
#include "oracle/alias/split_warp.hpp"
#include "sim/global_memory.hpp"
#include "sim/shared_memory.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle::alias {

struct alignas(16) TableRow {
  std::uint64_t keep = 0;
  std::uint32_t alias = 0, pad = 0;
  std::string to_string() const { return std::to_string(keep) + "|" + std::to_string(alias); }
};

struct DeviceLists {
  sim::DeviceArray<std::uint32_t> light, heavy;
  sim::DeviceArray<u128> light_mass, heavy_mass;
  std::size_t lights = 0, heavies = 0;
};

inline DeviceLists upload_lists(sim::GlobalMemory& mem, const Partition& p) {
  auto one = [](std::size_t n) { return n == 0 ? std::size_t{1} : n; };
  DeviceLists d{mem.allocate<std::uint32_t>(one(p.light.size())), mem.allocate<std::uint32_t>(one(p.heavy.size())),
                mem.allocate<u128>(one(p.light.size())), mem.allocate<u128>(one(p.heavy.size())), p.light.size(), p.heavy.size()};
  mem.upload<std::uint32_t>(d.light, p.light);
  mem.upload<std::uint32_t>(d.heavy, p.heavy);
  mem.upload<u128>(d.light_mass, p.light_mass);
  mem.upload<u128>(d.heavy_mass, p.heavy_mass);
  return d;
}

enum class List { Light, Heavy };

// Masses from the weights (no 3.2.3): m = N u[item], one more global load.
struct MassFromWeights {
  const sim::DeviceArray<std::uint64_t>* units = nullptr;  // null: masses beside the items
  std::uint64_t n = 0;
  bool active() const { return units != nullptr; }
  void load(sim::Warp& warp, const sim::GlobalMemory& mem, sim::Reg<u128>& mass, const sim::Reg<std::uint32_t>& item) const {
    sim::Reg<std::uint64_t> addr("addr"), unit("u");
    warp.compute(sim::Op::Other, addr, [&](int l) { return units->at(item[l]); }, "addr <- &u[item]");
    warp.load_global(unit, mem, sim::PerLane<std::uint64_t>(addr));
    warp.compute(sim::Op::Mul, mass, [&](int l) { return static_cast<u128>(n) * unit[l]; }, "m <- N u[item]");
  }
};

// The baseline: each lane reads l and h in global memory.
struct GlobalLists {
  const sim::GlobalMemory& mem;
  const DeviceLists& d;
  MassFromWeights weights{};

  bool has(int, List, std::uint64_t) const { return true; }
  void load(sim::Warp& warp, List which, const sim::Reg<std::uint64_t>& index, sim::Reg<std::uint32_t>& item, sim::Reg<u128>* mass) const {
    const bool light = which == List::Light;
    const auto& items = light ? d.light : d.heavy;
    const auto& masses = light ? d.light_mass : d.heavy_mass;
    sim::Reg<std::uint64_t> addr("addr");
    warp.compute(sim::Op::Other, addr, [&](int l) { return items.at(index[l]); }, light ? "addr <- &l[i]" : "addr <- &h[j]");
    warp.load_global(item, mem, sim::PerLane<std::uint64_t>(addr));
    if (mass == nullptr) return;
    if (weights.active()) return weights.load(warp, mem, *mass, item);
    warp.compute(sim::Op::Other, addr, [&](int l) { return masses.at(index[l]); }, light ? "addr <- &l.mass[i]" : "addr <- &h.mass[j]");
    warp.load_global(*mass, mem, sim::PerLane<std::uint64_t>(addr));
  }
};

// l and h in shared memory (Sec. 3.2.2): the warp's sections use lights
// [i0, i1) and heavies [j0, j1) (j1 one past the last heavy any of them
// reads), copied there first, coalesced; the lanes then read shared memory.
struct SharedLists {
  const sim::GlobalMemory& mem;
  sim::SharedMemory& smem;
  sim::SharedArray<std::uint32_t> light, heavy;
  sim::SharedArray<u128> light_mass, heavy_mass;
  std::uint64_t i0 = 0, j0 = 0;
  MassFromWeights weights{};

  // Bytes of shared memory the ranges need.
  static std::size_t bytes(std::size_t lights, std::size_t heavies, bool masses) {
    return (lights + heavies) * (4 + (masses ? 16 : 0)) + 64;
  }

  static SharedLists copy(sim::Warp& warp, const sim::GlobalMemory& mem, sim::SharedMemory& smem, const DeviceLists& d, std::uint64_t i0,
                          std::uint64_t i1, std::uint64_t j0, std::uint64_t j1, MassFromWeights weights = {}) {
    const bool masses = !weights.active();
    SharedLists s{mem, smem, smem.allocate<std::uint32_t>(i1 - i0), smem.allocate<std::uint32_t>(j1 - j0),
                  smem.allocate<u128>(masses ? i1 - i0 : 0), smem.allocate<u128>(masses ? j1 - j0 : 0), i0, j0, weights};
    copy_range(warp, mem, smem, d.light, s.light, i0, i1);
    copy_range(warp, mem, smem, d.heavy, s.heavy, j0, j1);
    if (masses) {
      copy_range(warp, mem, smem, d.light_mass, s.light_mass, i0, i1);
      copy_range(warp, mem, smem, d.heavy_mass, s.heavy_mass, j0, j1);
    }
    warp.syncwarp(warp.lanes());
    return s;
  }

  // Elements [first, last) of `from` to `to` (from its element 0), W at a time.
  template <class T>
  static void copy_range(sim::Warp& warp, const sim::GlobalMemory& mem, sim::SharedMemory& smem, const sim::DeviceArray<T>& from,
                         const sim::SharedArray<T>& to, std::uint64_t first, std::uint64_t last, std::uint64_t to_first = 0) {
    sim::Reg<std::uint64_t> e("e");
    sim::Reg<T> v("v");
    sim::Reg<bool> in("e < last");
    for (std::uint64_t base = first; base < last; base += static_cast<std::uint64_t>(warp.width())) {
      warp.compute(sim::Op::Other, e, [&](int l) { return base + static_cast<std::uint64_t>(l); }, "e <- base + lane");
      warp.compute(sim::Op::Compare, in, [&](int l) { return e[l] < last; }, "e < last");
      warp.if_then(in, [&] {
        sim::Reg<std::uint64_t> addr("addr");
        warp.compute(sim::Op::Other, addr, [&](int l) { return from.at(e[l]); }, "addr <- &global[e]");
        warp.load_global(v, mem, sim::PerLane<std::uint64_t>(addr));
        warp.compute(sim::Op::Other, addr, [&](int l) { return to.at(to_first + e[l] - first); }, "addr <- &shared[e - first]");
        warp.store_shared(smem, sim::PerLane<std::uint64_t>(addr), v);
      });
    }
  }

  bool has(int, List, std::uint64_t) const { return true; }
  void load(sim::Warp& warp, List which, const sim::Reg<std::uint64_t>& index, sim::Reg<std::uint32_t>& item, sim::Reg<u128>* mass) const {
    const bool lt = which == List::Light;
    const auto& items = lt ? light : heavy;
    const auto& masses = lt ? light_mass : heavy_mass;
    const std::uint64_t origin = lt ? i0 : j0;
    sim::Reg<std::uint64_t> addr("addr");
    warp.compute(sim::Op::Other, addr, [&](int l) { return items.at(index[l] - origin); }, lt ? "addr <- &sl[i - i0]" : "addr <- &sh[j - j0]");
    warp.load_shared(item, smem, sim::PerLane<std::uint64_t>(addr));
    if (mass == nullptr) return;
    if (weights.active()) return weights.load(warp, mem, *mass, item);
    warp.compute(sim::Op::Other, addr, [&](int l) { return masses.at(index[l] - origin); }, lt ? "addr <- &sl.mass[i - i0]" : "addr <- &sh.mass[j - j0]");
    warp.load_shared(*mass, smem, sim::PerLane<std::uint64_t>(addr));
  }
};

// A pack's per-lane state: lights filled i, heavies finished j, the step and
// the section's end, and w, what heavy j has left.
struct PackState {
  sim::Reg<std::uint64_t> i{"i"}, j{"j"}, step{"step"}, end{"end"};
  sim::Reg<u128> rest{"w"};
};

// Lane l's state at its split from[l], its section ending at to[l]; w from
// the prefix sums, w = E(j + 1) + U - D(i) (two global loads).
inline PackState start_pack(sim::Warp& warp, const sim::GlobalMemory& mem, const DevicePrefixSums& sums, u128 cap,
                            const std::vector<Split>& from, const std::vector<std::size_t>& to) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const auto lanes = static_cast<int>(from.size());
  PackState s;
  Reg<std::uint64_t> addr("addr");
  Reg<u128> dv("D[i]"), ev("E[j+1]");
  Reg<bool> has_heavy("j<|h|");
  warp.compute(Op::Other, s.i, [&](int l) { return l < lanes ? static_cast<std::uint64_t>(from[static_cast<std::size_t>(l)].i) : 0; }, "i <- split.i");
  warp.compute(Op::Other, s.j, [&](int l) { return l < lanes ? static_cast<std::uint64_t>(from[static_cast<std::size_t>(l)].j) : 0; }, "j <- split.j");
  warp.compute(Op::Other, s.step, [&](int l) { return s.i[l] + s.j[l]; }, "step <- i + j");
  warp.compute(Op::Other, s.end, [&](int l) { return l < lanes ? static_cast<std::uint64_t>(to[static_cast<std::size_t>(l)]) : s.step[l]; }, "end <- next split");
  warp.mov(s.rest, PerLane<u128>(u128{0}));
  warp.compute(Op::Compare, has_heavy, [&](int l) { return s.j[l] < sums.heavies && s.step[l] < s.end[l]; }, "j < |h|");
  warp.if_then(has_heavy, [&] {
    warp.compute(Op::Other, addr, [&](int l) { return sums.deficit.at(s.i[l]); }, "addr <- &D[i]");
    warp.load_global(dv, mem, PerLane<std::uint64_t>(addr));
    warp.compute(Op::Other, addr, [&](int l) { return sums.excess.at(s.j[l] + 1); }, "addr <- &E[j + 1]");
    warp.load_global(ev, mem, PerLane<std::uint64_t>(addr));
    warp.compute(Op::Other, s.rest, [&](int l) { return ev[l] + cap - dv[l]; }, "w <- E[j+1] + U - D[i]");
  });
  return s;
}

// Packs while the lane has steps left and `lists` holds what the next step
// reads (always, but for chunks). Returns the loop's iterations.
template <class Lists>
int pack_steps(sim::Warp& warp, sim::GlobalMemory& mem, const Lists& lists, PackState& s, std::size_t lights, std::size_t heavies, u128 cap,
               const sim::DeviceArray<TableRow>& rows) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  Reg<std::uint64_t> addr("addr"), next_j("j+1");
  Reg<u128> mass("m");
  Reg<std::uint32_t> item("item"), next("next");
  Reg<TableRow> row("row");
  Reg<bool> go("go"), has_heavy("j<|h|"), light("light step"), heavy("heavy step"), more("j+1<|h|");
  auto kinds = [&] {
    warp.compute(Op::Compare, has_heavy, [&](int l) { return s.j[l] < heavies; }, "j < |h|");
    warp.compute(Op::Compare, light, [&](int l) { return has_heavy[l] && s.i[l] < lights && s.rest[l] > cap; }, "light: w > U");
    warp.compute(Op::Compare, heavy, [&](int l) { return has_heavy[l] && !light[l]; }, "heavy: w <= U");
    warp.compute(Op::Compare, more, [&](int l) { return s.j[l] + 1 < heavies; }, "j + 1 < |h|");
  };
  return warp.loop_while(
      go,
      [&] {
        kinds();
        warp.compute(Op::Compare, go, [&](int l) {
          if (s.step[l] >= s.end[l]) return false;
          if (light[l]) return lists.has(l, List::Light, s.i[l]) && lists.has(l, List::Heavy, s.j[l]);
          if (heavy[l]) return lists.has(l, List::Heavy, s.j[l]) && (!more[l] || lists.has(l, List::Heavy, s.j[l] + 1));
          return true;
        }, "go <- step < end (and the step's items at hand)");
      },
      [&] {
        warp.if_then(light, [&] {  // fill light item i's row from heavy j
          lists.load(warp, List::Light, s.i, item, &mass);
          lists.load(warp, List::Heavy, s.j, next, nullptr);
          warp.compute(Op::Other, row, [&](int l) { return TableRow{static_cast<std::uint64_t>(mass[l]), next[l], 0}; }, "row <- {m, h[j]}");
          warp.compute(Op::Other, addr, [&](int l) { return rows.at(item[l]); }, "addr <- &T[l[i]]");
          warp.store_global(mem, PerLane<std::uint64_t>(addr), row);
          warp.compute(Op::Other, s.rest, [&](int l) { return s.rest[l] - (cap - mass[l]); }, "w <- w - (U - m)");
          warp.compute(Op::Other, s.i, [&](int l) { return s.i[l] + 1; }, "i <- i + 1");
        });
        warp.if_then(heavy, [&] {  // heavy j has at most a bucket left: its row, the rest from heavy j + 1
          lists.load(warp, List::Heavy, s.j, item, nullptr);
          warp.mov(next, PerLane<std::uint32_t>(item));
          warp.if_then(more, [&] {
            warp.compute(Op::Other, next_j, [&](int l) { return s.j[l] + 1; }, "j + 1");
            lists.load(warp, List::Heavy, next_j, next, &mass);
          });
          warp.compute(Op::Other, row, [&](int l) { return TableRow{static_cast<std::uint64_t>(s.rest[l]), next[l], 0}; }, "row <- {w, h[j+1]}");
          warp.compute(Op::Other, addr, [&](int l) { return rows.at(item[l]); }, "addr <- &T[h[j]]");
          warp.store_global(mem, PerLane<std::uint64_t>(addr), row);
          warp.compute(Op::Other, s.rest, [&](int l) { return more[l] ? mass[l] - (cap - s.rest[l]) : s.rest[l]; }, "w <- m' - (U - w)");
          warp.compute(Op::Other, s.j, [&](int l) { return s.j[l] + 1; }, "j <- j + 1");
        });
        // No heavy item left: the lights left are exactly full (rows stay {U, self}).
        warp.compute(Op::Other, s.i, [&](int l) { return has_heavy[l] ? s.i[l] : s.i[l] + 1; }, "i <- i + 1 (full bucket)");
        warp.compute(Op::Other, s.step, [&](int l) { return s.step[l] + 1; }, "step <- step + 1");
      });
}

// The baseline pack: lane l packs steps from[l] .. to[l] - 1 into the table
// rows at `rows` (N rows of TableRow), given its split (from split_on_warp).
inline void pack_on_warp(sim::Warp& warp, sim::GlobalMemory& mem, const DeviceLists& d, const DevicePrefixSums& sums, u128 cap,
                         const std::vector<Split>& from, const std::vector<std::size_t>& to, const sim::DeviceArray<TableRow>& rows,
                         MassFromWeights weights = {}) {
  auto s = start_pack(warp, mem, sums, cap, from, to);
  pack_steps(warp, mem, GlobalLists{mem, d, weights}, s, d.lights, d.heavies, cap, rows);
}

// The pack with l and h in shared memory: the warp's sections end at split
// `last` (the next group's first split, or (|l|, |h|)).
inline void pack_shared_on_warp(sim::Warp& warp, sim::GlobalMemory& mem, sim::SharedMemory& smem, const DeviceLists& d,
                                const DevicePrefixSums& sums, u128 cap, const std::vector<Split>& from, const std::vector<std::size_t>& to,
                                Split last, const sim::DeviceArray<TableRow>& rows, MassFromWeights weights = {}) {
  const std::uint64_t i0 = from.front().i, j0 = from.front().j;
  const std::uint64_t i1 = last.i, j1 = std::min<std::uint64_t>(last.j + 1, d.heavies);
  const auto lists = SharedLists::copy(warp, mem, smem, d, i0, std::max(i0, i1), j0, std::max(j0, j1), weights);
  auto s = start_pack(warp, mem, sums, cap, from, to);
  pack_steps(warp, mem, lists, s, d.lights, d.heavies, cap, rows);
}

}  // namespace warpsim::oracle::alias
