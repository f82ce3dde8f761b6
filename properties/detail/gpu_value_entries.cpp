// The registry's GPU samplers of values (properties/value_samplers.hpp),
// where warpsim is built with CUDA: in the value samplers' library, which
// has no RapidCheck.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu/gamma.hpp"
#include "gpu/launch.hpp"  // DeviceScratch
#include "properties/value_samplers.hpp"

namespace warpsim::properties::detail {

namespace {

// Asked once: the reason stays with the answer.
std::string value_device_unavailable() {
  static const std::string why = [] {
    std::string reason;
    return gpu::first_device(&reason) ? std::string() : "no CUDA device: " + reason;
  }();
  return why;
}

// gpu::gamma_sample: every task's shape the law's, scaled on the host (as
// the oracle's entry scales).
template <class T>
ValueSampler gpu_gamma() {
  ValueSampler s;
  s.where = "GPU";
  s.dtype = sizeof(T) == 4 ? "float32" : "float64";
  s.unavailable = value_device_unavailable;
  s.draw = [](const std::vector<double>& p, std::uint64_t n, std::uint64_t seed, std::uint64_t first) {
    check_gamma_parameters(p);
    const std::size_t count = static_cast<std::size_t>(n);
    const std::vector<T> shape(count, static_cast<T>(p[0]));
    gpu::DeviceScratch<T> d_shape, d_out;
    T* ds = d_shape.ensure(count);
    T* dout = d_out.ensure(count);
    WARPSIM_CUDA(cudaMemcpy(ds, shape.data(), count * sizeof(T), cudaMemcpyHostToDevice));
    gpu::gamma_sample<T>(ds, count, seed, first, dout);
    std::vector<T> got(count);
    WARPSIM_CUDA(cudaMemcpy(got.data(), dout, count * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<double> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<double>(static_cast<T>(static_cast<double>(got[i]) * p[1]));
    return out;
  };
  s.clamp_below = gamma_clamp_below<T>;
  return s;
}

}  // namespace

void add_gpu_value_entries(std::vector<ValueAlgorithm>& rows) {
  for (auto& a : rows) {
    if (a.name == "gamma") {
      a.gpu64 = gpu_gamma<double>();
      a.gpu32 = gpu_gamma<float>();
    }
  }
}

}  // namespace warpsim::properties::detail
