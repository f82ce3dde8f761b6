// PSA's partition on the warp model (seed 001, Sec. 4.3 and 3.2.3): the
// items into the light list l and the heavy list h, in index order, each with
// its mass beside it, and the two prefix sums the split searches -- light
// deficits D and heavy excesses E (psa.hpp) -- in one pass over the weights.
//
// A warp reads W consecutive units (one coalesced load), classifies them
// (mass N u_i against the capacity U), and finds each item's place with a
// ballot per list: a light lane's place is the lights before this tile plus
// the light lanes below it (popc of the ballot masked to the lower lanes).
// The tile's deficits and excesses are summed by an inclusive warp scan
// (log2 W shfl_up steps) and offset by the running totals that lane W - 1
// broadcasts at the end of each tile. The sums are integers: the GPU's
// partition (CUB's, any tile size or block count) gives the same arrays.
//
// The model moves a 16-byte mass in one shuffle; CUDA's __shfl_*_sync moves
// 4 bytes, so each of those is 4 shuffles on the device.
#pragma once

#include <bit>

#include "oracle/alias/pack_warp.hpp"
#include "oracle/alias/split_warp.hpp"

namespace warpsim::oracle::alias {

struct DevicePartition {
  DeviceLists lists;
  DevicePrefixSums sums;
};

inline sim::DeviceArray<std::uint64_t> upload_units(sim::GlobalMemory& mem, const Units& u) {
  auto d = mem.allocate<std::uint64_t>(u.units.size());
  mem.upload<std::uint64_t>(d, u.units);
  return d;
}

// Appends tiles of up to W items to the lists and sums: the warp-side state
// of a partition (the lists' lengths and the running prefix sums, the same in
// every lane). PSA+ (psa_plus_warp.hpp) appends what its groups leave.
class ListAppender {
 public:
  // Lists and sums for up to n items (the worst case: all light, or all heavy).
  ListAppender(sim::Warp& warp, sim::GlobalMemory& mem, std::size_t n, u128 cap)
      : warp_(warp), mem_(mem), cap_(cap),
        p_{{mem.allocate<std::uint32_t>(n), mem.allocate<std::uint32_t>(n), mem.allocate<u128>(n), mem.allocate<u128>(n), 0, 0},
           {mem.allocate<u128>(n + 1), mem.allocate<u128>(n + 1), 0, 0}} {
    using sim::Op;
    using sim::PerLane;
    sim::Reg<bool> first("lane 0");
    sim::Reg<u128> zero("0", 0);
    // D(0) = E(0) = 0.
    warp.compute(Op::Compare, first, [&](int l) { return l == 0; }, "lane == 0");
    warp.if_then(first, [&] {
      warp.store_global(mem, PerLane<std::uint64_t>(p_.sums.deficit.at(0)), zero);
      warp.store_global(mem, PerLane<std::uint64_t>(p_.sums.excess.at(0)), zero);
    });
  }

