// Semantics of vote.sync (__ballot_sync, __any_sync, __all_sync) over the
// lanes of a member mask. Which lanes may be named is the warp's business.
#pragma once

#include "sim/lane_mask.hpp"

namespace warpsim::sim::insn {

enum class VoteMode { Ballot, Any, All };

const char* vote_mode_name(VoteMode mode);

// `predicates` has bit l set where lane l's predicate is true.
constexpr LaneMask vote_ballot(LaneMask member, LaneMask predicates) { return member & predicates; }
constexpr bool vote_any(LaneMask member, LaneMask predicates) { return (member & predicates) != 0; }
constexpr bool vote_all(LaneMask member, LaneMask predicates) { return (member & ~predicates) == 0; }

}  // namespace warpsim::sim::insn
