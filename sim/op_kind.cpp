#include "sim/op_kind.hpp"

namespace warpsim::sim {

const char* op_name(Op op) {
  switch (op) {
    case Op::Add: return "add";
    case Op::Sub: return "sub";
    case Op::Mul: return "mul";
    case Op::Fma: return "fma";
    case Op::Div: return "div";
    case Op::MinMax: return "minmax";
    case Op::Compare: return "compare";
    case Op::Select: return "select";
    case Op::Move: return "move";
    case Op::Logic: return "logic";
    case Op::Convert: return "convert";
    case Op::Other: return "other";
    case Op::Shfl: return "shfl";
    case Op::ShflUp: return "shfl_up";
    case Op::ShflDown: return "shfl_down";
    case Op::ShflXor: return "shfl_xor";
    case Op::Ballot: return "ballot";
    case Op::Any: return "any";
    case Op::All: return "all";
    case Op::ActiveMask: return "activemask";
    case Op::LoadGlobal: return "load.global";
    case Op::StoreGlobal: return "store.global";
    case Op::SyncWarp: return "syncwarp";
    case Op::LoadShared: return "load.shared";
    case Op::StoreShared: return "store.shared";
    case Op::LoadLocal: return "load.local";
    case Op::StoreLocal: return "store.local";
    case Op::IndexedRegister: return "indexed_register";
    case Op::Branch: return "branch";
    case Op::Count_: break;
  }
  return "?";
}

}  // namespace warpsim::sim
