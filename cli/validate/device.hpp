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

namespace warpsim::cli::validate::device {

// "" if a CUDA device can be used; otherwise why not.
std::string unavailable();

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

}  // namespace warpsim::cli::validate::device
