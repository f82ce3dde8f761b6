// What a run of the model costs, counted per warp instruction.
#pragma once

#include <array>
#include <cstdint>

#include "sim/op_kind.hpp"

namespace warpsim::sim {

struct Counters {
  std::array<std::uint64_t, kOpCount> instructions{};  // warp instructions issued, by kind
  std::uint64_t lane_operations = 0;  // sum over instructions of the lanes active in each

  std::uint64_t global_requests = 0;  // warp-wide global loads and stores
  std::uint64_t global_sectors = 0;   // 32-byte sectors they touched
  std::uint64_t global_load_sectors = 0;  // of those, the sectors loads touched (stores: the rest)
  std::uint64_t global_lines = 0;     // cache lines (line size of the warp) they touched
  std::uint64_t global_bytes = 0;     // bytes the active lanes asked for

  std::uint64_t shared_requests = 0;
  std::uint64_t shared_wavefronts = 0;      // passes through the 32 banks
  std::uint64_t shared_bank_conflicts = 0;  // wavefronts beyond the fewest possible

  std::uint64_t divergent_branches = 0;  // branches where active lanes went both ways
  std::uint64_t loop_iterations = 0;     // iterations of warp-level loops

  std::uint64_t count(Op op) const { return instructions[static_cast<std::size_t>(op)]; }
  std::uint64_t total_instructions() const;
  std::uint64_t shuffles() const;
  std::uint64_t votes() const;
  std::uint64_t loads() const;
  std::uint64_t stores() const;

  Counters& operator+=(const Counters& other);
  friend bool operator==(const Counters&, const Counters&) = default;
};

}  // namespace warpsim::sim
