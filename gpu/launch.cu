#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/launch_plan.hpp"
#include "gpu/launch.hpp"

namespace warpsim::gpu {

int multiprocessors() {
  int device = 0, sms = 0;
  WARPSIM_CUDA(cudaGetDevice(&device));
  WARPSIM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

namespace {

// ask(device) for the current device, asked once a device and kept (a call
// that throws keeps nothing). Each caller's lambda has its own table.
template <class V, class Ask>
V once_a_device(Ask ask) {
  int device = 0;
  WARPSIM_CUDA(cudaGetDevice(&device));
  static std::mutex lock;
  static std::map<int, V> known;
  const std::lock_guard<std::mutex> hold(lock);
  if (const auto at = known.find(device); at != known.end()) return at->second;
  return known.emplace(device, ask(device)).first->second;
}

}  // namespace

double memory_gbs() {
  return once_a_device<double>([](int device) {
    int khz = 0, bits = 0;
    WARPSIM_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
    WARPSIM_CUDA(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device));
    return 2.0 * khz * 1e3 * (bits / 8.0) / 1e9;  // (double data rate)
  });
}

std::size_t l2_bytes() {
  return once_a_device<std::size_t>([](int device) {
    int bytes = 0;
    WARPSIM_CUDA(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
    return static_cast<std::size_t>(bytes);
  });
}

std::size_t max_shared_per_block() {
  int device = 0, bytes = 0;
  WARPSIM_CUDA(cudaGetDevice(&device));
  WARPSIM_CUDA(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(bytes);
}

int resident_blocks(const void* kernel, int threads, std::size_t shared_bytes) {
  int per_sm = 0;
  WARPSIM_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
  return std::max(1, multiprocessors() * per_sm);
}

int grid_for(std::size_t items, int threads) {
  const std::size_t blocks = (items + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(blocks, static_cast<std::size_t>(multiprocessors()) * 8)));
}

int resident_grid(const void* kernel, int threads, std::size_t items) {
  const auto full = static_cast<std::size_t>(resident_blocks(kernel, threads, 0));
  return static_cast<int>(std::max<std::size_t>(1, std::min(full, (items + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads))));
}

void allow_dynamic_shared(const void* kernel, std::size_t bytes) {
  if (bytes == 0) return;
  int device = 0;
  WARPSIM_CUDA(cudaGetDevice(&device));
  static std::mutex lock;
  static std::map<std::pair<int, const void*>, std::size_t> allowed;  // (device, kernel) -> the most it may take now
  const std::lock_guard<std::mutex> hold(lock);
  const auto [at, first] = allowed.try_emplace({device, kernel}, 0);
  if (first) {
    // Its limit without the attribute: 48 KB less its static shared memory
    // (the 48 KB bound static and dynamic together).
    cudaFuncAttributes attributes{};
    WARPSIM_CUDA(cudaFuncGetAttributes(&attributes, kernel));
    at->second = attributes.maxDynamicSharedSizeBytes;
  }
  if (bytes <= at->second) return;
  WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  at->second = bytes;
}

bool device_readable(const void* p) {
  cudaPointerAttributes a{};
  WARPSIM_CUDA(cudaPointerGetAttributes(&a, p));
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged || (a.type == cudaMemoryTypeHost && a.devicePointer != nullptr);
}

namespace detail {

SharedPlan most_resident(const void* kernel, std::size_t per_warp) {
  int warps_per_block = 0, resident_warps = 0;
  for (int w : {4, 2, 1}) {
    if (w * per_warp > (w == 1 ? max_shared_per_block() : kSharedLimit)) continue;
    WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(w * per_warp)));
    const int resident = resident_blocks(kernel, w * kW, w * per_warp) * w;
    if (resident > resident_warps) warps_per_block = w, resident_warps = resident;
  }
  const std::size_t bytes = warps_per_block * per_warp;
  if (warps_per_block) WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  return {warps_per_block, bytes};
}

}  // namespace detail

template <class T>
T* DeviceScratch<T>::ensure(std::size_t elements) {
  if (elements > elements_) {
    if (p_) WARPSIM_CUDA(cudaFree(p_));
    p_ = nullptr;
    elements_ = 0;
    WARPSIM_CUDA(cudaMalloc(&p_, elements * sizeof(T)));
    elements_ = elements;
  }
  return p_;
}

template class DeviceScratch<float>;
template class DeviceScratch<double>;
template class DeviceScratch<int>;
template class DeviceScratch<unsigned char>;
template class DeviceScratch<unsigned long long>;

}  // namespace warpsim::gpu
