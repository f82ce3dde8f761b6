// ld.global / st.global: a warp-wide access to global memory, costed in
// 32-byte sectors and cache lines (sim/coalescing.hpp). Two lanes storing
// different values to one address is undefined (CUDA does not say which wins).
#pragma once

#include "sim/coalescing.hpp"
#include "sim/counters.hpp"
#include "sim/global_memory.hpp"
#include "sim/insn/access.hpp"
#include "sim/op_kind.hpp"
#include "sim/value_format.hpp"

namespace warpsim::sim::insn {

inline void count_global(Counters& c, const GlobalAccessCost& cost) {
  ++c.global_requests;
  c.global_sectors += static_cast<std::uint64_t>(cost.sectors);
  c.global_lines += static_cast<std::uint64_t>(cost.lines);
  c.global_bytes += static_cast<std::uint64_t>(cost.bytes);
}

inline std::string global_note(const GlobalAccessCost& cost) {
  return std::to_string(cost.sectors) + " sectors, " + std::to_string(cost.lines) + " lines";
}

template <class T>
struct LoadGlobal {
  static constexpr const char* kName = "load.global";
  static constexpr bool kLoads = true;
  Reg<T>& to;
  const GlobalMemory& mem;
  PerLane<std::uint64_t> address;

  Op op(LaneMask) const { return Op::LoadGlobal; }
  GlobalAccessCost check(AccessCheck& c) const {
    return global_access_cost(c.addresses(kName, mem, address, sizeof(T)), sizeof(T), c.line_bytes);
  }
  void count(Counters& c, const GlobalAccessCost& cost) const {
    count_global(c, cost);
    c.global_load_sectors += static_cast<std::uint64_t>(cost.sectors);
  }
  Reg<T>& dst() const { return to; }
  T value(int l) const { return mem.template load<T>(address(l)); }
  std::pair<std::string, std::string> describe(const GlobalAccessCost& cost) const {
    return {std::string(kName) + " " + to.name(), global_note(cost)};
  }
};

template <class T>
struct StoreGlobal {
  static constexpr const char* kName = "store.global";
  static constexpr bool kLoads = false;
  GlobalMemory& mem;
  PerLane<std::uint64_t> address;
  const Reg<T>& value;

  Op op(LaneMask) const { return Op::StoreGlobal; }
  GlobalAccessCost check(AccessCheck& c) const {
    const auto addrs = c.addresses(kName, mem, address, sizeof(T));
    for_each_lane(c.active, [&](int l) {
      for_each_lane(c.active & ((LaneMask{1} << l) - 1), [&](int k) {
        if (address(k) == address(l) && format_value(value[k]) != format_value(value[l])) {
          c.fault(l, Undefined::ConflictingStores, kName,
                  "lanes " + std::to_string(k) + " and " + std::to_string(l) + " store different values to address " +
                      std::to_string(address(l)));
        }
      });
    });
    return global_access_cost(addrs, sizeof(T), c.line_bytes);
  }
  void count(Counters& c, const GlobalAccessCost& cost) const { count_global(c, cost); }
  void store(int l, std::uint64_t) const { mem.template store<T>(address(l), value[l]); }
  std::pair<std::string, std::string> describe(const GlobalAccessCost& cost) const {
    return {std::string(kName) + " " + value.name(), global_note(cost)};
  }
};

}  // namespace warpsim::sim::insn
