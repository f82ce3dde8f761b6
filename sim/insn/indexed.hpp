// A register array indexed per lane. A uniform index is an ordinary move; a
// lane-dependent one is legal in the model but not on NVIDIA's register file
// (a compiler would move the array to local memory): counted as
// Op::IndexedRegister and flagged.
#pragma once

#include <bit>

#include "sim/counters.hpp"
#include "sim/insn/access.hpp"
#include "sim/op_kind.hpp"

namespace warpsim::sim::insn {

inline bool uniform_index(LaneMask active, PerLane<int> index) {
  bool uniform = true;
  const int first = active ? index(std::countr_zero(active)) : 0;
  for_each_lane(active, [&](int l) { uniform = uniform && index(l) == first; });
  return uniform;
}

template <class T>
struct ReadIndexed {
  static constexpr const char* kName = "indexed_register";
  static constexpr bool kLoads = true;
  Reg<T>& to;
  const RegArray<T>& arr;
  PerLane<int> index;

  Op op(LaneMask active) const { return uniform_index(active, index) ? Op::Move : Op::IndexedRegister; }
  NoCost check(AccessCheck& c) const {
    check_index(c, kName, arr.name(), static_cast<std::size_t>(arr.size()), index);
    if (!uniform_index(c.active, index)) c.flags.push_back("lane-dependent index into register array " + arr.name() + " (read)");
    return {};
  }
  void count(Counters&, NoCost) const {}
  Reg<T>& dst() const { return to; }
  T value(int l) const { return arr[index(l)][l]; }
  std::pair<std::string, std::string> describe(NoCost) const { return {to.name() + " <- " + arr.name() + "[per-lane]", {}}; }
};

template <class T>
struct WriteIndexed {
  static constexpr const char* kName = "indexed_register";
  static constexpr bool kLoads = false;
  RegArray<T>& arr;
  PerLane<int> index;
  const Reg<T>& value;

  Op op(LaneMask active) const { return uniform_index(active, index) ? Op::Move : Op::IndexedRegister; }
  NoCost check(AccessCheck& c) const {
    check_index(c, kName, arr.name(), static_cast<std::size_t>(arr.size()), index);
    if (!uniform_index(c.active, index)) c.flags.push_back("lane-dependent index into register array " + arr.name() + " (write)");
    return {};
  }
  void count(Counters&, NoCost) const {}
  void store(int l, std::uint64_t) const { arr[index(l)][l] = value[l]; }
  std::pair<std::string, std::string> describe(NoCost) const { return {arr.name() + "[per-lane] <- " + value.name(), {}}; }
};

}  // namespace warpsim::sim::insn
