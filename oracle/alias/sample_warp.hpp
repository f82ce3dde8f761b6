// Sampling from an alias table on the warp model (seed 001, Sec. 2.4 and
// 3.4.1, the baseline): each lane makes one draw -- its row, the row's keep,
// and the alias only where the draw falls past the keep -- against a table
// stored in the model's global memory as 16-byte rows {keep: u64, alias: u32,
// 4 bytes of padding}, so the model counts what each draw reads.
//
// Draw d takes r = floor(bits * N U / 2^128) with bits the 128 bits of
// rng/'s Philox block (seed, stream d, draw 0): uniform on [0, N U) within a
// relative bias of N U / 2^128 < 2^-34 (table.hpp, mul_high). The host form
// (`draw`) and the model's give the same index for every d.
#pragma once

#include <cstdint>
#include <vector>

#include "oracle/alias/table.hpp"
#include "rng/philox_uniform.hpp"
#include "sim/global_memory.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle::alias {

inline constexpr std::size_t kRowBytes = 16;

// The 128 random bits of draw d, most significant word first.
inline u128 draw_bits(std::uint64_t seed, std::uint64_t d) {
  const auto x = rng::philox_bits128(seed, d, 0);
  return (static_cast<u128>(x.hi) << 64) | x.lo;
}

// Draw d on the host: the definition the model and the kernels equal.
inline std::uint32_t draw(const Table& t, std::uint64_t seed, std::uint64_t d) {
  return sample(t, mul_high(draw_bits(seed, d), static_cast<u128>(t.size()) * t.capacity));
}

struct DeviceTable {
  sim::DeviceArray<std::byte> rows;  // N rows of kRowBytes
  std::uint64_t capacity = 0;
  std::size_t n = 0;
  std::uint64_t keep_address(std::uint64_t k) const { return rows.address + k * kRowBytes; }
  std::uint64_t alias_address(std::uint64_t k) const { return rows.address + k * kRowBytes + 8; }
};

inline DeviceTable upload_table(sim::GlobalMemory& mem, const Table& t) {
  DeviceTable d{mem.allocate<std::byte>(t.size() * kRowBytes), t.capacity, t.size()};
  for (std::size_t k = 0; k < t.size(); ++k) {
    mem.write_bytes(d.keep_address(k), &t.keep[k], 8);
    mem.write_bytes(d.alias_address(k), &t.alias[k], 4);
  }
  return d;
}

// Draws first .. first + W - 1, lane l making draw first + l.
inline std::vector<std::uint32_t> sample_warp(sim::Warp& warp, const sim::GlobalMemory& mem, const DeviceTable& t, std::uint64_t seed,
                                              std::uint64_t first) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const int w = warp.width();
  const u128 span = static_cast<u128>(t.n) * t.capacity;
  Reg<std::uint64_t> row("k"), rem("rem"), keep("keep"), addr("addr");
  Reg<std::uint32_t> item("item"), other("alias");
  Reg<bool> past("past");
  // r, its row and remainder: lane-local arithmetic (Philox, a 128-bit multiply-high, a divide).
  std::vector<u128> r(static_cast<std::size_t>(w));
  for (int l = 0; l < w; ++l) r[static_cast<std::size_t>(l)] = mul_high(draw_bits(seed, first + static_cast<std::uint64_t>(l)), span);
  warp.compute(Op::Other, row, [&](int l) { return static_cast<std::uint64_t>(r[static_cast<std::size_t>(l)] / t.capacity); }, "k <- r / U");
  warp.compute(Op::Other, rem, [&](int l) { return static_cast<std::uint64_t>(r[static_cast<std::size_t>(l)] % t.capacity); }, "rem <- r mod U");
  warp.compute(Op::Other, addr, [&](int l) { return t.keep_address(row[l]); }, "addr <- &T[k].keep");
  warp.load_global(keep, mem, PerLane<std::uint64_t>(addr));
  warp.compute(Op::Compare, past, [&](int l) { return rem[l] >= keep[l]; }, "past <- rem >= keep");
  warp.compute(Op::Other, item, [&](int l) { return static_cast<std::uint32_t>(row[l]); }, "item <- k");
  warp.if_then(past, [&] {
    warp.compute(Op::Other, addr, [&](int l) { return t.alias_address(row[l]); }, "addr <- &T[k].alias");
    warp.load_global(other, mem, PerLane<std::uint64_t>(addr));
    warp.mov(item, sim::PerLane<std::uint32_t>(other));
  });
  std::vector<std::uint32_t> out(static_cast<std::size_t>(w));
  for (int l = 0; l < w; ++l) out[static_cast<std::size_t>(l)] = item[l];
  return out;
}

}  // namespace warpsim::oracle::alias
