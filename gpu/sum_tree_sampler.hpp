// S draws from each row of an M x K row-major weight matrix by the sum-tree
// draw (oracle/sum_tree.hpp: seed 000's block sums then a search inside the
// chosen block, at every level of one binary tree over the row), for rows
// from a few weights to tens of millions, fp32 or fp64. Every index equals
// the oracle's bit for bit, whatever the layout; the draws resolve items down
// to about 2^-45 of their row (docs/resolution.md), where seed 000's fp32
// samplers stop at 2^-24.
//
// Draw s of row r takes rng::uniform<double>(seed, stream = r, draw = s) and
// goes to out[r * S + s]: torch.multinomial(w, S, replacement=True).
//
// Usage:
//   gpu::SumTreeSampler<float> sampler;
//   sampler.draw(d_weights, m, k, /*seed=*/7, /*draws=*/4, d_out);  // d_out: m * 4 ints
//   auto plan = sampler.plan(m, k);  // the layout it chose (plan.describe())
//
// Every CUDA call is checked (gpu/cuda_check.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu/launch.hpp"

namespace warpsim::gpu {

// How rows are laid over the GPU; the result never depends on it.
//   LanesPerRow   K <= 256 E (eight vectors a lane: 1,024 fp32, 512 fp64): a
//                 row on the fewest lanes (a power of two) that hold a vector
//                 each, or on the warp with up to eight vectors a lane; a
//                 warp's rows are consecutive bytes, read at once, and a
//                 draw is found without a search (one draw at a time)
//   ThreadPerRow  K <= 64 E (two vectors a lane: 256 fp32, 128 fp64): a thread a
//                 row, its warp's rows copied to shared memory first
//                 (short rows, many of them)
//   WarpPerRow    K <= G: a warp sums 32 rows one after another, then makes
//                 their draws at once, a lane a row
//   BlockPerRow   up to 32 segments (131,072 fp32, 65,536 fp64): a block a
//                 row, a warp a segment, the row's sums in shared memory
//                 (no scratch, no second kernel), then the block's warps make
//                 its draws (a lane a draw reads one batch of 8 of its
//                 lane's vectors, from the lane's marks: its running sum
//                 after each batch, kept in shared memory); asked, a row
//                 of up to 8 segments is kept in shared memory (one round
//                 of loads; the draws read it there)
//   Segmented     a warp a segment of G weights (4,096 fp32, 2,048 fp64), a
//                 row over as many warps and blocks as it has segments; then
//                 a second kernel, a block a row (or a warp a row: up to 256
//                 segments and 4 draws), builds the row's tree over its
//                 segments and draws (its draws a lane a draw, with 4 or
//                 more a segment, from lane marks the segment pass keeps);
//                 or, asked, the row's last warp to finish draws (up to 32
//                 segments); or a row's cluster (one kernel, up to 64
//                 segments: a row on a thread-block cluster of up to 8
//                 blocks, the segments' sums exchanged in distributed
//                 shared memory, each block finishing the draws that land
//                 in its segments from its lanes' marks: many rows); or,
//                 resident (one kernel, a block of 1 or 4 warps a
//                 segment, the grid held at once), each segment's block
//                 waits for its row's sums and finishes the draws that
//                 land in its segment, kept in shared memory (few rows:
//                 latency)
struct SumTreePlan {
  enum class Layout { Auto, LanesPerRow, ThreadPerRow, WarpPerRow, BlockPerRow, Segmented };
  Layout layout = Layout::Auto;
  int warps_per_block = 0;  // Segmented: 1, 2, 4 or 8; resident (second_pass 3) 1 or 4 (0: plan() chooses)
  // BlockPerRow: 1 copies each row to shared memory first (all its loads
  // in flight at once; the draws read it there), rows of up to 8 segments;
  // 0 reads it from global memory, twice (its draws reading one batch of
  // 8 of a lane's vectors again, from the lane's marks); -1: plan()
  // chooses (0: measured faster wherever 1 had been chosen).
  int keep_rows = -1;
  // Segmented: 1 draws in a second kernel, a block a row (any row); 2 in a
  // second kernel a warp a row (rows of up to 256 segments, up to 4 draws a
  // row, walked); 0 by the row's last warp to finish (rows of up to 32
  // segments; only where asked); 3 in the one kernel, resident (a cooperative
  // launch, a block a segment, of 4 warps where each block has a
  // multiprocessor of its own, else 1, unless asked: each segment's block
  // reads its row's sums once all are posted and finishes the draws that land
  // in its segment, kept in shared memory; rows of up to 512 segments, up to
  // 64 draws, a grid the device holds at once); 4 in the one kernel, a row's
  // blocks a thread-block cluster (warps_per_block 8 unless asked, at most 8
  // blocks a row: rows of up to 64 segments; its draws a lane a draw, each
  // finished by the block that holds its segment); -1: plan() chooses (3 for
  // rows longer than lanes a row hold of up to 512 segments, at most 4 draws a
  // segment and 64 a row, where M x segments is at most 4 warps a
  // multiprocessor, or one with S > 1 draws of several rows; else 4 for rows
  // of 9-64 segments with at most 64 draws where M x segments is at least 32
  // warps a multiprocessor or a row has 16 draws or more; 2 for one draw a row
  // of up to 256 segments where M x segments is at most 4 warps a
  // multiprocessor (asked other knobs than the resident pass has) or M is more
  // than 3 rows a multiprocessor, else 1).
  int second_pass = -1;
  // BlockPerRow, and Segmented (its second kernel, or a row's last warp):
  // 1 walks a warp's round of up to 4 draws with the whole warp (lane j
  // reads vector j of each draw's chosen lane, the round's loads at once:
  // one round trip where a lane a draw makes several; more draws go a lane
  // a draw; the second kernel spreads up to 32 draws a row over its warps,
  // 4 a warp, and a block a row up to 4 a warp over its warps); 0 a lane
  // a draw; -1: plan() chooses (the second kernel: 1,
  // but 0 where M is below the multiprocessors and its walked blocks would
  // be more than two a multiprocessor; the last warp: 1 for at most 4
  // draws; a block a row: 0, its lane a draw reading one batch of 8
  // vectors from its lane's marks). The draws are the same either way.
  int warp_walk = -1;
  // BlockPerRow, and Segmented with a second kernel: the blocks a row's
  // draws go over, each summing the row (or building its tree) and making
  // its share (1 to S); 0: plan() chooses (a block a row: one for every
  // round of draws of its warps' lanes, up to a grid of 16 warps a
  // multiprocessor, and at least two where rows longer than a vector a
  // lane have two rounds or more; the second kernel, walked and M below the
  // multiprocessors: one for every 32 draws, up to one for every 8 while M
  // x blocks is at most the multiprocessors, or, past two such blocks a
  // multiprocessor, a lane a draw and one for every 256; else 1). The
  // draws are the same either way.
  int row_blocks = 0;
  // Segmented with a second kernel (second_pass 1 or 2): 1 has the pass
  // that only sums read the matrix with loads whose lines L2 evicts first
  // (ld.global.cs), so that the sums it writes are still in L2 when the
  // second kernel's chain of trips reads them (not where the pass keeps
  // its lanes' marks); 0 reads it as every other pass does; -1: plan()
  // chooses (1 where the matrix is larger than the device's L2 and at most
  // PlanDevice::kReadOnceMaxL2s times it: an L2-sized matrix read again
  // stays there, and past that the evictions cost the stream more than the
  // trips gain; docs/PERF.md). The draws are the same either way.
  int read_once = -1;
  std::string describe() const;
};

// What plan() takes from a device: its multiprocessors and its memory's
// peak bandwidth, twice the memory clock times the bus width
// (cudaDevAttrMemoryClockRate, cudaDevAttrGlobalMemoryBusWidth): H100 SXM
// 2,619 MHz x 5,120 bits, 3,352 GB/s, 25.4 a multiprocessor (its published
// figures: no H100 was lent to read them); H200 3,201 MHz x 6,016 bits,
// 4,814 GB/s, 36.5 a multiprocessor (read on the device); and its L2's
// bytes (H100 SXM 50 MiB, its published figure; H200 60 MiB, read on the
// device by PlanIsTheRuleOnThisDevicesMultiprocessorsAndMemory).
//
// Usage:
//   gpu::SumTreeSampler<float>::plan_for(gpu::PlanDevice{132, 4814.0}, m, k);
struct PlanDevice {
  int sms = 0;
  double memory_gbs = 0;  // 0: not known (not fast)
  std::size_t l2_bytes = 0;  // its L2 (cudaDevAttrL2CacheSize); 0: not known (never read once)
  // The largest matrix, in L2s, whose pass that only sums reads it once
  // (SumTreePlan::read_once).
  static constexpr std::size_t kReadOnceMaxL2s = 32;
  bool read_once(std::size_t matrix_bytes) const {
    return l2_bytes > 0 && matrix_bytes > l2_bytes && matrix_bytes <= kReadOnceMaxL2s * l2_bytes;
  }
  // At least kFastMemoryGbs a multiprocessor: its segment pass ends soon
  // enough that a row's cluster, whose blocks wait at its barriers for the
  // row's last segment, loses to a second kernel (docs/PERF.md, "Fast
  // memory").
  static constexpr double kFastMemoryGbs = 32.0;
  bool fast_memory() const { return sms > 0 && memory_gbs >= kFastMemoryGbs * sms; }
  // The current device's (gpu/launch.hpp: memory_gbs() asks once a device).
  static PlanDevice current();
};

template <class T>
class SumTreeSampler {
 public:
  // Rows of at most this many weights (the row's tree, 2 P doubles for P
  // segments rounded up to a power of two, is built in shared memory).
  static std::size_t max_k();