  // Appends the lanes where `valid` holds, in lane order: item and mass.
  void append(const sim::Reg<bool>& valid, const sim::Reg<std::uint32_t>& item, const sim::Reg<u128>& mass) {
    using sim::LaneMask;
    using sim::Op;
    using sim::PerLane;
    using sim::Reg;
    auto& warp = warp_;
    auto& mem = mem_;
    auto& p = p_;
    const u128 cap = cap_;
    const auto all = warp.lanes();
    const int last = warp.width() - 1;
    Reg<std::uint64_t> addr("addr"), pos("pos");
    Reg<u128> dkey("U - m (light)"), ekey("m - U (heavy)"), up("up"), total("tile total"), sum("prefix sum");
    Reg<bool> heavy("heavy"), light("light");
    Reg<LaneMask> heavy_mask("heavy ballot"), light_mask("light ballot");
    warp.compute(Op::Compare, heavy, [&](int l) { return valid[l] && mass[l] > cap; }, "heavy <- m > U");
    warp.compute(Op::Compare, light, [&](int l) { return valid[l] && !heavy[l]; }, "light <- m <= U");
    warp.ballot_sync(heavy_mask, all, heavy);
    warp.ballot_sync(light_mask, all, light);
    // Each list's keys (0 for the other list's lanes), scanned inclusively.
    warp.compute(Op::Other, dkey, [&](int l) { return light[l] ? cap - mass[l] : u128{0}; }, "dkey <- light ? U - m : 0");
    warp.compute(Op::Other, ekey, [&](int l) { return heavy[l] ? mass[l] - cap : u128{0}; }, "ekey <- heavy ? m - U : 0");
    for (int d = 1; d <= last; d *= 2) {
      warp.shfl_up_sync(up, all, dkey, d);
      warp.compute(Op::Add, dkey, [&](int l) { return l >= d ? dkey[l] + up[l] : dkey[l]; }, "dkey += up (lane >= d)");
      warp.shfl_up_sync(up, all, ekey, d);
      warp.compute(Op::Add, ekey, [&](int l) { return l >= d ? ekey[l] + up[l] : ekey[l]; }, "ekey += up (lane >= d)");
    }
    // Place on its list: the list's length so far plus its lanes below.
    warp.compute(Op::Other, pos, [&](int l) {
      const LaneMask below = (LaneMask{1} << l) - 1;
      return heavy[l] ? heavies_[l] + static_cast<std::uint64_t>(std::popcount(heavy_mask[l] & below))
                      : lights_[l] + static_cast<std::uint64_t>(std::popcount(light_mask[l] & below));
    }, "pos <- |list| + popc(ballot & lanes below)");
    warp.if_then(light, [&] {  // l[pos] = i, its mass, D(pos + 1)
      warp.compute(Op::Add, sum, [&](int l) { return d_base_[l] + dkey[l]; }, "D <- D base + scan");
      warp.compute(Op::Other, addr, [&](int l) { return p.lists.light.at(pos[l]); }, "addr <- &l[pos]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), item);
      warp.compute(Op::Other, addr, [&](int l) { return p.lists.light_mass.at(pos[l]); }, "addr <- &l.mass[pos]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), mass);
      warp.compute(Op::Other, addr, [&](int l) { return p.sums.deficit.at(pos[l] + 1); }, "addr <- &D[pos + 1]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), sum);
    });
    warp.if_then(heavy, [&] {  // h[pos] = i, its mass, E(pos + 1)
      warp.compute(Op::Add, sum, [&](int l) { return e_base_[l] + ekey[l]; }, "E <- E base + scan");
      warp.compute(Op::Other, addr, [&](int l) { return p.lists.heavy.at(pos[l]); }, "addr <- &h[pos]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), item);
      warp.compute(Op::Other, addr, [&](int l) { return p.lists.heavy_mass.at(pos[l]); }, "addr <- &h.mass[pos]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), mass);
      warp.compute(Op::Other, addr, [&](int l) { return p.sums.excess.at(pos[l] + 1); }, "addr <- &E[pos + 1]");
      warp.store_global(mem, PerLane<std::uint64_t>(addr), sum);
    });
    // The running totals: lane W - 1's inclusive scans are the tile's sums.
    warp.shfl_sync(total, all, dkey, last);
    warp.compute(Op::Add, d_base_, [&](int l) { return d_base_[l] + total[l]; }, "D base += tile deficit");
    warp.shfl_sync(total, all, ekey, last);
    warp.compute(Op::Add, e_base_, [&](int l) { return e_base_[l] + total[l]; }, "E base += tile excess");
    warp.compute(Op::Add, lights_, [&](int l) { return lights_[l] + static_cast<std::uint64_t>(std::popcount(light_mask[l])); }, "|l| += popc");
    warp.compute(Op::Add, heavies_, [&](int l) { return heavies_[l] + static_cast<std::uint64_t>(std::popcount(heavy_mask[l])); }, "|h| += popc");
  }

  // The lists and sums, their lengths filled in.
  DevicePartition finish() {
    p_.lists.lights = p_.sums.lights = static_cast<std::size_t>(lights_[0]);
    p_.lists.heavies = p_.sums.heavies = static_cast<std::size_t>(heavies_[0]);
    return p_;
  }

 private:
  sim::Warp& warp_;
  sim::GlobalMemory& mem_;
  u128 cap_;
  DevicePartition p_;
  sim::Reg<std::uint64_t> lights_{"|l|", 0}, heavies_{"|h|", 0};
  sim::Reg<u128> d_base_{"D base", 0}, e_base_{"E base", 0};
};

// Partitions the n units at `units` (capacity U = cap); the lists and sums
// are allocated for the worst case (every item light, or every item heavy).
inline DevicePartition partition_on_warp(sim::Warp& warp, sim::GlobalMemory& mem, const sim::DeviceArray<std::uint64_t>& units,
                                         std::size_t n, u128 cap) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const int w = warp.width();
  ListAppender out(warp, mem, n, cap);
  Reg<std::uint64_t> addr("addr"), unit("u");
  Reg<u128> mass("m");
  Reg<std::uint32_t> item("item");
  Reg<bool> valid("valid");
  for (std::size_t base = 0; base < n; base += static_cast<std::size_t>(w)) {  // a uniform loop over tiles
    warp.compute(Op::Compare, valid, [&](int l) { return base + static_cast<std::size_t>(l) < n; }, "valid <- i < N");
    warp.compute(Op::Other, item, [&](int l) { return static_cast<std::uint32_t>(base + static_cast<std::size_t>(l)); }, "i <- base + lane");
    warp.mov(unit, PerLane<std::uint64_t>(0));
    warp.if_then(valid, [&] {
      warp.compute(Op::Other, addr, [&](int l) { return units.at(item[l]); }, "addr <- &u[i]");
      warp.load_global(unit, mem, PerLane<std::uint64_t>(addr));
    });
    warp.compute(Op::Mul, mass, [&](int l) { return static_cast<u128>(n) * unit[l]; }, "m <- N u");
    out.append(valid, item, mass);
  }
  return out.finish();
}

}  // namespace warpsim::oracle::alias
