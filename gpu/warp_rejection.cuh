// A rejection sampler run by a warp (seed 004), for any proposal and
// acceptance: the caller says how one attempt is made; WarpRejection runs
// the loop, uncached or with the note's pre-caching.
//
// A lane's calls form a sequence of tasks (the draws it makes, a kernel's
// grid-stride loop: task, task + stride, ...). `try_once(task, attempt,
// out)` makes attempt number `attempt` (0, 1, 2, ...) of task `task`,
// returning whether it was accepted and, if so, the value in `out`; it must
// depend on (task, attempt) alone (e.g. Philox with counter {task, attempt}).
// Then a task's value is that of its first accepted attempt, whichever loop
// runs it, so the uncached and the pre-cached loop return the same values,
// and a kernel equals an oracle that knows nothing of warps.
//
//   RejectionCaching::none       seed 004's first listing, do { x = g(); }
//                                while (!a(x)): a lane that accepted waits
//                                for the warp's slowest (iterations: the
//                                maximum of the lanes' geometrics, E[L_K])
//   RejectionCaching::precached  seed 004's second listing: a lane whose
//                                task is done makes attempts at its next
//                                task and caches the first accepted value;
//                                the next call starts from it (checked: the
//                                cache is used only for the task it was made
//                                for, the listing's `cachedParms == parms`);
//                                the loop runs while !__all_sync(current
//                                valid), with the body at least once
//
// Every attempt of a loop iteration is one call of try_once by the lanes that
// have work (no divergence between "this task" and "the next task": the lane
// picks its (task, attempt) first).
//
// Registers: the pre-cached loop keeps, across calls, the cached Value, its
// task (64 bits), the attempt its task resumes at and a flag: 4 32-bit
// registers plus the Value's; in the call, the next task's attempt counter.
// ptxas's count for the Bringmann-Larsen sampler (gpu/bringmann_larsen.cu)
// is in docs/PERF.md.
//
// Contract: every lane of the warp calls next() the same number of times,
// together (it votes with __all_sync on the full warp); lanes without a task
// pass has_task = false. For `precached`, a call's task should be the
// previous call's next_task, or the cache is not used (the values stay right).
//
// Usage (a kernel; one object a thread, kept across its grid-stride calls):
//
//   struct Attempt {
//     __device__ bool operator()(std::uint64_t task, std::uint32_t attempt, std::uint32_t& item) const;
//   };
//   gpu::WarpRejection<std::uint32_t, gpu::RejectionCaching::precached> rejection;
//   for (std::uint64_t c = 0; c < calls; ++c) {   // calls: the same on every lane
//     const std::uint64_t t = tid + c * stride;
//     const std::uint32_t v = rejection.next(t < count, t, t + stride < count, t + stride, Attempt{...});
//     if (t < count) out[t] = v;
//   }
#pragma once

#include <cstdint>
#include <type_traits>

#include "gpu/rejection_counts.hpp"

namespace warpsim::gpu {

enum class RejectionCaching { none, precached };

namespace detail {

constexpr unsigned kFullWarp = 0xffffffffu;

template <class F, class Value>
inline constexpr bool is_attempt_v = std::is_invocable_r_v<bool, F&, std::uint64_t, std::uint32_t, Value&>;

}  // namespace detail

/// @brief A warp's rejection loop over a lane's sequence of tasks.
/// @tparam Value    what an accepted attempt yields (trivially copyable)
/// @tparam Caching  RejectionCaching::none or ::precached (seed 004's two listings)
template <class Value, RejectionCaching Caching = RejectionCaching::precached>
class WarpRejection;

/// Seed 004's first listing.
template <class Value>
class WarpRejection<Value, RejectionCaching::none> {
  static_assert(std::is_trivially_copyable_v<Value>, "WarpRejection: Value must be trivially copyable");

 public:
  /// @param has_task   whether this lane has a task this call
  /// @param task       the task (the value of its first accepted attempt is returned)
  /// @param has_next   unused (the uncached loop looks one task ahead of nothing)
  /// @param next_task  unused
  /// @param try_once   bool(std::uint64_t task, std::uint32_t attempt, Value& out)
  template <class Attempt>
  __device__ __forceinline__ Value next(bool has_task, std::uint64_t task, bool /*has_next*/, std::uint64_t /*next_task*/, Attempt&& try_once) {
    static_assert(detail::is_attempt_v<Attempt, Value>, "try_once must be callable as bool(std::uint64_t task, std::uint32_t attempt, Value& out)");
    Value v{};
    mine_ = 0;
    if (has_task) {
      std::uint32_t j = 0;
      while (!try_once(task, j++, v)) {
      }
      mine_ = static_cast<int>(j);
    }
    return v;
  }

