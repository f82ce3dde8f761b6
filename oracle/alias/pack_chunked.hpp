// PSA's chunked pack on the warp model (seed 001, Sec. 3.2.4, 4.5.4, Alg.
// 3.2): each lane packs its section reading l and h from its own chunks of C
// items in shared memory; when a lane's next step needs an item outside its
// chunks it stops ("store state of i, j, w"), and once every lane has stopped
// or finished, the warp reloads the chunks that ran out, coalesced, and the
// lanes go on ("restore state"). A chunk that ran out is reloaded from the
// lane's current position; the other chunk of that lane too if more than half
// of it is used (Sec. 4.5.4). The sections can be as long as the lists
// (Sec. 3.2.4: the number of splits is no longer bound by shared memory).
//
// Alg. 3.2 as printed leaves the chunk test and the exits unstated
// ("if light or heavy array ran out of items"): here a step runs only if
// every item it reads is in the lane's chunks -- a light step reads l[i] and
// h[j], a heavy step h[j] and h[j + 1] -- so no item is read twice from
// global memory within one chunk, and the table is psa()'s.
#pragma once

#include "oracle/alias/pack_warp.hpp"

namespace warpsim::oracle::alias {

struct ChunkLists {
  const sim::GlobalMemory& mem;
  sim::SharedMemory& smem;
  std::uint64_t chunk = 0;  // C
  // Lane q's chunk at q (C + 1): the one item of padding puts the lanes' chunks
  // in different banks (at a stride of C items, C 4-byte items a multiple of
  // 128 bytes, every lane's read would fall in one bank).
  sim::SharedArray<std::uint32_t> light, heavy;
  sim::SharedArray<u128> light_mass, heavy_mass;
  sim::Reg<std::uint64_t> light_origin{"l chunk origin"}, heavy_origin{"h chunk origin"};

  std::uint64_t stride() const { return chunk + 1; }
  static std::size_t bytes(int width, std::uint64_t chunk) { return static_cast<std::size_t>(width) * (chunk + 1) * 2 * (4 + 16) + 64; }

