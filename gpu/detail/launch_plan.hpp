// How the samplers' launches are planned, written once for both (matrix and
// LDA): block size, the shared-memory budget a block may take, how many warps
// a block holds when each keeps values in shared memory, what a lane keeps,
// and when 16-byte copies are allowed. Host code (the .cu files' launchers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "gpu/detail/butterfly_search.hpp"  // kW

namespace warpsim::gpu::detail {

// Threads a block when a lane keeps nothing in shared memory.
inline constexpr int kThreadsPerBlock = 256;

// Shared memory a block may ask for: two such blocks fit in an SM of Hopper.
inline constexpr std::size_t kSharedLimit = 100 * 1024;

// Where a warp keeps its K values per lane:
enum class Storage {
  Staged,  // in shared memory, the weights copied there first (matrix: stage_rows)
  Full,    // all K (running sums or p'), in shared memory or global scratch
  Sums,    // only the remnant's and blocks' running sums (past shared memory)
};

// Values a lane keeps (with Sums, also a ring of `ring` blocks).
__host__ __device__ constexpr int kept_values(int k, Storage st, int ring = 0) {
  return st == Storage::Sums ? k % kW + k / kW + ring * kW : k;
}

struct SharedPlan {
  int warps = 0;          // warps a block; 0: none fits
  std::size_t bytes = 0;  // dynamic shared memory a block
};

// The most warps a block (4, 2 or 1; at most `max_warps` unless 0) whose
// `per_warp` bytes each fit in kSharedLimit.
inline SharedPlan first_fit(std::size_t per_warp, int max_warps = 0) {
  for (int warps : {4, 2, 1})
    if ((max_warps == 0 || warps <= max_warps) && warps * per_warp <= kSharedLimit) return {warps, warps * per_warp};
  return {};
}

// Of 4, 2 or 1 warps a block (blocks up to kSharedLimit; one warp up to what
// a block may opt in to), the choice that keeps the most warps of `kernel`
// resident on the device; sets the kernel's shared-memory attribute to it.
// warps = 0 if not even one warp fits.
SharedPlan most_resident(const void* kernel, std::size_t per_warp);

// 16-byte copies are allowed when every pointer is 16-byte aligned and a
// row's bytes are a multiple of 16.
inline bool aligned16(std::initializer_list<const void*> pointers, std::size_t row_bytes) {
  for (const void* p : pointers)
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return false;
  return row_bytes % 16 == 0;
}

}  // namespace warpsim::gpu::detail
