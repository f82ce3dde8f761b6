#include "sim/diagnostics.hpp"

namespace warpsim::sim {

const char* undefined_name(Undefined kind) {
  switch (kind) {
    case Undefined::SourceLaneInactive: return "source lane inactive";
    case Undefined::SourceOutsideMemberMask: return "source lane outside member mask";
    case Undefined::CallerNotInMemberMask: return "member mask omits calling lane";
    case Undefined::MemberMaskMismatch: return "lanes name different member masks";
    case Undefined::MemberNotExecuting: return "member mask names a lane not executing the call";
    case Undefined::MaskBeyondWarp: return "member mask names lanes beyond the warp";
    case Undefined::InvalidWidth: return "invalid shuffle width";
    case Undefined::OutOfBounds: return "out-of-bounds access";
    case Undefined::Misaligned: return "misaligned access";
    case Undefined::ConflictingStores: return "conflicting stores to one address";
    case Undefined::UnsyncedSharedRead: return "shared memory read without __syncwarp after another lane's write";
  }
  return "undefined";
}

std::string Diagnostic::to_string() const {
  return "step " + std::to_string(step) + ", lane " + std::to_string(lane) + ", " + op + ": " +
         undefined_name(kind) + " (" + message + ")";
}

namespace {
std::string summarize(const std::vector<Diagnostic>& d) {
  std::string s = "undefined behaviour";
  if (d.empty()) return s;
  s += " at " + d.front().to_string();
  if (d.size() > 1) s += " [and " + std::to_string(d.size() - 1) + " more]";
  return s;
}
}  // namespace

UndefinedBehavior::UndefinedBehavior(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(summarize(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace warpsim::sim
