// The kinds of warp instruction the model issues and counts.
#pragma once

#include <cstddef>
#include <cstdint>

namespace warpsim::sim {

enum class Op : std::uint8_t {
  Add, Sub, Mul, Fma, Div, MinMax, Compare, Select, Move, Logic, Convert, Other,
  Shfl, ShflUp, ShflDown, ShflXor,
  Ballot, Any, All, ActiveMask,
  LoadGlobal, StoreGlobal, LoadShared, StoreShared, LoadLocal, StoreLocal,
  IndexedRegister,  // a register array indexed by a lane-dependent value
  Branch,
  SyncWarp,  // __syncwarp
  Count_
};

inline constexpr std::size_t kOpCount = static_cast<std::size_t>(Op::Count_);

const char* op_name(Op op);

constexpr bool is_shuffle(Op op) { return op >= Op::Shfl && op <= Op::ShflXor; }
constexpr bool is_vote(Op op) { return op >= Op::Ballot && op <= Op::All; }

}  // namespace warpsim::sim
