// The kernels of gpu/matrix_sampler.hpp as registry entries: weights copied to
// the device, one MatrixSampler<T>::draw, indices copied back; every CUDA call
// checked. The pairing with the oracle's algorithms is the table below.
#include "properties/detail/gpu_entries.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <memory>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu/launch.hpp"  // DeviceScratch
#include "gpu/matrix_sampler.hpp"
#include "properties/gpu_kernels.hpp"

namespace warpsim::properties::detail {

namespace {

template <class T>
MatrixDraw<T> gpu_draw(gpu::MatrixAlgorithm algorithm) {
  auto sampler = std::make_shared<gpu::MatrixSampler<T>>();  // keeps its scratch across calls
  return [algorithm, sampler](const Matrix<T>& m, std::uint64_t seed) {
    const std::size_t n = static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols);
    gpu::DeviceScratch<T> w;
    gpu::DeviceScratch<int> out;
    T* dw = w.ensure(n);
    int* dout = out.ensure(static_cast<std::size_t>(m.rows));
    WARPSIM_CUDA(cudaMemcpy(dw, m.weights.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    sampler->draw(dw, m.rows, m.cols, seed, algorithm, dout);
    std::vector<int> idx(static_cast<std::size_t>(m.rows));
    WARPSIM_CUDA(cudaMemcpy(idx.data(), dout, idx.size() * sizeof(int), cudaMemcpyDeviceToHost));
    return idx;
  };
}

// Asked once: the reason stays with the answer.
std::string device_unavailable() {
  static const std::string why = [] {
    std::string reason;
    return gpu::first_device(&reason) ? std::string() : "no CUDA device: " + reason;
  }();
  return why;
}

}  // namespace

void add_gpu_entries(std::vector<Algorithm>& rows) {
  for (auto& a : rows) {
    for (const auto& [name, kernel] : matrix_kernels()) {
      if (name != a.name) continue;
      Sampler s{a.name + "@gpu", a.name, "GPU", a.determinism, a.oracle.adds_in_order, gpu_draw<float>(kernel), gpu_draw<double>(kernel), {}};
      s.unavailable = device_unavailable;
      a.gpu = std::move(s);
    }
  }
}

}  // namespace warpsim::properties::detail

namespace warpsim::properties {

const std::vector<std::pair<std::string, gpu::MatrixAlgorithm>>& matrix_kernels() {
  static const std::vector<std::pair<std::string, gpu::MatrixAlgorithm>> kernels = {
      {"baseline-binary", gpu::MatrixAlgorithm::Baseline},
      {"transposed-registers", gpu::MatrixAlgorithm::TransposedRegisters},
      {"butterfly-standard", gpu::MatrixAlgorithm::ButterflyStandard},
      {"butterfly-addsub", gpu::MatrixAlgorithm::ButterflyAddSub},
  };
  return kernels;
}

const std::string& name_of(gpu::MatrixAlgorithm kernel) {
  for (const auto& [name, k] : matrix_kernels())
    if (k == kernel) return name;
  throw std::logic_error("a kernel missing from properties::matrix_kernels()");
}

}  // namespace warpsim::properties
