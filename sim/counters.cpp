#include "sim/counters.hpp"

namespace warpsim::sim {

std::uint64_t Counters::total_instructions() const {
  std::uint64_t n = 0;
  for (auto c : instructions) n += c;
  return n;
}

std::uint64_t Counters::shuffles() const {
  return count(Op::Shfl) + count(Op::ShflUp) + count(Op::ShflDown) + count(Op::ShflXor);
}

std::uint64_t Counters::votes() const { return count(Op::Ballot) + count(Op::Any) + count(Op::All); }

std::uint64_t Counters::loads() const {
  return count(Op::LoadGlobal) + count(Op::LoadShared) + count(Op::LoadLocal);
}

std::uint64_t Counters::stores() const {
  return count(Op::StoreGlobal) + count(Op::StoreShared) + count(Op::StoreLocal);
}

Counters& Counters::operator+=(const Counters& o) {
  for (std::size_t i = 0; i < kOpCount; ++i) instructions[i] += o.instructions[i];
  lane_operations += o.lane_operations;
  global_requests += o.global_requests;
  global_sectors += o.global_sectors;
  global_load_sectors += o.global_load_sectors;
  global_lines += o.global_lines;
  global_bytes += o.global_bytes;
  shared_requests += o.shared_requests;
  shared_wavefronts += o.shared_wavefronts;
  shared_bank_conflicts += o.shared_bank_conflicts;
  divergent_branches += o.divergent_branches;
  loop_iterations += o.loop_iterations;
  return *this;
}

}  // namespace warpsim::sim
