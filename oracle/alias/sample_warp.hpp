// Sampling from an alias table on the warp model (seed 001, Sec. 2.4 and
// 3.4.1, the baseline): each lane makes one draw -- its row, the row's
// threshold, and the alias only where the draw falls past it -- against a
// table stored in the model's global memory as 16-byte rows {threshold: u64,
// alias: u32, 4 bytes of padding} (table.hpp: the threshold is floor(keep
// 2^64 / U), from which keep comes back exactly), so the model counts what
// each draw reads.
//
// Draw d takes the 128 bits (hi, lo) of rng/'s Philox block (seed, stream d,
// draw 0): row floor(hi N / 2^64), item if lo < threshold, else the alias
// (table.hpp, sample_bits). The host form (`draw`) and the model's give the
// same index for every d; so do the kernels (gpu/alias_table.cu).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "oracle/alias/table.hpp"
#include "rng/philox_uniform.hpp"
#include "sim/global_memory.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle::alias {

// A row as sampling reads it: 16 bytes, one access (the kernels' gpu::AliasRow).
struct alignas(16) SampleRow {
  std::uint64_t threshold = 0;
  std::uint32_t alias = 0, pad = 0;
  std::string to_string() const { return std::to_string(threshold) + "|" + std::to_string(alias); }
};
inline constexpr std::size_t kRowBytes = sizeof(SampleRow);

// Draw d on the host: the definition the model and the kernels equal.
inline std::uint32_t draw(const Table& t, std::uint64_t seed, std::uint64_t d) {
  const auto x = rng::philox_bits128(seed, d, 0);
  return sample_bits(t, x.hi, x.lo);
}

struct DeviceTable {
  sim::DeviceArray<std::byte> rows;  // N rows of kRowBytes
  std::uint64_t capacity = 0;
  std::size_t n = 0;
  std::uint64_t threshold_address(std::uint64_t k) const { return rows.address + k * kRowBytes; }
  std::uint64_t alias_address(std::uint64_t k) const { return rows.address + k * kRowBytes + 8; }
};

inline DeviceTable upload_table(sim::GlobalMemory& mem, const Table& t) {
  const auto rows = mem.allocate<SampleRow>(t.size());
  std::vector<SampleRow> host(t.size());
  for (std::size_t k = 0; k < t.size(); ++k) host[k] = {threshold(t.keep[k], t.capacity), sampled_alias(t, k), 0};
  mem.upload<SampleRow>(rows, host);
  return {{rows.address, t.size() * kRowBytes}, t.capacity, t.size()};
}

// Told, for step-by-step views, what each lane's draw read: its row k, the
// row's threshold, whether the draw fell past it (lo >= threshold), the item.
using SampleObserver = std::function<void(int lane, std::uint64_t row, std::uint64_t threshold, std::uint64_t lo, std::uint32_t item)>;

// Draws first .. first + W - 1, lane l making draw first + l.
inline std::vector<std::uint32_t> sample_warp(sim::Warp& warp, const sim::GlobalMemory& mem, const DeviceTable& t, std::uint64_t seed,
                                              std::uint64_t first, const SampleObserver& observe = {}) {
  using sim::Op;
  using sim::PerLane;
  using sim::Reg;
  const int w = warp.width();
  Reg<std::uint64_t> hi("hi"), lo("lo"), row("k"), th("threshold"), addr("addr");
  Reg<std::uint32_t> item("item"), other("alias");
  Reg<bool> past("past");
  // The 128 bits: lane-local arithmetic (Philox).
  warp.compute(Op::Other, hi, [&](int l) { return rng::philox_bits128(seed, first + static_cast<std::uint64_t>(l), 0).hi; }, "hi <- philox(d).hi");
  warp.compute(Op::Other, lo, [&](int l) { return rng::philox_bits128(seed, first + static_cast<std::uint64_t>(l), 0).lo; }, "lo <- philox(d).lo");
  warp.compute(Op::Other, row, [&](int l) { return static_cast<std::uint64_t>((static_cast<u128>(hi[l]) * t.n) >> 64); }, "k <- hi N >> 64");
  warp.compute(Op::Other, addr, [&](int l) { return t.threshold_address(row[l]); }, "addr <- &T[k].threshold");
  warp.load_global(th, mem, PerLane<std::uint64_t>(addr));
  warp.compute(Op::Compare, past, [&](int l) { return lo[l] >= th[l]; }, "past <- lo >= threshold");
  warp.compute(Op::Other, item, [&](int l) { return static_cast<std::uint32_t>(row[l]); }, "item <- k");
  warp.if_then(past, [&] {
    warp.compute(Op::Other, addr, [&](int l) { return t.alias_address(row[l]); }, "addr <- &T[k].alias");
    warp.load_global(other, mem, PerLane<std::uint64_t>(addr));
    warp.mov(item, sim::PerLane<std::uint32_t>(other));
  });
  std::vector<std::uint32_t> out(static_cast<std::size_t>(w));
  for (int l = 0; l < w; ++l) out[static_cast<std::size_t>(l)] = item[l];
  if (observe)
    for (int l = 0; l < w; ++l) observe(l, row[l], th[l], lo[l], item[l]);
  return out;
}

}  // namespace warpsim::oracle::alias
