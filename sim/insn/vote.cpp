#include "sim/insn/vote.hpp"

namespace warpsim::sim::insn {

const char* vote_mode_name(VoteMode mode) {
  switch (mode) {
    case VoteMode::Ballot: return "ballot";
    case VoteMode::Any: return "any";
    case VoteMode::All: return "all";
  }
  return "vote?";
}

}  // namespace warpsim::sim::insn
