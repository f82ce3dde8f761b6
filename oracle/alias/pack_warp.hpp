// PSA's pack on the warp model (seed 001, Sec. 3.2.1 and 3.2.3, the
// baseline with weights in l and h): lane l packs one section, from its
// split to the next, reading the l and h arrays (item and mass) from the
// model's global memory and writing each finished row as one 16-byte store
// {keep, alias, pad}; a warp-level loop runs while any lane has steps left.
// The heavy item's remainder w is carried from step to step (the split
// gives the first), as the thesis's pack does; in integers it equals the
// prefix-sum form of psa.hpp, so the table equals psa()'s.
#pragma once

#include <string>
#include <vector>

#include "oracle/alias/psa.hpp"
#include "oracle/alias/split_warp.hpp"
#include "sim/global_memory.hpp"
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

// Lane l packs steps from[l] .. to[l] - 1 into the table rows at `rows`
// (N rows of TableRow), given its split (from split_on_warp).
inline void pack_on_warp(sim::Warp& warp, sim::GlobalMemory& mem, const DeviceLists& d, const DevicePrefixSums& sums, u128 cap,
                         const std::vector<Split>& from, const std::vector<std::size_t>& to, const sim::DeviceArray<TableRow>& rows) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const auto lanes = static_cast<int>(from.size());
  Reg<std::uint64_t> i("i"), j("j"), step("step"), end("end"), addr("addr");
  Reg<u128> rest("w"), mass("m"), dv("D[i]"), ev("E[j+1]");
  Reg<std::uint32_t> item("item"), next("next");
  Reg<TableRow> row("row");
  Reg<bool> go("step<end"), has_heavy("j<|h|"), light("light step"), heavy("heavy step");
  warp.compute(Op::Other, i, [&](int l) { return l < lanes ? static_cast<std::uint64_t>(from[static_cast<std::size_t>(l)].i) : 0; }, "i <- split.i");
  warp.compute(Op::Other, j, [&](int l) { return l < lanes ? static_cast<std::uint64_t>(from[static_cast<std::size_t>(l)].j) : 0; }, "j <- split.j");
  warp.compute(Op::Other, step, [&](int l) { return i[l] + j[l]; }, "step <- i + j");
  warp.compute(Op::Other, end, [&](int l) { return l < lanes ? static_cast<std::uint64_t>(to[static_cast<std::size_t>(l)]) : step[l]; }, "end <- next split");
  // The spill: what heavy j has left at the split, w = E(j + 1) + U - D(i).
  warp.compute(Op::Compare, has_heavy, [&](int l) { return j[l] < d.heavies && step[l] < end[l]; }, "j < |h|");
  warp.if_then(has_heavy, [&] {
    warp.compute(Op::Other, addr, [&](int l) { return sums.deficit.at(i[l]); }, "addr <- &D[i]");
    warp.load_global(dv, mem, PerLane<std::uint64_t>(addr));
    warp.compute(Op::Other, addr, [&](int l) { return sums.excess.at(j[l] + 1); }, "addr <- &E[j + 1]");
    warp.load_global(ev, mem, PerLane<std::uint64_t>(addr));
    warp.compute(Op::Other, rest, [&](int l) { return ev[l] + cap - dv[l]; }, "w <- E[j+1] + U - D[i]");
  });
  warp.loop_while(
      go, [&] { warp.compute(Op::Compare, go, [&](int l) { return step[l] < end[l]; }, "step < end"); },
      [&] {
        warp.compute(Op::Compare, has_heavy, [&](int l) { return j[l] < d.heavies; }, "j < |h|");
        warp.compute(Op::Compare, light, [&](int l) { return has_heavy[l] && i[l] < d.lights && rest[l] > cap; }, "light: w > U");
        warp.compute(Op::Compare, heavy, [&](int l) { return has_heavy[l] && !light[l]; }, "heavy: w <= U");
        warp.if_then(light, [&] {  // fill light item i's row from heavy j
          warp.compute(Op::Other, addr, [&](int l) { return d.light.at(i[l]); }, "addr <- &l[i]");
          warp.load_global(item, mem, PerLane<std::uint64_t>(addr));
          warp.compute(Op::Other, addr, [&](int l) { return d.light_mass.at(i[l]); }, "addr <- &l.mass[i]");
          warp.load_global(mass, mem, PerLane<std::uint64_t>(addr));
          warp.compute(Op::Other, addr, [&](int l) { return d.heavy.at(j[l]); }, "addr <- &h[j]");
          warp.load_global(next, mem, PerLane<std::uint64_t>(addr));
          warp.compute(Op::Other, row, [&](int l) { return TableRow{static_cast<std::uint64_t>(mass[l]), next[l], 0}; }, "row <- {m, h[j]}");
          warp.compute(Op::Other, addr, [&](int l) { return rows.at(item[l]); }, "addr <- &T[l[i]]");
          warp.store_global(mem, PerLane<std::uint64_t>(addr), row);
          warp.compute(Op::Other, rest, [&](int l) { return rest[l] - (cap - mass[l]); }, "w <- w - (U - m)");
          warp.compute(Op::Other, i, [&](int l) { return i[l] + 1; }, "i <- i + 1");
        });
        warp.if_then(heavy, [&] {  // heavy j has at most a bucket left: its row, the rest from heavy j + 1
          warp.compute(Op::Other, addr, [&](int l) { return d.heavy.at(j[l]); }, "addr <- &h[j]");
          warp.load_global(item, mem, PerLane<std::uint64_t>(addr));
          Reg<bool> more("j+1<|h|");
          warp.compute(Op::Compare, more, [&](int l) { return j[l] + 1 < d.heavies; }, "j + 1 < |h|");
          warp.mov(next, PerLane<std::uint32_t>(item));
          warp.if_then(more, [&] {
            warp.compute(Op::Other, addr, [&](int l) { return d.heavy.at(j[l] + 1); }, "addr <- &h[j + 1]");
            warp.load_global(next, mem, PerLane<std::uint64_t>(addr));
            warp.compute(Op::Other, addr, [&](int l) { return d.heavy_mass.at(j[l] + 1); }, "addr <- &h.mass[j + 1]");
            warp.load_global(mass, mem, PerLane<std::uint64_t>(addr));
          });
          warp.compute(Op::Other, row, [&](int l) { return TableRow{static_cast<std::uint64_t>(rest[l]), next[l], 0}; }, "row <- {w, h[j+1]}");
          warp.compute(Op::Other, addr, [&](int l) { return rows.at(item[l]); }, "addr <- &T[h[j]]");
          warp.store_global(mem, PerLane<std::uint64_t>(addr), row);
          warp.compute(Op::Other, rest, [&](int l) { return more[l] ? mass[l] - (cap - rest[l]) : rest[l]; }, "w <- m' - (U - w)");
          warp.compute(Op::Other, j, [&](int l) { return j[l] + 1; }, "j <- j + 1");
        });
        // No heavy item left: the lights left are exactly full (rows stay {U, self}).
        warp.compute(Op::Other, i, [&](int l) { return has_heavy[l] ? i[l] : i[l] + 1; }, "i <- i + 1 (full bucket)");
        warp.compute(Op::Other, step, [&](int l) { return step[l] + 1; }, "step <- step + 1");
      });
}

}  // namespace warpsim::oracle::alias