  // The longest rows lanes a row hold (eight vectors a lane).
  static std::int64_t lanes_per_row_max_k();
  // The longest rows a thread a row holds (two vectors a lane).
  static std::int64_t thread_per_row_max_k();
  // The layout draw() takes for an M x K matrix, S = draws, on the current
  // device. One draw a row: lanes a row for rows of 1-2 vectors, of 64 in
  // fp32 and of 65-256 vectors, a thread a row for 3-64 vectors (3-63 in
  // fp32). S draws: a thread a row for up to 4 draws of rows of 2-63
  // vectors (fp64 2-64), or 8 of 16-32 vectors (rows of 33-64 only where
  // M is at least 1,024 rows a multiprocessor); else lanes a row for rows
  // of up to 256 vectors whose lanes make them in at most 8 rounds (one
  // where a draw shuffles more than 32 values: fp32 8 vectors a lane), or 32
  // where a lane holds 2 or more vectors, a draw shuffles at most 32
  // values across lanes (fp32 up to 4 vectors a lane, fp64 8) and the
  // rows give every multiprocessor 4 warps, or 64 of rows on 16 or 32
  // lanes where a warp's one step of rows gives every multiprocessor 12
  // warps, or up to 32 draws of rows of 1-2 vectors whose warps are at
  // least the multiprocessors (a warp 32 rows only when asked); more
  // draws than that go a block a row, spread
  // over blocks (row_blocks). Longer rows: a block a row for
  // rows of up to 16 segments, or up to 32 where a row has more draws
  // than its warps' lanes, or where M is at least the multiprocessors and a
  // row has more than 4 draws or M is at least 8 rows a multiprocessor
  // (not kept: a draw reads one batch of its lane's vectors again, from
  // the lane's marks) -- but few rows of up to 512 segments with few
  // draws go resident (second_pass 3) first, and rows of 9-64 segments with
  // at most 64 draws go a row's cluster (second_pass 4) where M x segments
  // is at least 32 warps a multiprocessor or a row has 16 draws or more;
  // else segmented, with the
  // most warps a block (up to 8) that leave two blocks for every
  // multiprocessor, then a second kernel: a warp a row for one draw of
  // rows of up to 256 segments where M x segments is at most 4 warps a
  // multiprocessor or M is more than 3 rows a multiprocessor, else a block
  // a row (its blocks a row: row_blocks).
  // On a device of fast memory (PlanDevice::fast_memory(): the H200, not
  // the H100) one draw of rows of 17-64 segments goes the second kernel,
  // not a row's cluster, below 8 rows a multiprocessor, and so do 2-16
  // draws of rows of 33-64 segments up to 4 rows a multiprocessor where
  // the matrix is read once (past L2); the second kernel goes a warp a row
  // past 2 rows a multiprocessor, not 3.
  // Warps walk few draws together in the second kernel and the last warp
  // (a block a row only where asked). Before a second kernel, the pass
  // that only sums reads a matrix past the device's L2, up to 32 of them,
  // with loads L2 evicts first (read_once). `ask` overrides any of it (docs/PERF.md has each
  // layout's times).
  static SumTreePlan plan(int m, std::int64_t k, const SumTreePlan& ask = {}, int draws = 1);
  // The same rule for `device`, with no CUDA call: plan() is
  // plan_for(PlanDevice::current(), ...). It throws what plan() throws,
  // and on device.sms < 1.
  static SumTreePlan plan_for(const PlanDevice& device, int m, std::int64_t k, const SumTreePlan& ask = {}, int draws = 1);
  // A device of `sms` multiprocessors whose memory is not fast (an H100's).
  static SumTreePlan plan_for(int sms, int m, std::int64_t k, const SumTreePlan& ask = {}, int draws = 1);

