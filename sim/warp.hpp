// One warp of W lanes executing in lockstep under an active mask: the model's
// core. Every method that simulates a warp instruction counts it, records it
// in the trace when tracing is on, and throws UndefinedBehavior (before writing
// anything) where CUDA leaves the result undefined.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/coalescing.hpp"
#include "sim/counters.hpp"
#include "sim/diagnostics.hpp"
#include "sim/global_memory.hpp"
#include "sim/insn/access.hpp"
#include "sim/insn/global.hpp"
#include "sim/insn/indexed.hpp"
#include "sim/insn/local.hpp"
#include "sim/insn/shared.hpp"
#include "sim/insn/shfl.hpp"
#include "sim/insn/vote.hpp"
#include "sim/lane_mask.hpp"
#include "sim/local_memory.hpp"
#include "sim/op_kind.hpp"
#include "sim/reg.hpp"
#include "sim/shared_memory.hpp"
#include "sim/trace.hpp"
#include "sim/value_format.hpp"

namespace warpsim::sim {

struct WarpConfig {
  int width = 32;         // lanes: a power of two from 2 to 64
  int line_bytes = 128;   // global-memory cache line: a power of two >= 32
  bool trace = false;     // record every instruction (costs nothing when off)
};

class Warp {
 public:
  explicit Warp(WarpConfig config = {});

  int width() const { return width_; }
  int line_bytes() const { return line_bytes_; }
  LaneMask lanes() const { return full_mask(width_); }
  LaneMask active() const { return active_; }
  bool is_active(int lane) const { return has_lane(active_, lane); }
  std::uint64_t step() const { return step_; }  // instructions issued so far

  const Counters& counters() const { return counters_; }
  void reset_counters() { counters_ = {}; }
  bool tracing() const { return tracing_; }
  const Trace& trace() const { return trace_; }
  void clear_trace() { trace_.clear(); }
  const std::vector<Flag>& flags() const { return flags_; }

  // ---- lane-local instructions -------------------------------------------
  // dst[l] = f(l) on every active lane l: one instruction of kind `op`. `f`
  // must read only lane l of any register (that is what lane-local means).
  template <class T, class F>
  void compute(Op op, Reg<T>& dst, F&& f, std::string_view label = {});

  template <class T>
  void mov(Reg<T>& d, PerLane<T> a) {
    compute(Op::Move, d, [&](int l) { return a(l); });
  }
  template <class T>
  void add(Reg<T>& d, const Reg<T>& a, PerLane<T> b) {
    compute(Op::Add, d, [&](int l) { return static_cast<T>(a[l] + b(l)); });
  }
  template <class T>
  void sub(Reg<T>& d, const Reg<T>& a, PerLane<T> b) {
    compute(Op::Sub, d, [&](int l) { return static_cast<T>(a[l] - b(l)); });
  }
  // Separately rounded product; never contracted into an FMA by the host
  // compiler because the product is stored to a T first.
  template <class T>
  void mul(Reg<T>& d, const Reg<T>& a, PerLane<T> b) {
    compute(Op::Mul, d, [&](int l) {
      volatile T p = static_cast<T>(a[l] * b(l));
      return static_cast<T>(p);
    });
  }
  // Fused multiply-add with one rounding, as the GPU's FFMA/DFMA.
  template <class T>
  void fma(Reg<T>& d, const Reg<T>& a, PerLane<T> b, PerLane<T> c) {
    compute(Op::Fma, d, [&](int l) { return std::fma(a[l], b(l), c(l)); });
  }
  template <class T>
  void select(Reg<T>& d, const Reg<bool>& p, PerLane<T> if_true, PerLane<T> if_false) {
    compute(Op::Select, d, [&](int l) { return p[l] ? if_true(l) : if_false(l); });
  }
  void lane_id(Reg<int>& d) {
    compute(Op::Move, d, [](int l) { return l; }, "laneid");
  }

  // ---- control flow: divergence and reconvergence --------------------------
  // Lanes whose p is true run `then_fn`, the others wait; all reconverge after.
  template <class Then>
  void if_then(const Reg<bool>& p, Then&& then_fn) {
    if_else(p, std::forward<Then>(then_fn), [] {});
  }
  template <class Then, class Else>
  void if_else(const Reg<bool>& p, Then&& then_fn, Else&& else_fn);

  // A loop that runs while any lane still works: each iteration runs `cond`
  // (which must write p) on the lanes still looping, retires those whose p is
  // false, and runs `body` on the rest. Returns the number of iterations.
  template <class Cond, class Body>
  int loop_while(const Reg<bool>& p, Cond&& cond, Body&& body);

