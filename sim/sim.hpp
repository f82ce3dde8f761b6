// warpsim's warp model, all of it: include this, or the one header you need.
//
//   warp.hpp            Warp: lanes, registers, divergence, every instruction the seeds use
//   reg.hpp, lane_mask.hpp  a register across the lanes; a set of lanes
//   global_memory.hpp, shared_memory.hpp, local_memory.hpp  the memories, with their checks
//   coalescing.hpp      global accesses as the hardware groups them into sectors
//   counters.hpp        what a run costs: instructions, transactions, bank conflicts
//   trace.hpp, op_kind.hpp  the instruction trace and its kinds of operation
//   diagnostics.hpp     undefined behaviour found (races, divergent shuffles, reads past the end)
//   symbolic.hpp        symbolic values: which inputs a register holds
//   value_format.hpp, register_grid.hpp  values and registers as text, as the seeds draw them
//
// The instructions' semantics, one a file (Spike's rule), sit behind Warp's
// members, which are how code issues them:
//   not included: sim/insn/access.hpp (the plumbing every memory instruction shares, behind Warp::execute)
//   not included: sim/insn/global.hpp (ld/st.global, behind Warp's global loads and stores)
//   not included: sim/insn/shared.hpp (ld/st.shared, behind Warp's shared loads and stores)
//   not included: sim/insn/local.hpp (ld/st.local, behind Warp::load_local, store_local)
//   not included: sim/insn/indexed.hpp (register-indexed arrays, behind Warp::read_indexed, write_indexed)
//   not included: sim/insn/shfl.hpp (shfl.sync's lane arithmetic, behind Warp::shfl_*)
//   not included: sim/insn/vote.hpp (vote.sync, behind Warp::ballot_sync, any_sync, all_sync)
#pragma once

#include "sim/coalescing.hpp"
#include "sim/counters.hpp"
#include "sim/diagnostics.hpp"
#include "sim/global_memory.hpp"
#include "sim/lane_mask.hpp"
#include "sim/local_memory.hpp"
#include "sim/op_kind.hpp"
#include "sim/reg.hpp"
#include "sim/register_grid.hpp"
#include "sim/shared_memory.hpp"
#include "sim/symbolic.hpp"
#include "sim/trace.hpp"
#include "sim/value_format.hpp"
#include "sim/warp.hpp"
