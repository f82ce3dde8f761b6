// ld.shared / st.shared: a warp-wide access to shared memory, costed in
// wavefronts over its 32 banks (sim/coalescing.hpp). A lane may read a word
// another lane wrote only after a __syncwarp (UnsyncedSharedRead).
#pragma once

#include "sim/coalescing.hpp"
#include "sim/counters.hpp"
#include "sim/insn/access.hpp"
#include "sim/op_kind.hpp"
#include "sim/shared_memory.hpp"

namespace warpsim::sim::insn {

inline void count_shared(Counters& c, const SharedAccessCost& cost) {
  ++c.shared_requests;
  c.shared_wavefronts += static_cast<std::uint64_t>(cost.wavefronts);
  c.shared_bank_conflicts += static_cast<std::uint64_t>(cost.conflicts);
}

inline std::string shared_note(const SharedAccessCost& cost) {
  return std::to_string(cost.wavefronts) + " wavefronts, " + std::to_string(cost.conflicts) + " bank conflicts";
}

template <class T>
struct LoadShared {
  static constexpr const char* kName = "load.shared";
  static constexpr bool kLoads = true;
  Reg<T>& to;
  const SharedMemory& mem;
  PerLane<std::uint64_t> address;

  Op op(LaneMask) const { return Op::LoadShared; }
  SharedAccessCost check(AccessCheck& c) const {
    const auto addrs = c.addresses(kName, mem, address, sizeof(T));
    for_each_lane(c.active, [&](int l) {
      if (const auto* w = mem.unsynced_write(address(l), sizeof(T), l, c.sync_epoch)) {
        c.fault(l, Undefined::UnsyncedSharedRead, kName,
                "reads shared byte " + std::to_string(address(l)) + ", which lane " + std::to_string(w->lane) + " wrote at step " +
                    std::to_string(w->step) + " with no __syncwarp since");
      }
    });
    return shared_access_cost(addrs, sizeof(T));
  }
  void count(Counters& c, const SharedAccessCost& cost) const { count_shared(c, cost); }
  Reg<T>& dst() const { return to; }
  T value(int l) const { return mem.template load<T>(address(l)); }
  std::pair<std::string, std::string> describe(const SharedAccessCost& cost) const {
    return {std::string(kName) + " " + to.name(), shared_note(cost)};
  }
};

template <class T>
struct StoreShared {
  static constexpr const char* kName = "store.shared";
  static constexpr bool kLoads = false;
  SharedMemory& mem;
  PerLane<std::uint64_t> address;
  const Reg<T>& value;
  std::uint64_t sync_epoch;

  Op op(LaneMask) const { return Op::StoreShared; }
  SharedAccessCost check(AccessCheck& c) const { return shared_access_cost(c.addresses(kName, mem, address, sizeof(T)), sizeof(T)); }
  void count(Counters& c, const SharedAccessCost& cost) const { count_shared(c, cost); }
  void store(int l, std::uint64_t step) const {
    mem.template store<T>(address(l), value[l]);
    mem.note_write(address(l), sizeof(T), l, sync_epoch, step);
  }
  std::pair<std::string, std::string> describe(const SharedAccessCost& cost) const {
    return {std::string(kName) + " " + value.name(), shared_note(cost)};
  }
};

}  // namespace warpsim::sim::insn
