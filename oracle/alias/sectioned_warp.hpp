// Sectioned sampling on the warp model (seed 001, Sec. 3.4.4, shared-memory
// sectioned sampling): a warp a section. The warp finds its section's share
// of the n draws and where they go without talking to the other warps: it
// walks the tree of sectioned.hpp from the root down to its section, D
// levels, drawing each node's binomial split (the node's own uniforms, so
// every warp on the path draws the same split), and adds what went left
// wherever it turns right. It copies the section's rows (16 bytes each) to shared memory,
// coalesced, and then makes its draws from there, W at a time (each from
// half a Philox block, rng/half_block.hpp), storing the indices coalesced. The output equals sample_sectioned(): the same draws,
// grouped by section.
#pragma once

#include <functional>
#include <vector>

#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/sectioned.hpp"
#include "sim/shared_memory.hpp"

namespace warpsim::oracle::alias {

// A section: its rows.
struct SectionNode {
  std::size_t first_row = 0, rows = 0;
};

// The 2^D sections of sectioned.hpp's tree, in row order.
inline std::vector<SectionNode> section_nodes(std::size_t rows, std::size_t section_rows) {
  const int depth = section_depth(rows, section_rows);
  std::vector<SectionNode> out(std::size_t{1} << depth);
  for (std::uint64_t j = 0; j < out.size(); ++j) {
    const std::size_t lo = node_first_row(rows, depth, j);
    out[j] = {lo, node_first_row(rows, depth, j + 1) - lo};
  }
  return out;
}

struct SectionedRun {
  std::vector<std::uint32_t> draws;
  sim::Counters counters;
};

// Told, for step-by-step views: each split a section's warp draws on its way
// down (the section j, the node (depth, i), the node's draws, how many go
// left), and each draw the warp makes (j, its place in the output, the item).
struct SectionedObserver {
  std::function<void(std::uint64_t j, int depth, std::uint64_t i, std::uint64_t draws, std::uint64_t to_left)> split;
  std::function<void(std::uint64_t j, std::uint64_t d, std::uint32_t item)> draw;
};

// The batch of n draws first_draw .. first_draw + n - 1 from `table`,
// sections of at most section_rows rows.
inline SectionedRun sample_sectioned_on_model(const Table& table, std::size_t section_rows, std::uint64_t n, std::uint64_t seed,
                                              int width = 32, std::uint64_t first_draw = 0, const SectionedObserver& observe = {}) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  sim::GlobalMemory mem;
  const auto dt = upload_table(mem, table);
  const auto out = mem.allocate<std::uint32_t>(std::max<std::uint64_t>(n, 1));
  SectionedRun run;
  const int depth = section_depth(table.size(), section_rows);
  const auto nodes = section_nodes(table.size(), section_rows);
  for (std::uint64_t j = 0; j < nodes.size(); ++j) {
    const auto& node = nodes[j];
    sim::Warp warp({.width = width});
    const auto lanes = static_cast<std::uint64_t>(width);
    // The share and the offset: the path from the root, the same in every lane.
    Reg<std::uint64_t> draws("draws"), offset("offset"), level("d"), i("i"), node_lo("lo"), node_mid("mid"), node_hi("hi"), to_left("to left");
    Reg<bool> descend("above the section");
    warp.mov(draws, PerLane<std::uint64_t>(n));
    warp.mov(offset, PerLane<std::uint64_t>(0));
    warp.mov(level, PerLane<std::uint64_t>(0));
    warp.loop_while(
        descend,
        [&] { warp.compute(Op::Compare, descend, [&](int) { return level[0] < static_cast<std::uint64_t>(depth); }, "d < D"); },
        [&] {
          warp.compute(Op::Other, i, [&](int l) { return j >> (static_cast<std::uint64_t>(depth) - level[l]); }, "i <- j >> (D - d)");
          warp.compute(Op::Other, node_lo, [&](int l) { return static_cast<std::uint64_t>(node_first_row(table.size(), static_cast<int>(level[l]), i[l])); },
                       "lo <- i N >> d");
          warp.compute(Op::Other, node_mid, [&](int l) {
            return static_cast<std::uint64_t>(node_first_row(table.size(), static_cast<int>(level[l]) + 1, 2 * i[l] + 1));
          }, "mid <- (2 i + 1) N >> (d + 1)");
          warp.compute(Op::Other, node_hi, [&](int l) {
            return static_cast<std::uint64_t>(node_first_row(table.size(), static_cast<int>(level[l]), i[l] + 1));
          }, "hi <- (i + 1) N >> d");
          warp.compute(Op::Other, to_left, [&](int l) {
            if (node_hi[l] == node_lo[l]) return std::uint64_t{0};
            const auto id = static_cast<std::uint32_t>((std::uint64_t{1} << level[l]) + i[l]);
            return rng::section_split(seed, first_draw, id, draws[l], node_mid[l] - node_lo[l], node_hi[l] - node_lo[l]);
          }, "to left <- Binomial(draws, (mid - lo) / (hi - lo)), node 2^d + i's uniforms");
          Reg<bool> go_left("go left");
          warp.compute(Op::Compare, go_left, [&](int l) { return ((j >> (static_cast<std::uint64_t>(depth) - level[l] - 1)) & 1) == 0; },
                       "bit D - d - 1 of j is 0");
          if (observe.split) observe.split(j, static_cast<int>(level[0]), i[0], draws[0], to_left[0]);
          warp.compute(Op::Other, offset, [&](int l) { return go_left[l] ? offset[l] : offset[l] + to_left[l]; }, "offset += to left (right turn)");
          warp.compute(Op::Other, draws, [&](int l) { return go_left[l] ? to_left[l] : draws[l] - to_left[l]; }, "draws <- the child's");
          warp.compute(Op::Other, level, [&](int l) { return level[l] + 1; }, "d <- d + 1");
        });
    if (node.rows == 0) continue;  // an empty section (S = 1 only) has no draws
    // The section's rows to shared memory, a 16-byte row a lane.
    sim::SharedMemory smem(node.rows * kRowBytes + 64);
    const auto srows = smem.allocate<SampleRow>(node.rows);
    Reg<std::uint64_t> e("e"), addr("addr"), k("k"), d("d");
    Reg<SampleRow> row("row");
    Reg<bool> in("in");
    for (std::uint64_t base = 0; base < node.rows; base += lanes) {
      warp.compute(Op::Other, e, [&](int l) { return base + static_cast<std::uint64_t>(l); }, "e <- base + lane");
      warp.compute(Op::Compare, in, [&](int l) { return e[l] < node.rows; }, "e < rows");
      warp.if_then(in, [&] {
        warp.compute(Op::Other, addr, [&](int l) { return dt.threshold_address(node.first_row + e[l]); }, "addr <- &T[first + e]");
        warp.load_global(row, mem, PerLane<std::uint64_t>(addr));
        warp.compute(Op::Other, addr, [&](int l) { return srows.at(e[l]); }, "addr <- &S[e]");
        warp.store_shared(smem, PerLane<std::uint64_t>(addr), row);
      });
    }
    warp.syncwarp(warp.lanes());
    // The draws: lane l makes draw offset + d + l of the output.
    Reg<std::uint32_t> item("item");
    // Each lane's half Philox block (rng/half_block.hpp): lane-local state.
    std::vector<rng::HalfBlock> bits;
    for (std::uint64_t base = 0; base < draws[0]; base += lanes) {  // uniform: every lane holds the share
      warp.compute(Op::Other, d, [&](int l) { return offset[l] + base + static_cast<std::uint64_t>(l); }, "d <- offset + base + lane");
      warp.compute(Op::Compare, in, [&](int l) { return base + static_cast<std::uint64_t>(l) < draws[l]; }, "in <- draw < share");
      warp.if_then(in, [&] {
        bits.clear();
        for (int l = 0; l < width; ++l) bits.emplace_back(seed, kSectionedDrawStreams, first_draw + d[l]);
        warp.compute(Op::Other, k, [&](int l) {
          return static_cast<std::uint64_t>(rng::index_below(bits[static_cast<std::size_t>(l)].first(), static_cast<std::uint32_t>(node.rows),
                                                             bits[static_cast<std::size_t>(l)]));
        }, "k <- index_below(half block of 2^63 + (first + d) / 2, rows)");
        warp.compute(Op::Other, addr, [&](int l) { return srows.at(k[l]); }, "addr <- &S[k]");
        warp.load_shared(row, smem, PerLane<std::uint64_t>(addr));
        warp.compute(Op::Select, item, [&](int l) {
          return rng::bits_below(bits[static_cast<std::size_t>(l)].second(), row[l].threshold, bits[static_cast<std::size_t>(l)])
                     ? static_cast<std::uint32_t>(node.first_row + k[l])
                     : row[l].alias;
        }, "item <- bits_below(second word, threshold) ? first + k : alias");
        warp.compute(Op::Other, addr, [&](int l) { return out.at(d[l]); }, "addr <- &out[d]");
        warp.store_global(mem, PerLane<std::uint64_t>(addr), item);
        if (observe.draw)
          for (int l = 0; l < width; ++l)
            if (in[l]) observe.draw(j, d[l], item[l]);
      });
    }
    run.counters += warp.counters();
  }
  run.draws = mem.download(out);
  run.draws.resize(static_cast<std::size_t>(n));
  return run;
}

}  // namespace warpsim::oracle::alias
