// How many memory transactions a warp-wide access costs, as pure functions of
// the active lanes' byte addresses. Global memory: distinct 32-byte sectors and
// distinct cache lines touched. Shared memory: wavefronts through 32 banks.
#pragma once

#include <cstdint>
#include <span>

namespace warpsim::sim {

struct GlobalAccessCost {
  int lanes = 0;    // active lanes that accessed memory
  int bytes = 0;    // bytes they asked for
  int sectors = 0;  // distinct 32-byte sectors
  int lines = 0;    // distinct cache lines
};

// `addresses` are the active lanes' addresses; each access is `access_bytes`
// wide. `line_bytes` is a power of two >= 32 (128 on NVIDIA GPUs since Fermi).
GlobalAccessCost global_access_cost(std::span<const std::uint64_t> addresses, int access_bytes, int line_bytes);

struct SharedAccessCost {
  int lanes = 0;
  int wavefronts = 0;  // max over banks of distinct 4-byte words in that bank
  int conflicts = 0;   // wavefronts beyond ceil(distinct words / 32), the fewest possible
};

SharedAccessCost shared_access_cost(std::span<const std::uint64_t> addresses, int access_bytes);

}  // namespace warpsim::sim
