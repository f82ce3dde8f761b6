// Runs CUDA's warp intrinsics on the device for batches of cases, so that the
// tests can hold the model (sim/) to what the hardware does.
#pragma once

#include <cstdint>
#include <vector>

namespace warpsim::gpu_test {

enum class ShuffleMode : int { Idx = 0, Up = 1, Down = 2, Xor = 3 };

struct ShuffleCase {
  ShuffleMode mode;
  int width;                 // power of two, 1..32
  std::int32_t operand[32];  // per-lane source lane, delta or xor mask
  std::int32_t value[32];    // per-lane var
};

// out[case][lane] = the shuffle's result on a full warp of 32 lanes.
std::vector<std::int32_t> run_shuffles(const std::vector<ShuffleCase>& cases);

struct VoteCase {
  std::uint32_t active;  // lanes that take the branch in which the votes run
  std::uint32_t pred;    // bit l: lane l's predicate
};

struct VoteResult {
  std::uint32_t ballot[32];
  std::int32_t any[32];
  std::int32_t all[32];
  std::uint32_t activemask[32];
};

// Votes with member mask = `active`, run inside `if (active has lane)`.
std::vector<VoteResult> run_votes(const std::vector<VoteCase>& cases);

}  // namespace warpsim::gpu_test
