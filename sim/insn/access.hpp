// The plumbing every memory instruction shares, written once (as Spike's
// decode_macros.h is for its instructions): Warp::execute runs an
// instruction description in this order --
//
//   1. issue      count the op (Insn::op may depend on the lanes: an indexed
//                 register read is a move when every lane names one index)
//   2. check      every active lane; any fault throws UndefinedBehavior before
//                 anything is written; returns the access's cost
//   3. count      add the cost to the warp's counters
//   4. commit     loads write their register (traced as changed lanes),
//                 stores write memory (traced as a note)
//
// An instruction is a small struct in its own file (global.hpp, shared.hpp,
// local.hpp, indexed.hpp) with:
//   static constexpr const char* kName;  static constexpr bool kLoads;
//   Op op(LaneMask active) const;
//   Cost check(AccessCheck& c) const;     // per-lane and cross-lane faults
//   void count(Counters&, const Cost&) const;
//   loads:  Reg<T>& dst() const;  T value(int lane) const;
//   stores: void store(int lane, std::uint64_t step) const;
//   std::pair<std::string, std::string> describe(const Cost&) const;  // label, note
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/diagnostics.hpp"
#include "sim/lane_mask.hpp"
#include "sim/reg.hpp"

namespace warpsim::sim::insn {

struct NoCost {};

// What an instruction's check may ask of the warp.
class AccessCheck {
 public:
  AccessCheck(std::uint64_t step_, LaneMask active_, int line_bytes_, std::uint64_t sync_epoch_)
      : step(step_), active(active_), line_bytes(line_bytes_), sync_epoch(sync_epoch_) {}

  const std::uint64_t step;
  const LaneMask active;
  const int line_bytes;
  const std::uint64_t sync_epoch;  // __syncwarp calls so far
  std::vector<Diagnostic> faults;   // thrown together once check returns
  std::vector<std::string> flags;   // legal here, not on hardware (counted)

  void fault(int lane, Undefined kind, const char* op, std::string message) {
    faults.push_back({step, lane, kind, op, std::move(message)});
  }

  // Every active lane's `bytes`-byte access at address(l) must be aligned and
  // inside `mem`; returns the active lanes' addresses (for the cost). Faults
  // stop the instruction here. One allocation holding the whole span is the
  // common case and costs one check.
  template <class Mem>
  std::span<const std::uint64_t> addresses(const char* op, const Mem& mem, PerLane<std::uint64_t> address, int bytes) {
    n_ = 0;
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0, misaligned = 0;
    for_each_lane(active, [&](int l) {
      const std::uint64_t a = address(l);
      misaligned |= a % static_cast<std::uint64_t>(bytes);
      lo = a < lo ? a : lo;
      hi = a > hi ? a : hi;
      addrs_[static_cast<std::size_t>(n_++)] = a;
    });
    if (n_ > 0 && (misaligned != 0 || !mem.contains(lo, static_cast<std::size_t>(hi - lo) + static_cast<std::size_t>(bytes)))) {
      for_each_lane(active, [&](int l) {
        const std::uint64_t a = address(l);
        if (a % static_cast<std::uint64_t>(bytes) != 0) {
          fault(l, Undefined::Misaligned, op, "address " + std::to_string(a) + " is not a multiple of " + std::to_string(bytes));
        } else if (!mem.contains(a, static_cast<std::size_t>(bytes))) {
          fault(l, Undefined::OutOfBounds, op, std::to_string(bytes) + " bytes at address " + std::to_string(a) + " lie outside memory");
        }
      });
      raise();
    }
    return {addrs_.data(), static_cast<std::size_t>(n_)};
  }

  // Throws the faults found so far, if any.
  void raise() {
    if (!faults.empty()) throw UndefinedBehavior(std::move(faults));
  }

 private:
  std::array<std::uint64_t, kMaxLanes> addrs_{};
  int n_ = 0;
};

// An index into an array of `size` elements, per lane (local memory and
// register arrays).
inline void check_index(AccessCheck& c, const char* op, const std::string& array, std::size_t size, PerLane<int> index) {
  for_each_lane(c.active, [&](int l) {
    if (index(l) < 0 || static_cast<std::size_t>(index(l)) >= size) {
      c.fault(l, Undefined::OutOfBounds, op, array + "[" + std::to_string(index(l)) + "] of " + std::to_string(size));
    }
  });
}

}  // namespace warpsim::sim::insn
