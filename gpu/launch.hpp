// What the samplers' launches share: how many blocks of a kernel are
// resident at once (their grids loop, so scratch is sized by what is
// resident), and a reusable, checked scratch allocation.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace warpsim::gpu {

// Multiprocessors of the current device.
int multiprocessors();

// The current device's memory's peak bandwidth, GB/s: twice its memory
// clock times its bus width (cudaDevAttrMemoryClockRate,
// cudaDevAttrGlobalMemoryBusWidth). Asked once a device and kept: the
// clock's attribute took about 0.5 ms a call on an H200 (CUDA 13), which a
// draw() asking it each call paid (rows-h200-plan-per-call/).
double memory_gbs();

// The current device's L2 cache, bytes (cudaDevAttrL2CacheSize), asked
// once a device and kept as memory_gbs() is.
std::size_t l2_bytes();

// Dynamic shared memory one block may opt in to on the current device.
std::size_t max_shared_per_block();

// Blocks of `kernel` resident on the whole device at once (at least 1).
int resident_blocks(const void* kernel, int threads, std::size_t shared_bytes);

// A grid-stride pass over `items`: a block per `threads` items, at most 8
// blocks a multiprocessor (at least 1).
int grid_for(std::size_t items, int threads);

// A grid-stride loop's grid: the blocks of `kernel` (no dynamic shared
// memory) that fill the device once, no more than `items` need (at least 1).
int resident_grid(const void* kernel, int threads, std::size_t items);

// Lets `kernel` launch with `bytes` of dynamic shared memory on the current
// device (past its default, 48 KB less its static shared memory):
// cudaFuncSetAttribute once for each kernel and device at the largest size
// asked so far, not before every launch -- a host call that sits between
// launches where the GPU waits on them.
void allow_dynamic_shared(const void* kernel, std::size_t bytes);

// Whether the device can read p: device or managed memory, or host memory
// mapped for it (pageable host memory cannot be).
bool device_readable(const void* p);

// Device memory that grows on demand and is freed with the owner.
template <class T>
class DeviceScratch {
 public:
  DeviceScratch() = default;
  ~DeviceScratch() {
    if (p_) cudaFree(p_);  // never throw from a destructor
  }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  // At least `elements` elements (contents undefined).
  T* ensure(std::size_t elements);
  // How many it holds now (0 before the first ensure).
  std::size_t size() const { return elements_; }

 private:
  T* p_ = nullptr;
  std::size_t elements_ = 0;
};

}  // namespace warpsim::gpu
