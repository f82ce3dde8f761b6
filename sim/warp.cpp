#include "sim/warp.hpp"

#include <stdexcept>

namespace warpsim::sim {

Warp::Warp(WarpConfig config)
    : width_(config.width), line_bytes_(config.line_bytes), tracing_(config.trace), active_(0) {
  if (!is_power_of_two(width_) || width_ < 2 || width_ > kMaxLanes) {
    throw std::invalid_argument("warp width must be a power of two from 2 to 64, got " + std::to_string(width_));
  }
  if (!is_power_of_two(line_bytes_) || line_bytes_ < kSectorBytes) {
    throw std::invalid_argument("cache line size must be a power of two of at least 32 bytes, got " +
                                std::to_string(line_bytes_));
  }
  active_ = full_mask(width_);
}

std::uint64_t Warp::issue(Op op) {
  ++counters_.instructions[static_cast<std::size_t>(op)];
  counters_.lane_operations += static_cast<std::uint64_t>(lane_count(active_));
  return step_++;
}

void Warp::raise_if_any(std::vector<Diagnostic>& diags) {
  if (!diags.empty()) throw UndefinedBehavior(std::move(diags));
}

void Warp::check_width(std::uint64_t step, const char* op, int width, std::vector<Diagnostic>& out) const {
  if (!is_power_of_two(width) || width > width_) {
    for_each_lane(active_, [&](int l) {
      out.push_back({step, l, Undefined::InvalidWidth, op,
                     "width " + std::to_string(width) + " is not a power of two in [1, " + std::to_string(width_) + "]"});
    });
  }
}

void Warp::check_members(std::uint64_t step, const char* op, PerLane<LaneMask> member,
                         std::vector<Diagnostic>& out) const {
  if (active_ == 0) return;
  bool valid = member(std::countr_zero(active_)) == active_;
  if (valid && !member.is_uniform()) for_each_lane(active_, [&](int l) { valid = valid && member(l) == active_; });
  if (!valid) [[unlikely]] report_members(step, op, member, out);
}

void Warp::report_sources(std::uint64_t step, const char* op, PerLane<LaneMask> member,
                          const int (&sources)[kMaxLanes], LaneMask bad,
                          std::vector<Diagnostic>& diags) const {
  for_each_lane(bad, [&](int l) {
    const int src = sources[l];
    if (!has_lane(member(l), src)) {
      diags.push_back({step, l, Undefined::SourceOutsideMemberMask, op,
                       "reads lane " + std::to_string(src) + ", outside member mask " + format_mask(member(l), width_)});
    } else {
      diags.push_back({step, l, Undefined::SourceLaneInactive, op,
                       "reads lane " + std::to_string(src) + ", which is inactive"});
    }
  });
  raise_if_any(diags);
  throw std::logic_error("report_sources: no lane at fault");
}

void Warp::report_members(std::uint64_t step, const char* op, PerLane<LaneMask> member,
                          std::vector<Diagnostic>& out) const {
  const LaneMask first = member(std::countr_zero(active_));
  for_each_lane(active_, [&](int l) {
    const LaneMask m = member(l);
    if ((m & ~lanes()) != 0) {
      out.push_back({step, l, Undefined::MaskBeyondWarp, op,
                     "member mask " + format_mask(m, kMaxLanes) + " on a warp of " + std::to_string(width_) + " lanes"});
    }
    if (!has_lane(m, l)) {
      out.push_back({step, l, Undefined::CallerNotInMemberMask, op,
                     "member mask " + format_mask(m, width_) + " omits lane " + std::to_string(l)});
    }
    if (m != first) {
      out.push_back({step, l, Undefined::MemberMaskMismatch, op,
                     "member mask " + format_mask(m, width_) + " differs from " + format_mask(first, width_) +
                         " named by lane " + std::to_string(std::countr_zero(active_))});
    }
    const LaneMask absent = m & lanes() & ~active_;
    if (absent != 0) {
      out.push_back({step, l, Undefined::MemberNotExecuting, op,
                     "member mask names lane " + std::to_string(std::countr_zero(absent)) +
                         ", which does not execute this call (active " + format_mask(active_, width_) + ")"});
    }
  });
}

void Warp::record_note(std::uint64_t step, Op op, std::string_view label, std::string note) {
  TraceStep s;
  s.step = step;
  s.op = op;
  s.label = std::string(label);
  s.active = active_;
  s.note = std::move(note);
  trace_.push_back(std::move(s));
}

void Warp::vote(insn::VoteMode mode, PerLane<LaneMask> member, const Reg<bool>& pred,
                std::array<LaneMask, kMaxLanes>& result, std::uint64_t& step) {
  static constexpr Op kOps[] = {Op::Ballot, Op::Any, Op::All};
  const char* name = insn::vote_mode_name(mode);
  step = issue(kOps[static_cast<int>(mode)]);
  std::vector<Diagnostic> diags;
  check_members(step, name, member, diags);
  raise_if_any(diags);
  LaneMask predicates = 0;
  for_each_lane(active_, [&](int l) {
    if (pred[l]) predicates |= LaneMask{1} << l;
  });
  for_each_lane(active_, [&](int l) {
    const LaneMask m = member(l);
    switch (mode) {
      case insn::VoteMode::Ballot: result[static_cast<std::size_t>(l)] = insn::vote_ballot(m, predicates); break;
      case insn::VoteMode::Any: result[static_cast<std::size_t>(l)] = insn::vote_any(m, predicates); break;
      case insn::VoteMode::All: result[static_cast<std::size_t>(l)] = insn::vote_all(m, predicates); break;
    }
  });
}

void Warp::ballot_sync(Reg<LaneMask>& dst, PerLane<LaneMask> member, const Reg<bool>& pred) {
  std::array<LaneMask, kMaxLanes> r;
  std::uint64_t step = 0;
  vote(insn::VoteMode::Ballot, member, pred, r, step);
  commit(step, Op::Ballot, dst, [&](int l) { return r[static_cast<std::size_t>(l)]; },
         [&] { return std::pair{"ballot " + dst.name() + " <- " + pred.name(), std::string()}; });
}

void Warp::any_sync(Reg<bool>& dst, PerLane<LaneMask> member, const Reg<bool>& pred) {
  std::array<LaneMask, kMaxLanes> r;
  std::uint64_t step = 0;
  vote(insn::VoteMode::Any, member, pred, r, step);
  commit(step, Op::Any, dst, [&](int l) { return r[static_cast<std::size_t>(l)] != 0; },
         [&] { return std::pair{"any " + dst.name() + " <- " + pred.name(), std::string()}; });
}

void Warp::all_sync(Reg<bool>& dst, PerLane<LaneMask> member, const Reg<bool>& pred) {
  std::array<LaneMask, kMaxLanes> r;
  std::uint64_t step = 0;
  vote(insn::VoteMode::All, member, pred, r, step);
  commit(step, Op::All, dst, [&](int l) { return r[static_cast<std::size_t>(l)] != 0; },
         [&] { return std::pair{"all " + dst.name() + " <- " + pred.name(), std::string()}; });
}

void Warp::syncwarp(PerLane<LaneMask> member) {
  const std::uint64_t step = issue(Op::SyncWarp);
  std::vector<Diagnostic> diags;
  check_members(step, "syncwarp", member, diags);
  raise_if_any(diags);
  ++sync_epoch_;
  if (tracing_) [[unlikely]] record_note(step, Op::SyncWarp, "syncwarp", {});
}

void Warp::activemask(Reg<LaneMask>& dst) {
  const std::uint64_t step = issue(Op::ActiveMask);
  commit(step, Op::ActiveMask, dst, [&](int) { return active_; },
         [&] { return std::pair{"activemask " + dst.name(), std::string()}; });
}

}  // namespace warpsim::sim