  /// The last call's warp iterations (the most any lane made); all lanes call it together.
  __device__ __forceinline__ int warp_iterations() const {
    return static_cast<int>(__reduce_max_sync(detail::kFullWarp, static_cast<unsigned>(mine_)));
  }
  /// The last call's attempts by this lane.
  __device__ __forceinline__ int attempts() const { return mine_; }

 private:
  int mine_ = 0;
};

/// Seed 004's second listing (pre-caching).
template <class Value>
class WarpRejection<Value, RejectionCaching::precached> {
  static_assert(std::is_trivially_copyable_v<Value>, "WarpRejection: Value must be trivially copyable");

 public:
  /// @param has_task   whether this lane has a task this call
  /// @param task       the task (the value of its first accepted attempt is returned)
  /// @param has_next   whether the lane has a task next call
  /// @param next_task  that task: attempts at it fill the cache while the warp waits
  /// @param try_once   bool(std::uint64_t task, std::uint32_t attempt, Value& out)
  template <class Attempt>
  __device__ __forceinline__ Value next(bool has_task, std::uint64_t task, bool has_next, std::uint64_t next_task, Attempt&& try_once) {
    static_assert(detail::is_attempt_v<Attempt, Value>, "try_once must be callable as bool(std::uint64_t task, std::uint32_t attempt, Value& out)");
    // currentValid = cachedValid && cachedParms == parms
    const bool mine = cached_task_ == task;
    bool current_valid = !has_task || (cached_valid_ && mine);
    Value current = cached_;
    std::uint32_t j = mine ? cached_attempt_ : 0;
    cached_valid_ = !has_next;  // no next task: nothing to cache
    cached_task_ = next_task;
    std::uint32_t next_j = 0;
    int loops = 0;
    attempts_ = 0;
    do {
      const bool on_current = !current_valid;
      if (on_current || !cached_valid_) {
        Value v{};
        const bool ok = try_once(on_current ? task : next_task, on_current ? j : next_j, v);
        ++attempts_;
        if (on_current) {
          ++j;
          if (ok) current = v;
          current_valid = ok;
        } else {
          ++next_j;
          if (ok) cached_ = v;
          cached_valid_ = ok;
        }
      }
      ++loops;
    } while (!__all_sync(detail::kFullWarp, current_valid));
    cached_attempt_ = next_j;
    loops_ = loops;
    return current;
  }

  /// The last call's warp iterations (the same on every lane).
  __device__ __forceinline__ int warp_iterations() const { return loops_; }
  /// The last call's attempts by this lane (some for its next task).
  __device__ __forceinline__ int attempts() const { return attempts_; }

 private:
  Value cached_{};
  std::uint64_t cached_task_ = ~std::uint64_t{0};
  std::uint32_t cached_attempt_ = 0;
  bool cached_valid_ = false;
  int loops_ = 0, attempts_ = 0;
};

/// A thread's tally of its calls, added to RejectionCounts at the end: the
/// iterations of the calls where every lane of the warp had a task (seed
/// 004's call: the grid's last call leaves lanes idle), the attempts of all.
/// All lanes call add() and flush() together.
struct RejectionTally {
  unsigned long long iterations = 0, full_calls = 0, attempts = 0;

  template <class Loop>
  __device__ __forceinline__ void add(const Loop& loop, bool has_task) {
    const int it = loop.warp_iterations();
    if (__all_sync(detail::kFullWarp, has_task)) {
      iterations += static_cast<unsigned long long>(it);
      ++full_calls;
    }
    attempts += static_cast<unsigned long long>(loop.attempts());
  }

  /// @param draws  what this thread adds to counts->draws (the grid's total from one thread)
  __device__ __forceinline__ void flush(RejectionCounts* counts, unsigned long long draws) const {
    unsigned long long warp_attempts = attempts;
    for (int o = 16; o > 0; o /= 2) warp_attempts += __shfl_down_sync(detail::kFullWarp, warp_attempts, o);
    if (threadIdx.x % 32 == 0) {
      atomicAdd(&counts->warp_calls, full_calls);
      atomicAdd(&counts->warp_iterations, iterations);
      atomicAdd(&counts->attempts, warp_attempts);
    }
    if (draws != 0) atomicAdd(&counts->draws, draws);
  }
};

}  // namespace warpsim::gpu