  // ---- shuffles (CUDA __shfl*_sync; width 0 means the whole warp) ----------
  template <class T>
  void shfl_sync(Reg<T>& dst, PerLane<LaneMask> member, const Reg<T>& var, PerLane<int> src_lane, int width = 0) {
    shuffle(insn::ShflMode::Idx, dst, member, var, src_lane, width);
  }
  template <class T>
  void shfl_up_sync(Reg<T>& dst, PerLane<LaneMask> member, const Reg<T>& var, PerLane<int> delta, int width = 0) {
    shuffle(insn::ShflMode::Up, dst, member, var, delta, width);
  }
  template <class T>
  void shfl_down_sync(Reg<T>& dst, PerLane<LaneMask> member, const Reg<T>& var, PerLane<int> delta, int width = 0) {
    shuffle(insn::ShflMode::Down, dst, member, var, delta, width);
  }
  template <class T>
  void shfl_xor_sync(Reg<T>& dst, PerLane<LaneMask> member, const Reg<T>& var, PerLane<int> lane_mask,
                     int width = 0) {
    shuffle(insn::ShflMode::Bfly, dst, member, var, lane_mask, width);
  }

  // ---- votes (CUDA __ballot_sync, __any_sync, __all_sync, __activemask) ----
  void ballot_sync(Reg<LaneMask>& dst, PerLane<LaneMask> member, const Reg<bool>& pred);
  void any_sync(Reg<bool>& dst, PerLane<LaneMask> member, const Reg<bool>& pred);
  void all_sync(Reg<bool>& dst, PerLane<LaneMask> member, const Reg<bool>& pred);
  void activemask(Reg<LaneMask>& dst);

  // ---- __syncwarp(member): orders the lanes' memory accesses. Shared memory
  // one lane wrote is readable by another only after one (else
  // UnsyncedSharedRead). Member-mask rules as for votes.
  void syncwarp(PerLane<LaneMask> member);

  // ---- memory --------------------------------------------------------------
  template <class T>
  GlobalAccessCost load_global(Reg<T>& dst, const GlobalMemory& mem, PerLane<std::uint64_t> address);
  template <class T>
  GlobalAccessCost store_global(GlobalMemory& mem, PerLane<std::uint64_t> address, const Reg<T>& value);
  template <class T>
  SharedAccessCost load_shared(Reg<T>& dst, const SharedMemory& mem, PerLane<std::uint64_t> address);
  template <class T>
  SharedAccessCost store_shared(SharedMemory& mem, PerLane<std::uint64_t> address, const Reg<T>& value);
  template <class T>
  void load_local(Reg<T>& dst, const LocalArray<T>& arr, PerLane<int> index);
  template <class T>
  void store_local(LocalArray<T>& arr, PerLane<int> index, const Reg<T>& value);

  // ---- register arrays indexed per lane ------------------------------------
  // A uniform index is an ordinary move. A lane-dependent one is legal here
  // but not on NVIDIA's register file: counted as Op::IndexedRegister and
  // flagged.
  template <class T>
  void read_indexed(Reg<T>& dst, const RegArray<T>& arr, PerLane<int> index);
  template <class T>
  void write_indexed(RegArray<T>& arr, PerLane<int> index, const Reg<T>& value);

 private:
  class MaskScope;  // restores the active mask on scope exit, also on throw

  std::uint64_t issue(Op op);
  // Member-mask rules shared by shuffles and votes; appends to `out`.
  // A valid member mask is the same on every active lane and equals the
  // active set (each caller names itself; each named lane executes the call).
  void check_members(std::uint64_t step, const char* op, PerLane<LaneMask> member, std::vector<Diagnostic>& out) const;
  void report_members(std::uint64_t step, const char* op, PerLane<LaneMask> member, std::vector<Diagnostic>& out) const;
  [[noreturn]] void report_sources(std::uint64_t step, const char* op, PerLane<LaneMask> member,
                                   const int (&sources)[kMaxLanes], LaneMask bad,
                                   std::vector<Diagnostic>& diags) const;
  static void raise_if_any(std::vector<Diagnostic>& diags);
  void check_width(std::uint64_t step, const char* op, int width, std::vector<Diagnostic>& out) const;
  template <class T>
  void record(std::uint64_t step, Op op, std::string_view label, const Reg<T>& dst, const Reg<T>* before,
              std::string note = {});
  void record_note(std::uint64_t step, Op op, std::string_view label, std::string note);
  // Writes dst[l] = f(l) on the active lanes; when tracing, records the step
  // with the label and note that `describe` returns (built only then).
  template <class T, class F, class Describe>
  void commit(std::uint64_t step, Op op, Reg<T>& dst, F&& f, Describe&& describe);
  void flag(std::uint64_t step, std::string what) { flags_.push_back({step, std::move(what)}); }
  // Runs one memory instruction (sim/insn/access.hpp): issue, check, count,
  // commit, trace -- the plumbing every load and store shares.
  template <class Insn>
  auto execute(const Insn& insn);

