// A step-by-step record of a run: each warp instruction with its active mask
// and the register lanes it changed. Recording happens only when the warp was
// built with tracing on; otherwise no step object is ever made.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/lane_mask.hpp"
#include "sim/op_kind.hpp"

namespace warpsim::sim {

struct LaneChange {
  int lane;
  std::string before;
  std::string after;
};

struct RegisterChange {
  std::string reg;
  std::vector<LaneChange> lanes;
};

struct TraceStep {
  std::uint64_t step = 0;
  Op op = Op::Other;
  std::string label;  // the instruction as written, e.g. "shfl_xor a[1] <- a[1] ^ 2"
  LaneMask active = 0;
  std::vector<RegisterChange> changes;
  std::string note;  // e.g. sectors and lines of a load, taken/not-taken lanes of a branch
};

using Trace = std::vector<TraceStep>;

}  // namespace warpsim::sim
