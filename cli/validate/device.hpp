// The CUDA side of validation, where warpsim is built with CUDA: device
// buffers for plugins whose samplers take device memory, and the histogram of
// drawn indices built on the GPU (so 10^9 draws are counted without leaving
// the device). Without CUDA every entry says why it cannot run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warpsim::cli {
struct ArrayView;
}

namespace warpsim::cli::validate::device {

// "" if a CUDA device can be used; otherwise why not.
std::string unavailable();

// Under mpirun, one GPU a rank: this process's CUDA device made its host's
// GPU local_rank mod (the GPUs it sees), before any other CUDA call.
// Returns the ordinal taken, or -1 (local_rank < 0, no CUDA device).
int use_local_rank_device(int local_rank);

class Buffer {
 public:
  Buffer(std::size_t bytes, const std::string& what);  // throws UsageError (out of device memory: says how much)
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;
  void zero();

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// Waits for the device; "" or the CUDA error that is pending (a plugin's
// launch that failed, or faulted).
std::string synchronize_error();

// What the histogram kernel found in n indices drawn from `weights` (k of them).
struct HistogramFindings {
  std::uint64_t out_of_range = 0;
  std::uint64_t first_out_of_range = UINT64_MAX;  // position in the chunk
  std::uint64_t zero_weight = 0;
  std::uint64_t first_zero_weight = UINT64_MAX;
};

// counts[i] += (number of indices == i), on the device; counts is a Buffer
// of k uint64. weights: k values of fp32 (dtype_bytes 4) or fp64 (8).
HistogramFindings histogram(const Buffer& indices, std::uint64_t n, const Buffer& weights, int dtype_bytes, std::int64_t k, Buffer& counts);

// The law check's counts of a device array of indices drawn from one law,
// made on the device where the draws lie (on the view's device and stream):
// per category, and per (batch, cell) for the two-level test (draw e in batch
// e mod `batches`, category i in cell cell_of[i]), as cli/validate/law.hpp's
// LawCounter makes them on the host. `weights`: the law's K weights (a draw
// of weight 0 is noted, and counted). Indices of int32 or int64 only
// (can_count says which views).
struct DeviceLawCounts {
  std::vector<std::uint64_t> counts, batch_counts;
  std::uint64_t draws = 0;
  std::uint64_t out_of_range = 0, first_out_of_range = UINT64_MAX;
  std::uint64_t zero_weight = 0, first_zero_weight = UINT64_MAX;
  double first_zero_weight_index = 0;  // the index drawn there
};
bool can_count(const ArrayView& draws);
DeviceLawCounts count_law(const ArrayView& draws, const std::vector<double>& weights, const std::vector<std::uint32_t>& cell_of, int cells, int batches);

// The law's counts kept on the current device across many arrays of draws
// (a sampler's draws made there chunk after chunk: validate --on gpu) and
// read back once, as count_law makes them for one array. add() counts n
// int32 indices at device address `indices`, the first of them draw `first`
// of the law (so in batch first mod `batches`), and waits for them: a draw
// out of range or of weight 0 is noted with its number and the index drawn,
// while the array is still there to read it from.
class LawTally {
 public:
  LawTally(const std::vector<double>& weights, const std::vector<std::uint32_t>& cell_of, int cells, int batches);
  ~LawTally();
  LawTally(const LawTally&) = delete;
  LawTally& operator=(const LawTally&) = delete;
  void add(const std::int32_t* indices, std::uint64_t n, std::uint64_t first);
  // The counts so far; first_* are draw numbers of the law.
  DeviceLawCounts counts() const;
  std::int64_t first_out_of_range_index() const { return out_of_range_index_; }

 private:
  struct State;
  State* s_ = nullptr;
  std::int64_t out_of_range_index_ = 0;
  double zero_weight_index_ = 0;
  std::uint64_t seen_out_of_range_ = UINT64_MAX, seen_zero_ = UINT64_MAX;
};

// The CUDA device `address` lies on, or -1 for host memory (pageable,
// pinned or managed); UsageError where CUDA cannot say.
int pointer_device(const void* address);

// `bytes` from `address` on CUDA device `device` to `host`, ordered on
// `stream` (a cudaStream_t), and waited for; UsageError (saying `what`) on a
// CUDA error.
void copy_to_host(void* host, const void* address, std::size_t bytes, int device, std::uintptr_t stream, const std::string& what);

}  // namespace warpsim::cli::validate::device
