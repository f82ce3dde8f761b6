// samplers.hpp's device halves: the kernels of gpu/, on the caller's stream
// and device, into the caller's arrays.
#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "gpu/alias_table.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gamma.hpp"
#include "gpu/sum_tree_sampler.hpp"
#include "python/src/samplers.hpp"

namespace warpsim::python::detail {

namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw BadInput(what + ": CUDA error " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

// The array's device current while in scope; the caller's restored after.
class OnDevice {
 public:
  explicit OnDevice(int d) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (d != previous_) check(cudaSetDevice(d), "cudaSetDevice");
  }
  ~OnDevice() { cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

cudaStream_t stream_of(const Array& a) { return reinterpret_cast<cudaStream_t>(a.stream); }

// gpu/'s exceptions as the module's.
template <class F>
void guarded(F&& f) {
  try {
    f();
  } catch (const gpu::CudaError& e) {
    throw BadInput(e.what());
  } catch (const std::invalid_argument& e) {
    throw BadInput(e.what());
  }
}

__global__ void normalise_rows(double* x, std::uint64_t n, int k) {
  const std::uint64_t d = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (d >= n) return;
  double* row = x + d * static_cast<std::uint64_t>(k);
  double s = 0;
  for (int i = 0; i < k; ++i) s += row[i];  // in index order, as oracle::rejection::dirichlet_draw
  for (int i = 0; i < k; ++i) row[i] /= s;
}

__global__ void tile(const double* alpha, int k, std::uint64_t n, double* out) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i < n * static_cast<std::uint64_t>(k)) out[i] = alpha[i % static_cast<std::uint64_t>(k)];
}

}  // namespace

std::vector<double> download(const Array& a, bool fp32, std::uint64_t n) {
  OnDevice on(a.device);
  std::vector<double> w(n);
  const std::size_t bytes = n * (fp32 ? 4 : 8);
  std::vector<unsigned char> raw(bytes);
  check(cudaMemcpyAsync(raw.data(), reinterpret_cast<const void*>(a.data), bytes, cudaMemcpyDeviceToHost, stream_of(a)), "copying the weights to the host");
  check(cudaStreamSynchronize(stream_of(a)), "copying the weights to the host");
  for (std::uint64_t i = 0; i < n; ++i) {
    if (fp32) {
      float f;
      std::memcpy(&f, raw.data() + 4 * i, 4);
      w[i] = f;
    } else {
      std::memcpy(&w[i], raw.data() + 8 * i, 8);
    }
  }
  return w;
}

void multinomial_device(const Array& weights, bool fp32, int m, std::int64_t k, const Array& out, int num_samples, std::uint64_t seed) {
  OnDevice on(weights.device);
  auto* o = reinterpret_cast<int*>(out.data);
  guarded([&] {
    // One sampler per device and type, kept: its scratch is reused.
    if (fp32) {
      thread_local gpu::SumTreeSampler<float> s;
      s.draw(reinterpret_cast<const float*>(weights.data), m, k, seed, num_samples, o, stream_of(weights));
    } else {
      thread_local gpu::SumTreeSampler<double> s;
      s.draw(reinterpret_cast<const double*>(weights.data), m, k, seed, num_samples, o, stream_of(weights));
    }
  });
}

struct DeviceAliasTable {
  int device = 0;
  gpu::AliasRow* rows = nullptr;
  gpu::AliasTableInfo info;
  ~DeviceAliasTable() {
    if (rows) cudaFree(rows);
  }
};

std::shared_ptr<DeviceAliasTable> alias_build_device(const Array& weights, bool fp32, std::uint64_t k) {
  OnDevice on(weights.device);
  auto t = std::make_shared<DeviceAliasTable>();
  t->device = weights.device;
  check(cudaMalloc(&t->rows, k * sizeof(gpu::AliasRow)), "the alias table's rows (" + std::to_string(k * sizeof(gpu::AliasRow)) + " bytes)");
  guarded([&] {
    if (fp32) {
      gpu::AliasTableBuilder<float> b;
      t->info = b.build(reinterpret_cast<const float*>(weights.data), k, t->rows, {}, stream_of(weights));
    } else {
      gpu::AliasTableBuilder<double> b;
      t->info = b.build(reinterpret_cast<const double*>(weights.data), k, t->rows, {}, stream_of(weights));
    }
  });
  return t;
}

void alias_sample_device(const DeviceAliasTable& t, const Array& out, std::uint64_t seed, std::uint64_t first, std::uint64_t n) {
  OnDevice on(t.device);
  guarded([&] { gpu::alias_sample(t.rows, t.info, seed, first, n, reinterpret_cast<std::uint32_t*>(out.data), stream_of(out)); });
}

void alias_counts_device(const DeviceAliasTable& t, const Array& out, std::uint64_t n, std::uint64_t seed) {
  OnDevice on(t.device);
  guarded([&] { gpu::alias_sample_counts(t.rows, t.info, seed, 0, n, reinterpret_cast<unsigned long long*>(out.data), stream_of(out)); });
}

void gamma_device(const Array& shape, bool fp32, std::uint64_t n, const Array& out, std::uint64_t seed, std::uint64_t first) {
  OnDevice on(shape.device);
  guarded([&] {
    if (fp32) {
      gpu::gamma_sample(reinterpret_cast<const float*>(shape.data), n, seed, first, reinterpret_cast<float*>(out.data), true, nullptr, stream_of(shape));
    } else {
      gpu::gamma_sample(reinterpret_cast<const double*>(shape.data), n, seed, first, reinterpret_cast<double*>(out.data), true, nullptr, stream_of(shape));
    }
  });
}

void dirichlet_device(const std::vector<double>& alpha, const Array& out, std::uint64_t n, std::uint64_t seed) {
  OnDevice on(out.device);
  const int k = static_cast<int>(alpha.size());
  const auto stream = stream_of(out);
  double *a = nullptr, *shapes = nullptr;
  check(cudaMallocAsync(&a, alpha.size() * sizeof(double), stream), "cudaMallocAsync");
  check(cudaMallocAsync(&shapes, n * alpha.size() * sizeof(double), stream), "the Dirichlet draws' shapes (" + std::to_string(n * alpha.size() * 8) + " bytes)");
  check(cudaMemcpyAsync(a, alpha.data(), alpha.size() * sizeof(double), cudaMemcpyHostToDevice, stream), "copying the concentrations");
  const std::uint64_t total = n * alpha.size();
  if (total > 0) {
    tile<<<static_cast<unsigned>((total + 255) / 256), 256, 0, stream>>>(a, k, n, shapes);
    guarded([&] { gpu::gamma_sample(static_cast<const double*>(shapes), total, seed, 0, reinterpret_cast<double*>(out.data), true, nullptr, stream); });
    normalise_rows<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(reinterpret_cast<double*>(out.data), n, k);
    check(cudaGetLastError(), "the Dirichlet kernels");
  }
  check(cudaFreeAsync(shapes, stream), "cudaFreeAsync");
  check(cudaFreeAsync(a, stream), "cudaFreeAsync");
  check(cudaStreamSynchronize(stream), "the Dirichlet draws");
}

}  // namespace warpsim::python::detail
