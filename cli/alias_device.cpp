#include "cli/alias_device.hpp"

#include <chrono>
#include <stdexcept>

#include "cli/errors.hpp"
#include "gpu/alias_table.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"

namespace warpsim::cli::alias_device {

namespace {

template <class T>
struct DeviceVector {
  T* p = nullptr;
  explicit DeviceVector(std::size_t n) {
    const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T));
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw UsageError("--device: cannot allocate " + std::to_string(n * sizeof(T)) + " bytes on the device: " + cudaGetErrorString(e));
    }
  }
  ~DeviceVector() { cudaFree(p); }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
};

template <class T>
DeviceBuild build_as(const std::vector<double>& weights) {
  const std::vector<T> w(weights.begin(), weights.end());  // exact: the values are already of precision T
  DeviceVector<T> dw(w.size());
  DeviceVector<gpu::AliasRow> rows(w.size());
  WARPSIM_CUDA(cudaMemcpy(dw.p, w.data(), w.size() * sizeof(T), cudaMemcpyHostToDevice));
  gpu::AliasTableBuilder<T> builder;
  const auto start = std::chrono::steady_clock::now();
  const auto info = builder.build(dw.p, w.size(), rows.p);
  const auto stop = std::chrono::steady_clock::now();
  std::vector<gpu::AliasRow> got(w.size());
  WARPSIM_CUDA(cudaMemcpy(got.data(), rows.p, got.size() * sizeof(gpu::AliasRow), cudaMemcpyDeviceToHost));
  DeviceBuild out;
  out.exponent = info.exponent;
  out.capacity = info.capacity;
  out.milliseconds = std::chrono::duration<double, std::milli>(stop - start).count();
  for (const auto& r : got) {
    out.threshold.push_back(r.threshold);
    out.alias.push_back(r.alias);
  }
  return out;
}

}  // namespace

DeviceBuild build(const std::vector<double>& weights, bool fp32) {
  std::string why;
  const auto device = gpu::first_device(&why);
  if (!device) throw UsageError("--device: no usable CUDA device: " + why);
  try {
    DeviceBuild b = fp32 ? build_as<float>(weights) : build_as<double>(weights);
    b.device = device->name;
    return b;
  } catch (const gpu::CudaError& e) {
    throw UsageError(std::string("--device: ") + e.what());
  } catch (const std::invalid_argument& e) {  // e.g. more than the device holds, with the bytes needed
    throw UsageError(std::string("--device: ") + e.what());
  }
}

}  // namespace warpsim::cli::alias_device