  template <class T>
  void shuffle(insn::ShflMode mode, Reg<T>& dst, PerLane<LaneMask> member, const Reg<T>& var, PerLane<int> b,
               int width);
  void vote(insn::VoteMode mode, PerLane<LaneMask> member, const Reg<bool>& pred,
            std::array<LaneMask, kMaxLanes>& result, std::uint64_t& step);

  int width_;
  int line_bytes_;
  bool tracing_;
  LaneMask active_;
  std::uint64_t step_ = 0;
  std::uint64_t sync_epoch_ = 0;  // __syncwarp calls so far
  Counters counters_;
  Trace trace_;
  std::vector<Flag> flags_;
};

// ===========================================================================
// Implementation of the templates.

class Warp::MaskScope {
 public:
  explicit MaskScope(Warp& w) : w_(w), saved_(w.active_) {}
  ~MaskScope() { w_.active_ = saved_; }
  MaskScope(const MaskScope&) = delete;
  MaskScope& operator=(const MaskScope&) = delete;

 private:
  Warp& w_;
  LaneMask saved_;
};

template <class T>
void Warp::record(std::uint64_t step, Op op, std::string_view label, const Reg<T>& dst, const Reg<T>* before,
                  std::string note) {
  TraceStep s;
  s.step = step;
  s.op = op;
  s.label = label.empty() ? std::string(op_name(op)) + " " + dst.name() : std::string(label);
  s.active = active_;
  s.note = std::move(note);
  RegisterChange change{dst.name(), {}};
  for_each_lane(active_, [&](int l) {
    std::string after = format_value(dst[l]);
    std::string prior = before ? format_value((*before)[l]) : std::string();
    if (!before || prior != after) change.lanes.push_back({l, std::move(prior), std::move(after)});
  });
  if (!change.lanes.empty()) s.changes.push_back(std::move(change));
  trace_.push_back(std::move(s));
}

template <class T, class F, class Describe>
void Warp::commit(std::uint64_t step, Op op, Reg<T>& dst, F&& f, Describe&& describe) {
  if (tracing_) [[unlikely]] {
    const Reg<T> before = dst;
    for_each_lane(active_, [&](int l) { dst[l] = f(l); });
    auto [label, note] = describe();
    record(step, op, label, dst, &before, std::move(note));
    return;
  }
  for_each_lane(active_, [&](int l) { dst[l] = f(l); });
}

template <class T, class F>
void Warp::compute(Op op, Reg<T>& dst, F&& f, std::string_view label) {
  const std::uint64_t step = issue(op);
  commit(step, op, dst, f, [&] { return std::pair{std::string(label), std::string()}; });
}

template <class Then, class Else>
void Warp::if_else(const Reg<bool>& p, Then&& then_fn, Else&& else_fn) {
  const std::uint64_t step = issue(Op::Branch);
  LaneMask taken = 0;
  for_each_lane(active_, [&](int l) {
    if (p[l]) taken |= LaneMask{1} << l;
  });
  const LaneMask not_taken = active_ & ~taken;
  if (taken != 0 && not_taken != 0) ++counters_.divergent_branches;
  if (tracing_) [[unlikely]] {
    record_note(step, Op::Branch, "branch on " + p.name(),
                "taken " + format_mask(taken, width_) + ", not taken " + format_mask(not_taken, width_));
  }
  MaskScope scope(*this);
  if (taken != 0) {
    active_ = taken;
    then_fn();
  }
  if (not_taken != 0) {
    active_ = not_taken;
    else_fn();
  }
}

template <class Cond, class Body>
int Warp::loop_while(const Reg<bool>& p, Cond&& cond, Body&& body) {
  MaskScope scope(*this);
  int iterations = 0;
  while (active_ != 0) {
    cond();
    const std::uint64_t step = issue(Op::Branch);
    LaneMask still = 0;
    for_each_lane(active_, [&](int l) {
      if (p[l]) still |= LaneMask{1} << l;
    });
    if (still != active_ && still != 0) ++counters_.divergent_branches;
    if (tracing_) [[unlikely]] {
      record_note(step, Op::Branch, "loop while " + p.name(),
                  "continuing " + format_mask(still, width_) + ", retiring " + format_mask(active_ & ~still, width_));
    }
    active_ = still;
    if (active_ == 0) break;
    ++iterations;
    ++counters_.loop_iterations;
    body();
  }
  return iterations;
}

template <class T>
void Warp::shuffle(insn::ShflMode mode, Reg<T>& dst, PerLane<LaneMask> member, const Reg<T>& var, PerLane<int> b,
                   int width) {
  static constexpr Op kOps[] = {Op::Shfl, Op::ShflUp, Op::ShflDown, Op::ShflXor};
  const Op op = kOps[static_cast<int>(mode)];
  const char* name = insn::shfl_mode_name(mode);
  const std::uint64_t step = issue(op);
  const int w = width == 0 ? width_ : width;

  std::vector<Diagnostic> diags;
  check_width(step, name, w, diags);
  raise_if_any(diags);
  check_members(step, name, member, diags);

  // Fast path: gather, and note lanes whose source may not be read; the
  // diagnostics are built only if there are any.
  T got[kMaxLanes];  // (plain arrays: no call a lane unoptimised; sim/lane_mask.hpp, WARPSIM_SIM_INLINE)
  int sources[kMaxLanes];
  const LaneMask readable = member.is_uniform() ? (member(0) & active_) : 0;
  LaneMask bad = 0;
  for_each_lane(active_, [&](int l) {
    const int src = insn::shfl_source(mode, l, b(l), w, width_).source;
    sources[l] = src;
    const LaneMask ok = member.is_uniform() ? readable : (member(l) & active_);
    bad |= has_lane(ok, src) ? LaneMask{0} : (LaneMask{1} << l);
    got[l] = var[src];
  });
  if (bad != 0) [[unlikely]] report_sources(step, name, member, sources, bad, diags);
  raise_if_any(diags);  // member-mask faults with every source readable

  commit(step, op, dst, [&](int l) { return got[l]; }, [&] {
    std::string label = std::string(name) + " " + dst.name() + " <- " + var.name() + ", ";
    label += b.is_uniform() ? std::to_string(b(0)) : std::string("per-lane");
    if (w != width_) label += ", width " + std::to_string(w);
    return std::pair{label, std::string()};
  });
}

template <class Insn>
auto Warp::execute(const Insn& insn) {
  const Op op = insn.op(active_);
  const std::uint64_t step = issue(op);
  insn::AccessCheck check(step, active_, line_bytes_, sync_epoch_);
  const auto cost = insn.check(check);
  check.raise();
  for (auto& what : check.flags) flag(step, std::move(what));
  insn.count(counters_, cost);
  if constexpr (Insn::kLoads) {
    commit(step, op, insn.dst(), [&](int l) { return insn.value(l); }, [&] { return insn.describe(cost); });
  } else {
    for_each_lane(active_, [&](int l) { insn.store(l, step); });
    if (tracing_) [[unlikely]] {
      auto [label, note] = insn.describe(cost);
      record_note(step, op, label, std::move(note));
    }
  }
  return cost;
}

template <class T>
GlobalAccessCost Warp::load_global(Reg<T>& dst, const GlobalMemory& mem, PerLane<std::uint64_t> address) {
  return execute(insn::LoadGlobal<T>{dst, mem, address});
}
template <class T>
GlobalAccessCost Warp::store_global(GlobalMemory& mem, PerLane<std::uint64_t> address, const Reg<T>& value) {
  return execute(insn::StoreGlobal<T>{mem, address, value});
}
template <class T>
SharedAccessCost Warp::load_shared(Reg<T>& dst, const SharedMemory& mem, PerLane<std::uint64_t> address) {
  return execute(insn::LoadShared<T>{dst, mem, address});
}
template <class T>
SharedAccessCost Warp::store_shared(SharedMemory& mem, PerLane<std::uint64_t> address, const Reg<T>& value) {
  return execute(insn::StoreShared<T>{mem, address, value, sync_epoch_});
}
template <class T>
void Warp::load_local(Reg<T>& dst, const LocalArray<T>& arr, PerLane<int> index) {
  execute(insn::LoadLocal<T>{dst, arr, index});
}
template <class T>
void Warp::store_local(LocalArray<T>& arr, PerLane<int> index, const Reg<T>& value) {
  execute(insn::StoreLocal<T>{arr, index, value});
}
template <class T>
void Warp::read_indexed(Reg<T>& dst, const RegArray<T>& arr, PerLane<int> index) {
  execute(insn::ReadIndexed<T>{dst, arr, index});
}
template <class T>
void Warp::write_indexed(RegArray<T>& arr, PerLane<int> index, const Reg<T>& value) {
  execute(insn::WriteIndexed<T>{arr, index, value});
}

}  // namespace warpsim::sim
