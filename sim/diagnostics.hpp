// What CUDA leaves undefined, reported instead of a made-up value; and notes
// on things real hardware cannot do cheaply (flags), which are counted only.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsim::sim {

enum class Undefined : std::uint8_t {
  SourceLaneInactive,        // a shuffle reads a lane that does not execute it
  SourceOutsideMemberMask,   // a shuffle reads a lane its member mask leaves out
  CallerNotInMemberMask,     // a lane's member mask omits the lane itself
  MemberMaskMismatch,        // lanes of one call name different member masks
  MemberNotExecuting,        // the member mask names a lane that does not execute the call
  MaskBeyondWarp,            // a member mask names lanes the warp does not have
  InvalidWidth,              // shuffle width not a power of two in [1, W]
  OutOfBounds,               // memory access outside any allocation / array
  Misaligned,                // address not a multiple of the access size
  ConflictingStores,         // lanes store different values to one address
  UnsyncedSharedRead,        // a lane reads shared memory another lane wrote with no __syncwarp between
};

const char* undefined_name(Undefined kind);

struct Diagnostic {
  std::uint64_t step;  // the warp instruction's index within the run
  int lane;            // the lane at fault
  Undefined kind;
  std::string op;       // instruction name, e.g. "shfl_xor"
  std::string message;  // what happened, in words

  std::string to_string() const;
};

// Thrown by the instruction whose result CUDA leaves undefined, before it
// writes anything; it carries every lane at fault.
class UndefinedBehavior : public std::runtime_error {
 public:
  explicit UndefinedBehavior(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// Legal in the model but not on NVIDIA hardware's register file (a compiler
// would move the array to local memory): counted and kept for the report.
struct Flag {
  std::uint64_t step;
  std::string what;
};

}  // namespace warpsim::sim
