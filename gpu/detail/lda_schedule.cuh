// Which tokens a warp of the LDA z-draw takes next (gpu/lda_sampler.cu).
//
// A warp draws the tokens of a group of W documents (q*W .. q*W + W-1, lane
// i the document q*W + i) in master-index steps, as many as the group's
// longest document has tokens. Taken a group at a time (groups q = warp,
// warp + warps, ...) the sweep lasts as long as the slowest warp's groups:
// on seed 000's corpus (documents sorted longest first, 1,362 groups of 1 to
// 307 tokens) 2.2 times the mean over 528 warps. The tokens of a document are
// independent given theta and phi, so a group's master-index steps can be
// cut into chunks of `tokens` steps, each chunk a work item of its own: item
// i is group q's chunk i - prefix[q], where prefix[q] counts the chunks of
// the groups before q. Every token
// is still drawn by its document's lane with the same operations, so the
// indices do not change; only which warp draws them and when.
#pragma once

#include <cuda_runtime.h>

#include "gpu/detail/draw_algorithms.cuh"  // kW, kFull

namespace warpsim::gpu::detail {

// The chunks' prefix over the groups, prefix[0 .. groups] (groups + 1 ints:
// prefix[g] chunks before group g; a group's chunks are its longest
// document's tokens over `tokens`, rounded up), is computed on the device
// before the draw (gpu/lda_sampler.cu: plan_lda_chunks).

// What a launch passes its warps: the chunks' prefix (null for whole
// groups), the groups, and the master-index steps a chunk (0: whole groups).
struct LdaChunks {
  const int* __restrict__ prefix;
  int groups;
  int tokens;
};

// A warp's walk over its work items. Whole groups (tokens == 0) go round
// robin, as the seed has them: groups warp, warp + warps, ... Chunks go in
// contiguous runs, warp w of n the items [w N / n, (w + 1) N / n) of the N
// in all, so a warp's next item is most often the next chunk of the same
// group (the kernels that cache a group's theta cache it once a run) and
// its group is found searching forward from the last: one coalesced read of
// the next W prefixes and a ballot, repeated only past W groups of no
// chunks. The run's first group is found by a W + 1-ary search of the
// prefix.
class LdaWork {
 public:
  __device__ LdaWork(const LdaChunks& c, int warp, int warps, int lane) : c_(c), lane_(lane) {
    if (!c.tokens) {
      item_ = warp - warps;
      step_ = warps;
      last_ = c.groups;
    } else {
      const long long n = c.prefix[c.groups];
      item_ = static_cast<int>(n * warp / warps) - 1;
      last_ = static_cast<int>(n * (warp + 1) / warps);
      step_ = 1;
    }
  }
  // Moves to the warp's next item: false past its last.
  __device__ __forceinline__ bool next() {
    item_ += step_;
    if (item_ >= last_) return false;
    if (!c_.tokens) {
      group_ = item_;
      return true;
    }
    if (group_ < 0) {
      find_first();
    } else if (item_ >= group_end_) {
      for (;;) {
        const int g = group_ + 1 + lane_;
        const bool before = g < c_.groups && c_.prefix[g] <= item_;  // group g starts at or before the item
        const unsigned below = __ballot_sync(kFull, before);
        group_ += __popc(below);  // the prefix does not decrease: `before` holds for lanes 0 .. popc - 1
        if (below != kFull) break;
      }
      group_begin_ = c_.prefix[group_];
      group_end_ = c_.prefix[group_ + 1];
    }
    return true;
  }
  // The item's group (documents group * W .. group * W + W - 1).
  __device__ int group() const { return group_; }
  // Its master-index steps [first(), end()) (whole groups: to the longest
  // document's end, which ends the master-index loop).
  __device__ int first() const { return c_.tokens ? (item_ - group_begin_) * c_.tokens : 0; }
  __device__ int end() const { return c_.tokens ? first() + c_.tokens : 0x7fffffff; }

 private:
  // The group of the run's first item: lo keeps prefix[lo] <= item <
  // prefix[hi] (prefix[0] = 0, prefix[groups] = N), each round probing W
  // points between them.
  __device__ void find_first() {
    int lo = 0, hi = c_.groups;
    while (hi - lo > 1) {
      const int stride = (hi - lo + kW) / (kW + 1);
      const int g = lo + stride * (lane_ + 1);
      const unsigned below = __ballot_sync(kFull, g < hi && c_.prefix[g] <= item_);
      const int probes = __popc(below);
      const int next_hi = lo + stride * (probes + 1);
      lo += stride * probes;
      hi = min(hi, next_hi);
    }
    group_ = lo;
    group_begin_ = c_.prefix[lo];
    group_end_ = c_.prefix[lo + 1];
  }

  LdaChunks c_;
  int lane_;
  int item_, step_, last_;
  int group_ = -1, group_begin_ = 0, group_end_ = 0;
};

}  // namespace warpsim::gpu::detail