  // weights: device, M x K row-major, every weight finite and >= 0 (not
  // checked here: properties/ and the CLI check the host's); out: device, M *
  // draws ints. Asynchronous on `stream`. Throws std::invalid_argument on
  // M < 1, K < 1, K > max_k(), draws < 1, or M * draws past 2^31 - 1, or a
  // plan that cannot hold K or a knob out of range (LanesPerRow past
  // lanes_per_row_max_k(), ThreadPerRow past thread_per_row_max_k(),
  // WarpPerRow past G, BlockPerRow past 32 G, read_once 1 but where the
  // pass that only sums runs, the resident pass past 512 G or
  // 64 draws or other than 1 or 4 warps a block or a grid of M x segments
  // blocks the device cannot hold at once, a row's cluster past 64 segments or
  // 8 blocks or one the device cannot hold, warps_per_block not a power of two
  // up to 8). One call at a time per sampler (its scratch).
  void draw(const T* weights, int m, std::int64_t k, std::uint64_t seed, int draws, int* out, cudaStream_t stream = nullptr,
            const SumTreePlan& ask = {});

 private:
  // plan_for's layout and knobs, all but read_once.
  static SumTreePlan plan_layout(const PlanDevice& device, int m, std::int64_t k, const SumTreePlan& ask, int draws);

  DeviceScratch<double> scratch_;
  DeviceScratch<int> tickets_;     // a row's count of summed segments, 0 between calls
  DeviceScratch<double> posted_;   // the resident pass's posted segment sums, each with its call's epoch
  std::uint64_t resident_epoch_ = 0;  // the resident calls made (the last one's epoch)
  int resident_blocks_[2] = {};    // the resident pass's blocks of 1 and 4 warps the device holds at once (0: not asked yet)
  // Whether the device holds a row's cluster of n blocks of 2^i warps:
  // [i][n], 0 not asked yet, 1 it does, -1 it does not.
  signed char cluster_fits_[4][9] = {};
};

}  // namespace warpsim::gpu
