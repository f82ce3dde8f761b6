// Sectioned sampling on the warp model (seed 001, Sec. 3.4.4, shared-memory
// sectioned sampling): a warp a section. The warp finds its section's share
// of the n draws and where they go without talking to the other warps: it
// walks the recursion of sectioned.hpp from the root to its section, drawing
// each node's binomial split (the same uniform per node, so every warp on the
// path draws the same split), and adds what went left wherever it turns
// right. It copies the section's rows (16 bytes each) to shared memory,
// coalesced, and then makes its draws from there, W at a time, storing the
// indices coalesced. The output equals sample_sectioned(): the same draws,
// grouped by section.
#pragma once

#include <vector>

#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/sectioned.hpp"
#include "sim/shared_memory.hpp"

namespace warpsim::oracle::alias {

// A section's place in the recursion: its rows and the path to it.
struct SectionNode {
  std::size_t first_row = 0, rows = 0;
};

// The sections of at most `section_rows` rows, in row order (their shares
// are drawn by the warps).
inline std::vector<SectionNode> section_nodes(std::size_t rows, std::size_t section_rows) {
  std::vector<SectionNode> out;
  std::vector<SectionNode> stack{{0, rows}};
  while (!stack.empty()) {
    const auto x = stack.back();
    stack.pop_back();
    if (x.rows <= section_rows || x.rows < 2) {
      out.push_back(x);
      continue;
    }
    const std::size_t left = x.rows / 2;
    stack.push_back({x.first_row + left, x.rows - left});
    stack.push_back({x.first_row, left});
  }
  return out;
}

struct SectionedRun {
  std::vector<std::uint32_t> draws;
  sim::Counters counters;
};

// n draws from the table at `t` (uploaded), sections of at most section_rows.
inline SectionedRun sample_sectioned_on_model(const Table& table, std::size_t section_rows, std::uint64_t n, std::uint64_t seed,
                                              int width = 32) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  sim::GlobalMemory mem;
  const auto dt = upload_table(mem, table);
  const auto out = mem.allocate<std::uint32_t>(std::max<std::uint64_t>(n, 1));
  SectionedRun run;
  for (const auto& node : section_nodes(table.size(), section_rows)) {
    sim::Warp warp({.width = width});
    const auto lanes = static_cast<std::uint64_t>(width);
    // The share and the offset: the path from the root, the same in every lane.
    Reg<std::uint64_t> draws("draws"), offset("offset"), first("node first"), rows("node rows"), id("node id"), to_left("to left");
    Reg<bool> descend("above the section");
    warp.mov(draws, PerLane<std::uint64_t>(n));
    warp.mov(offset, PerLane<std::uint64_t>(0));
    warp.mov(first, PerLane<std::uint64_t>(0));
    warp.mov(rows, PerLane<std::uint64_t>(table.size()));
    warp.mov(id, PerLane<std::uint64_t>(1));
    warp.loop_while(
        descend,
        [&] {
          warp.compute(Op::Compare, descend, [&](int l) { return rows[l] > section_rows && rows[l] >= 2; }, "rows > S");
        },
        [&] {
          warp.compute(Op::Other, to_left, [&](int l) {
            const std::uint64_t left = rows[l] / 2;
            return binomial_split(draws[l], static_cast<double>(left) / static_cast<double>(rows[l]), seed, id[l]);
          }, "to left <- Binomial(draws, left rows / rows), node id's uniform");
          Reg<bool> go_left("go left");
          warp.compute(Op::Compare, go_left, [&](int l) { return node.first_row < first[l] + rows[l] / 2; }, "section in the left half");
          warp.compute(Op::Other, offset, [&](int l) { return go_left[l] ? offset[l] : offset[l] + to_left[l]; }, "offset += to left (right turn)");
          warp.compute(Op::Other, draws, [&](int l) { return go_left[l] ? to_left[l] : draws[l] - to_left[l]; }, "draws <- the half's");
          warp.compute(Op::Other, first, [&](int l) { return go_left[l] ? first[l] : first[l] + rows[l] / 2; }, "first <- the half's");
          warp.compute(Op::Other, rows, [&](int l) { return go_left[l] ? rows[l] / 2 : rows[l] - rows[l] / 2; }, "rows <- the half's");
          warp.compute(Op::Other, id, [&](int l) { return go_left[l] ? 2 * id[l] : 2 * id[l] + 1; }, "id <- 2 id (+ 1)");
        });
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
    Reg<std::uint64_t> hi("hi"), lo("lo");
    for (std::uint64_t base = 0; base < draws[0]; base += lanes) {  // uniform: every lane holds the share
      warp.compute(Op::Other, d, [&](int l) { return offset[l] + base + static_cast<std::uint64_t>(l); }, "d <- offset + base + lane");
      warp.compute(Op::Compare, in, [&](int l) { return base + static_cast<std::uint64_t>(l) < draws[l]; }, "in <- draw < share");
      warp.if_then(in, [&] {
        warp.compute(Op::Other, hi, [&](int l) { return rng::philox_bits128(seed, (std::uint64_t{1} << 63) + d[l], 0).hi; }, "hi <- philox(2^63 + d).hi");
        warp.compute(Op::Other, lo, [&](int l) { return rng::philox_bits128(seed, (std::uint64_t{1} << 63) + d[l], 0).lo; }, "lo <- philox(2^63 + d).lo");
        warp.compute(Op::Other, k, [&](int l) { return static_cast<std::uint64_t>((static_cast<u128>(hi[l]) * node.rows) >> 64); }, "k <- hi rows >> 64");
        warp.compute(Op::Other, addr, [&](int l) { return srows.at(k[l]); }, "addr <- &S[k]");
        warp.load_shared(row, smem, PerLane<std::uint64_t>(addr));
        warp.compute(Op::Select, item, [&](int l) {
          return lo[l] < row[l].threshold ? static_cast<std::uint32_t>(node.first_row + k[l]) : row[l].alias;
        }, "item <- lo < threshold ? first + k : alias");
        warp.compute(Op::Other, addr, [&](int l) { return out.at(d[l]); }, "addr <- &out[d]");
        warp.store_global(mem, PerLane<std::uint64_t>(addr), item);
      });
    }
    run.counters += warp.counters();
  }
  run.draws = mem.download(out);
  run.draws.resize(static_cast<std::size_t>(n));
  return run;
}

}  // namespace warpsim::oracle::alias
