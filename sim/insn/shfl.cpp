#include "sim/insn/shfl.hpp"

namespace warpsim::sim::insn {

const char* shfl_mode_name(ShflMode mode) {
  switch (mode) {
    case ShflMode::Idx: return "shfl";
    case ShflMode::Up: return "shfl_up";
    case ShflMode::Down: return "shfl_down";
    case ShflMode::Bfly: return "shfl_xor";
  }
  return "shfl?";
}

}  // namespace warpsim::sim::insn