  bool has(int lane, List which, std::uint64_t index) const {
    const std::uint64_t o = which == List::Light ? light_origin[lane] : heavy_origin[lane];
    return index >= o && index < o + chunk;
  }
  void load(sim::Warp& warp, List which, const sim::Reg<std::uint64_t>& index, sim::Reg<std::uint32_t>& item, sim::Reg<u128>* mass) const {
    const bool lt = which == List::Light;
    const auto& items = lt ? light : heavy;
    const auto& masses = lt ? light_mass : heavy_mass;
    const auto& origin = lt ? light_origin : heavy_origin;
    sim::Reg<std::uint64_t> addr("addr");
    warp.compute(sim::Op::Other, addr, [&](int l) { return items.at(static_cast<std::uint64_t>(l) * stride() + index[l] - origin[l]); },
                 lt ? "addr <- &sl[lane (C + 1) + i - origin]" : "addr <- &sh[lane (C + 1) + j - origin]");
    warp.load_shared(item, smem, sim::PerLane<std::uint64_t>(addr));
    if (mass == nullptr) return;
    warp.compute(sim::Op::Other, addr, [&](int l) { return masses.at(static_cast<std::uint64_t>(l) * stride() + index[l] - origin[l]); },
                 lt ? "addr <- &sl.mass[...]" : "addr <- &sh.mass[...]");
    warp.load_shared(*mass, smem, sim::PerLane<std::uint64_t>(addr));
  }
};

struct ChunkedStats {
  int rounds = 0;                  // copyChunks + packUntilChunkEnd rounds
  std::uint64_t chunk_loads = 0;   // chunks copied from global memory
};

// Lane l packs from[l] .. to[l] - 1 with chunks of C items.
inline void pack_chunked_on_warp(sim::Warp& warp, sim::GlobalMemory& mem, sim::SharedMemory& smem, const DeviceLists& d,
                                 const DevicePrefixSums& sums, u128 cap, const std::vector<Split>& from, const std::vector<std::size_t>& to,
                                 std::uint64_t chunk, const sim::DeviceArray<TableRow>& rows, ChunkedStats* stats = nullptr) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const int w = warp.width();
  const auto all = warp.lanes();
  const std::size_t span = static_cast<std::size_t>(w) * (chunk + 1);
  ChunkLists lists{mem, smem, chunk, smem.allocate<std::uint32_t>(span), smem.allocate<std::uint32_t>(span), smem.allocate<u128>(span),
                   smem.allocate<u128>(span)};
  auto s = start_pack(warp, mem, sums, cap, from, to);
  // Empty chunks: every lane's first round loads both.
  warp.compute(Op::Other, lists.light_origin, [&](int l) { return s.i[l] + chunk; }, "l origin <- i + C (empty)");
  warp.compute(Op::Other, lists.heavy_origin, [&](int l) { return s.j[l] + chunk; }, "h origin <- j + C (empty)");
  Reg<bool> pending("pending"), any("any pending"), light_out("l ran out"), heavy_out("h ran out"), load_l("load l"), load_h("load h");
  Reg<bool> flag("flag");
  Reg<std::uint64_t> origin("origin");
  ChunkedStats st;
  for (;;) {
    warp.compute(Op::Compare, pending, [&](int l) { return s.step[l] < s.end[l]; }, "pending <- step < end");
    warp.any_sync(any, all, pending);
    if (!any[0]) break;  // uniform
    ++st.rounds;
    // copyChunks: which of each lane's chunks ran out, and which are more than half used.
    warp.compute(Op::Compare, light_out, [&](int l) {
      return pending[l] && s.i[l] < d.lights && !lists.has(l, List::Light, s.i[l]);
    }, "l ran out <- i not in the chunk");
    warp.compute(Op::Compare, heavy_out, [&](int l) {
      return pending[l] && ((s.j[l] < d.heavies && !lists.has(l, List::Heavy, s.j[l])) ||
                            (s.j[l] + 1 < d.heavies && !lists.has(l, List::Heavy, s.j[l] + 1)));
    }, "h ran out <- j or j + 1 not in the chunk");
    warp.compute(Op::Compare, load_l, [&](int l) {
      return light_out[l] || (heavy_out[l] && s.i[l] < d.lights && 2 * (s.i[l] - lists.light_origin[l]) > chunk);
    }, "load l <- ran out, or h did and l is half used");
    warp.compute(Op::Compare, load_h, [&](int l) {
      return heavy_out[l] || (light_out[l] && s.j[l] < d.heavies && 2 * (s.j[l] - lists.heavy_origin[l]) > chunk);
    }, "load h <- ran out, or l did and h is half used");
    for (int q = 0; q < w; ++q) {  // the warp copies lane q's chunks, W items at a time
      for (const bool lt : {true, false}) {
        warp.shfl_sync(flag, all, lt ? load_l : load_h, q);
        if (!flag[0]) continue;  // uniform
        warp.shfl_sync(origin, all, lt ? s.i : s.j, q);
        const std::uint64_t first = origin[0], size = lt ? d.lights : d.heavies;
        const std::uint64_t last = std::min<std::uint64_t>(first + chunk, size);
        const std::uint64_t at = static_cast<std::uint64_t>(q) * lists.stride();
        SharedLists::copy_range(warp, mem, smem, lt ? d.light : d.heavy, lt ? lists.light : lists.heavy, first, last, at);
        SharedLists::copy_range(warp, mem, smem, lt ? d.light_mass : d.heavy_mass, lt ? lists.light_mass : lists.heavy_mass, first, last, at);
        ++st.chunk_loads;
      }
    }
    warp.compute(Op::Other, lists.light_origin, [&](int l) { return load_l[l] ? s.i[l] : lists.light_origin[l]; }, "l origin <- i if loaded");
    warp.compute(Op::Other, lists.heavy_origin, [&](int l) { return load_h[l] ? s.j[l] : lists.heavy_origin[l]; }, "h origin <- j if loaded");
    warp.syncwarp(all);
    // packUntilChunkEnd.
    pack_steps(warp, mem, lists, s, d.lights, d.heavies, cap, rows);
    warp.syncwarp(all);  // __syncthreads() before the chunks are overwritten
  }
  if (stats) *stats = st;
}

}  // namespace warpsim::oracle::alias
