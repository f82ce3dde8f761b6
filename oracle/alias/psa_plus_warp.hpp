// PSA+'s greedy packing while partitioning, on the warp model (seed 001,
// Sec. 3.3, 4.6): a warp a group of G consecutive items, in three stages.
//   A  the group's units into shared memory (coalesced loads), each item's
//      mass beside it, and the group's light and heavy lists (local indices,
//      index order: ballots and popc, as the partition places them);
//   B  each lane packs its share of the lists greedily (psa_plus.hpp's rule),
//      reading shared memory and storing each finished row (16 bytes) to the
//      table; the heavy item a lane stops on keeps what is left of it;
//   C  the group's items not packed -- in index order, re-classified by what
//      is left of them -- are appended to the global l and h arrays with their
//      masses and prefix sums (ListAppender, partition_warp.hpp).
// The groups append in order (on the GPU: a scan over the groups' counts,
// not the thesis's atomic counter), so PSA on what is left gives
// psa_plus(u, G, sections, {}, ..., lanes = W)'s table.
#pragma once

#include "oracle/alias/pack_warp.hpp"
#include "oracle/alias/partition_warp.hpp"
#include "oracle/alias/psa_plus.hpp"

namespace warpsim::oracle::alias {

// The greedy stage of every group; returns what is left, as a partition.
inline DevicePartition psa_plus_partition_on_warp(sim::Warp& warp, sim::GlobalMemory& mem, const sim::DeviceArray<std::uint64_t>& units,
                                                  std::size_t n, u128 cap, std::size_t group, const sim::DeviceArray<TableRow>& rows,
                                                  PsaPlusStats* stats = nullptr) {
  using sim::LaneMask;
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const int w = warp.width();
  const auto all = warp.lanes();
  const auto lanes = static_cast<std::uint64_t>(w);
  group = std::max<std::size_t>(1, group);
  ListAppender out(warp, mem, n, cap);
  PsaPlusStats st;
  Reg<std::uint64_t> addr("addr"), unit("u"), k("k"), pos("pos"), nl("|l|"), nh("|h|");
  Reg<u128> mass("m"), rest("w"), next_mass("m'");
  Reg<std::uint32_t> item("item"), flag("left"), li("l[i]"), hj("h[j]"), hn("h[j+1]");
  Reg<bool> valid("valid"), heavy("heavy"), light("light"), go("go"), light_step("light step"), stopped("stopped on a heavy");
  Reg<LaneMask> heavy_mask("heavy ballot"), light_mask("light ballot");
  Reg<std::uint64_t> i("i"), i_end("i end"), j("j"), j_end("j end");
  Reg<TableRow> row("row");
  Reg<std::uint32_t> zero("0", 0), one("1", 1);
  for (std::size_t first = 0; first < n; first += group) {
    const std::size_t size = std::min(group, n - first);
    sim::SharedMemory smem(size * (16 + 4 + 4 + 4) + 256);
    const auto s_mass = smem.allocate<u128>(size);
    const auto s_left = smem.allocate<std::uint32_t>(size);
    const auto s_light = smem.allocate<std::uint32_t>(size);
    const auto s_heavy = smem.allocate<std::uint32_t>(size);
    // A: load, classify, place.
    warp.mov(nl, PerLane<std::uint64_t>(0));
    warp.mov(nh, PerLane<std::uint64_t>(0));
    for (std::size_t base = 0; base < size; base += static_cast<std::size_t>(w)) {
      warp.compute(Op::Other, k, [&](int l) { return static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(l); }, "k <- base + lane");
      warp.compute(Op::Compare, valid, [&](int l) { return k[l] < size; }, "valid <- k < G");
      warp.mov(unit, PerLane<std::uint64_t>(0));
      warp.if_then(valid, [&] {
        warp.compute(Op::Other, addr, [&](int l) { return units.at(first + k[l]); }, "addr <- &u[first + k]");
        warp.load_global(unit, mem, PerLane<std::uint64_t>(addr));
        warp.compute(Op::Mul, mass, [&](int l) { return static_cast<u128>(n) * unit[l]; }, "m <- N u");
        warp.compute(Op::Other, addr, [&](int l) { return s_mass.at(k[l]); }, "addr <- &s.mass[k]");
        warp.store_shared(smem, PerLane<std::uint64_t>(addr), mass);
        warp.compute(Op::Other, addr, [&](int l) { return s_left.at(k[l]); }, "addr <- &s.left[k]");
        warp.store_shared(smem, PerLane<std::uint64_t>(addr), one);
      });
      warp.compute(Op::Compare, heavy, [&](int l) { return valid[l] && mass[l] > cap; }, "heavy <- m > U");
      warp.compute(Op::Compare, light, [&](int l) { return valid[l] && !heavy[l]; }, "light <- m <= U");
      warp.ballot_sync(heavy_mask, all, heavy);
      warp.ballot_sync(light_mask, all, light);
      warp.compute(Op::Other, pos, [&](int l) {
        const LaneMask below = (LaneMask{1} << l) - 1;
        return heavy[l] ? nh[l] + static_cast<std::uint64_t>(std::popcount(heavy_mask[l] & below))
                        : nl[l] + static_cast<std::uint64_t>(std::popcount(light_mask[l] & below));
      }, "pos <- |list| + popc(ballot & lanes below)");
      warp.compute(Op::Other, item, [&](int l) { return static_cast<std::uint32_t>(k[l]); }, "item <- k (local)");
      warp.if_then(valid, [&] {
        warp.compute(Op::Other, addr, [&](int l) { return heavy[l] ? s_heavy.at(pos[l]) : s_light.at(pos[l]); }, "addr <- &s.list[pos]");
        warp.store_shared(smem, PerLane<std::uint64_t>(addr), item);
      });
      warp.compute(Op::Add, nl, [&](int l) { return nl[l] + static_cast<std::uint64_t>(std::popcount(light_mask[l])); }, "|l| += popc");
      warp.compute(Op::Add, nh, [&](int l) { return nh[l] + static_cast<std::uint64_t>(std::popcount(heavy_mask[l])); }, "|h| += popc");
    }
    warp.syncwarp(all);
    // B: lane t packs lights [t L / T, (t + 1) L / T) and heavies likewise.
    warp.compute(Op::Other, i, [&](int l) { return static_cast<std::uint64_t>(l) * nl[l] / lanes; }, "i <- t L / T");
    warp.compute(Op::Other, i_end, [&](int l) { return static_cast<std::uint64_t>(l + 1) * nl[l] / lanes; }, "i end <- (t + 1) L / T");
    warp.compute(Op::Other, j, [&](int l) { return static_cast<std::uint64_t>(l) * nh[l] / lanes; }, "j <- t H / T");
    warp.compute(Op::Other, j_end, [&](int l) { return static_cast<std::uint64_t>(l + 1) * nh[l] / lanes; }, "j end <- (t + 1) H / T");
    warp.compute(Op::Compare, stopped, [&](int l) { return j[l] < j_end[l]; }, "has a heavy");
    warp.if_then(stopped, [&] {
      warp.compute(Op::Other, addr, [&](int l) { return s_heavy.at(j[l]); }, "addr <- &s.h[j]");
      warp.load_shared(hj, smem, PerLane<std::uint64_t>(addr));
      warp.compute(Op::Other, addr, [&](int l) { return s_mass.at(hj[l]); }, "addr <- &s.mass[h[j]]");
      warp.load_shared(rest, smem, PerLane<std::uint64_t>(addr));
    });
    warp.loop_while(
        go,
        [&] {
          warp.compute(Op::Compare, go, [&](int l) {
            return stopped[l] && ((rest[l] > cap && i[l] < i_end[l]) || (rest[l] <= cap && j[l] + 1 < j_end[l]));
          }, "go <- a light to fill, or a next heavy");
        },
        [&] {
          warp.compute(Op::Compare, light_step, [&](int l) { return rest[l] > cap && i[l] < i_end[l]; }, "light step <- w > U");
          warp.if_else(
              light_step,
              [&] {  // fill light i from heavy j
                warp.compute(Op::Other, addr, [&](int l) { return s_light.at(i[l]); }, "addr <- &s.l[i]");
                warp.load_shared(li, smem, PerLane<std::uint64_t>(addr));
                warp.compute(Op::Other, addr, [&](int l) { return s_mass.at(li[l]); }, "addr <- &s.mass[l[i]]");
                warp.load_shared(mass, smem, PerLane<std::uint64_t>(addr));
                warp.compute(Op::Other, row, [&](int l) {
                  return TableRow{static_cast<std::uint64_t>(mass[l]), static_cast<std::uint32_t>(first + hj[l]), 0};
                }, "row <- {m, h[j]}");
                warp.compute(Op::Other, addr, [&](int l) { return rows.at(first + li[l]); }, "addr <- &T[l[i]]");
                warp.store_global(mem, PerLane<std::uint64_t>(addr), row);
                warp.compute(Op::Other, addr, [&](int l) { return s_left.at(li[l]); }, "addr <- &s.left[l[i]]");
                warp.store_shared(smem, PerLane<std::uint64_t>(addr), zero);
                warp.compute(Op::Other, rest, [&](int l) { return rest[l] - (cap - mass[l]); }, "w <- w - (U - m)");
                warp.compute(Op::Other, i, [&](int l) { return i[l] + 1; }, "i <- i + 1");
              },
              [&] {  // heavy j keeps w, the rest of its row from heavy j + 1
                warp.compute(Op::Other, addr, [&](int l) { return s_heavy.at(j[l] + 1); }, "addr <- &s.h[j + 1]");
                warp.load_shared(hn, smem, PerLane<std::uint64_t>(addr));
                warp.compute(Op::Other, addr, [&](int l) { return s_mass.at(hn[l]); }, "addr <- &s.mass[h[j + 1]]");
                warp.load_shared(next_mass, smem, PerLane<std::uint64_t>(addr));
                warp.compute(Op::Other, row, [&](int l) {
                  return TableRow{static_cast<std::uint64_t>(rest[l]), static_cast<std::uint32_t>(first + hn[l]), 0};
                }, "row <- {w, h[j + 1]}");
                warp.compute(Op::Other, addr, [&](int l) { return rows.at(first + hj[l]); }, "addr <- &T[h[j]]");
                warp.store_global(mem, PerLane<std::uint64_t>(addr), row);
                warp.compute(Op::Other, addr, [&](int l) { return s_left.at(hj[l]); }, "addr <- &s.left[h[j]]");
                warp.store_shared(smem, PerLane<std::uint64_t>(addr), zero);
                warp.compute(Op::Other, rest, [&](int l) { return next_mass[l] - (cap - rest[l]); }, "w <- m' - (U - w)");
                warp.mov(hj, PerLane<std::uint32_t>(hn));
                warp.compute(Op::Other, j, [&](int l) { return j[l] + 1; }, "j <- j + 1");
              });
        });
    warp.if_then(stopped, [&] {  // the heavy item the lane stopped on keeps what is left of it
      warp.compute(Op::Other, addr, [&](int l) { return s_mass.at(hj[l]); }, "addr <- &s.mass[h[j]]");
      warp.store_shared(smem, PerLane<std::uint64_t>(addr), rest);
    });
    for (int l = 0; l < w; ++l) st.greedy_rows += (i[l] - static_cast<std::uint64_t>(l) * nl[l] / lanes) + (j[l] - static_cast<std::uint64_t>(l) * nh[l] / lanes);
    warp.syncwarp(all);
    // C: what is left, in index order, to the global lists.
    for (std::size_t base = 0; base < size; base += static_cast<std::size_t>(w)) {
      warp.compute(Op::Other, k, [&](int l) { return static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(l); }, "k <- base + lane");
      warp.compute(Op::Compare, valid, [&](int l) { return k[l] < size; }, "k < G");
      warp.mov(flag, PerLane<std::uint32_t>(0));
      warp.if_then(valid, [&] {
        warp.compute(Op::Other, addr, [&](int l) { return s_left.at(k[l]); }, "addr <- &s.left[k]");
        warp.load_shared(flag, smem, PerLane<std::uint64_t>(addr));
        warp.compute(Op::Other, addr, [&](int l) { return s_mass.at(k[l]); }, "addr <- &s.mass[k]");
        warp.load_shared(mass, smem, PerLane<std::uint64_t>(addr));
      });
      warp.compute(Op::Compare, valid, [&](int l) { return valid[l] && flag[l] != 0; }, "left <- not packed");
      warp.compute(Op::Other, item, [&](int l) { return static_cast<std::uint32_t>(first + k[l]); }, "item <- first + k");
      out.append(valid, item, mass);
    }
  }
  auto p = out.finish();
  st.left = p.lists.lights + p.lists.heavies;
  if (stats) *stats = st;
  return p;
}

}  // namespace warpsim::oracle::alias
