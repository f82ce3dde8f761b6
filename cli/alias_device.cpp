#include "cli/alias_device.hpp"

#include <chrono>
#include <stdexcept>

#include "cli/errors.hpp"
#include "cli/validate/device.hpp"
#include "gpu/alias_table.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"

namespace warpsim::cli::alias_device {

namespace {

template <class T>
DeviceBuild build_as(const std::vector<double>& weights, std::size_t psa_plus_group) {
  const std::vector<T> w(weights.begin(), weights.end());  // exact: the values are already of precision T
  validate::device::Buffer dw(w.size() * sizeof(T), "--device: the weights");
  validate::device::Buffer rows(w.size() * sizeof(gpu::AliasRow), "--device: the table");
  dw.upload(w.data(), dw.bytes());
  gpu::AliasTableBuilder<T> builder;
  const auto start = std::chrono::steady_clock::now();
  gpu::AliasBuildConfig config;
  config.psa_plus_group = psa_plus_group;
  const auto info = builder.build(static_cast<const T*>(dw.get()), w.size(), static_cast<gpu::AliasRow*>(rows.get()), config);
  const auto stop = std::chrono::steady_clock::now();
  std::vector<gpu::AliasRow> got(w.size());
  rows.download(got.data(), rows.bytes());
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

DeviceBuild build(const std::vector<double>& weights, bool fp32, std::size_t psa_plus_group) {
  std::string why;
  const auto device = gpu::first_device(&why);
  if (!device) throw UsageError("--device: no usable CUDA device: " + why);
  try {
    DeviceBuild b = fp32 ? build_as<float>(weights, psa_plus_group) : build_as<double>(weights, psa_plus_group);
    b.device = device->name;
    return b;
  } catch (const gpu::CudaError& e) {
    throw UsageError(std::string("--device: ") + e.what());
  } catch (const std::invalid_argument& e) {  // e.g. more than the device holds, with the bytes needed
    throw UsageError(std::string("--device: ") + e.what());
  }
}

}  // namespace warpsim::cli::alias_device
