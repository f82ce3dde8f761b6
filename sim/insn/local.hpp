// ld.local / st.local: each lane's own array in local memory, indexed per
// lane (no coalescing cost is modelled).
#pragma once

#include "sim/counters.hpp"
#include "sim/insn/access.hpp"
#include "sim/local_memory.hpp"
#include "sim/op_kind.hpp"

namespace warpsim::sim::insn {

template <class T>
struct LoadLocal {
  static constexpr const char* kName = "load.local";
  static constexpr bool kLoads = true;
  Reg<T>& to;
  const LocalArray<T>& arr;
  PerLane<int> index;

  Op op(LaneMask) const { return Op::LoadLocal; }
  NoCost check(AccessCheck& c) const {
    check_index(c, kName, arr.name(), arr.size(), index);
    return {};
  }
  void count(Counters&, NoCost) const {}
  Reg<T>& dst() const { return to; }
  T value(int l) const { return arr.at(l, static_cast<std::size_t>(index(l))); }
  std::pair<std::string, std::string> describe(NoCost) const { return {std::string(kName) + " " + to.name() + " <- " + arr.name(), {}}; }
};

template <class T>
struct StoreLocal {
  static constexpr const char* kName = "store.local";
  static constexpr bool kLoads = false;
  LocalArray<T>& arr;
  PerLane<int> index;
  const Reg<T>& value;

  Op op(LaneMask) const { return Op::StoreLocal; }
  NoCost check(AccessCheck& c) const {
    check_index(c, kName, arr.name(), arr.size(), index);
    return {};
  }
  void count(Counters&, NoCost) const {}
  void store(int l, std::uint64_t) const { arr.at(l, static_cast<std::size_t>(index(l))) = value[l]; }
  std::pair<std::string, std::string> describe(NoCost) const { return {std::string(kName) + " " + arr.name() + " <- " + value.name(), {}}; }
};

}  // namespace warpsim::sim::insn
