// samplers.hpp's device halves: the kernels of gpu/, on the caller's stream
// and device, into the caller's arrays.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gpu/alias_table.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gamma.hpp"
#include "gpu/sum_tree_sampler.hpp"
#include "gpu/token_sampler.hpp"
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

// Device memory kept between calls, a buffer per device and thread (the
// weights' check's findings and row totals): allocating it each call and
// returning it to the driver cost a check 150 us.
void* scratch(int device, std::size_t bytes) {
  struct Buffer {
    void* p = nullptr;
    std::size_t bytes = 0;
    ~Buffer() {
      if (p) cudaFree(p);
    }
  };
  thread_local std::map<int, Buffer> buffers;
  Buffer& b = buffers[device];
  if (b.bytes < bytes) {
    if (b.p) check(cudaFree(b.p), "cudaFree");
    b.p = nullptr;
    b.bytes = 0;
    check(cudaMalloc(&b.p, bytes), "the weights' check (" + std::to_string(bytes) + " bytes)");
    b.bytes = bytes;
  }
  return b.p;
}

// The weights' check, one pass over them: a block a segment of 8,192 of a
// row's weights (coalesced); findings[0] = the least flat index of a weight
// that is NaN, infinite or negative; totals[r] += the segment's sum (a row's
// total only matters as > 0, so the atomics' order does not).
constexpr std::uint64_t kCheckSegment = 8192;

template <class T>
__global__ void check_weights_kernel(const T* w, std::uint64_t k, std::uint64_t segments, double* totals, unsigned long long* findings) {
  __shared__ double sums[32];
  const std::uint64_t r = blockIdx.x / segments, begin = (blockIdx.x % segments) * kCheckSegment;
  const std::uint64_t end = begin + kCheckSegment < k ? begin + kCheckSegment : k;
  double s = 0;
#pragma unroll 8
  for (std::uint64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    const T x = w[r * k + j];
    if (!(x >= T(0)) || isinf(static_cast<double>(x))) atomicMin(&findings[0], static_cast<unsigned long long>(r * k + j));
    s += static_cast<double>(x);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) sums[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int i = 0; i < static_cast<int>(blockDim.x >> 5); ++i) t += sums[i];
    if (t > 0) atomicAdd(&totals[r], t);
  }
}

__global__ void zero_rows(const double* totals, std::uint64_t m, unsigned long long* findings) {
  const std::uint64_t r = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (r < m && !(totals[r] > 0)) atomicMin(&findings[1], static_cast<unsigned long long>(r));
}

}  // namespace

DeviceWeightFindings check_weights_device(const Array& w, bool fp32, std::uint64_t m, std::uint64_t k) {
  OnDevice on(w.device);
  const auto stream = stream_of(w);
  // One allocation: the two findings, then the M row totals.
  unsigned long long host[2] = {UINT64_MAX, UINT64_MAX};
  auto* f = static_cast<unsigned long long*>(scratch(w.device, sizeof host + m * sizeof(double)));
  auto* totals = reinterpret_cast<double*>(f + 2);
  check(cudaMemcpyAsync(f, host, sizeof host, cudaMemcpyHostToDevice, stream), "copying to the device");
  check(cudaMemsetAsync(totals, 0, m * sizeof(double), stream), "cudaMemsetAsync");
  const std::uint64_t segments = (k + kCheckSegment - 1) / kCheckSegment;
  if (m * segments > 0x7fffffffu) throw BadInput("the weights' check: M x ceil(K / 8192) must be below 2^31");
  const auto blocks = static_cast<unsigned>(m * segments);
  if (fp32) check_weights_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const float*>(w.data), k, segments, totals, f);
  else check_weights_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const double*>(w.data), k, segments, totals, f);
  zero_rows<<<static_cast<unsigned>((m + 255) / 256), 256, 0, stream>>>(totals, m, f);
  check(cudaGetLastError(), "the weights' check");
  check(cudaMemcpyAsync(host, f, sizeof host, cudaMemcpyDeviceToHost, stream), "copying the weights' check");
  check(cudaStreamSynchronize(stream), "the weights' check");
  DeviceWeightFindings out;
  out.bad_flat = host[0];
  out.zero_row = host[1];
  if (out.bad_flat != UINT64_MAX) {
    unsigned char b[8];
    const std::size_t e = fp32 ? 4 : 8;
    check(cudaMemcpy(b, reinterpret_cast<const unsigned char*>(w.data) + out.bad_flat * e, e, cudaMemcpyDeviceToHost), "copying a weight");
    if (fp32) {
      float x;
      std::memcpy(&x, b, 4);
      out.bad_value = x;
    } else {
      std::memcpy(&out.bad_value, b, 8);
    }
  }
  return out;
}

void synchronize(const Array& a) {
  OnDevice on(a.device);
  check(cudaStreamSynchronize(stream_of(a)), "the stream");
}

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
      gpu::gamma_sample(reinterpret_cast<const float*>(shape.data), n, seed, first, reinterpret_cast<float*>(out.data), gpu::GammaLoop::lane, nullptr, stream_of(shape));
    } else {
      gpu::gamma_sample(reinterpret_cast<const double*>(shape.data), n, seed, first, reinterpret_cast<double*>(out.data), gpu::GammaLoop::lane, nullptr, stream_of(shape));
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
    guarded([&] { gpu::gamma_sample(static_cast<const double*>(shapes), total, seed, 0, reinterpret_cast<double*>(out.data), gpu::GammaLoop::lane, nullptr, stream); });
    normalise_rows<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(reinterpret_cast<double*>(out.data), n, k);
    check(cudaGetLastError(), "the Dirichlet kernels");
  }
  check(cudaFreeAsync(shapes, stream), "cudaFreeAsync");
  check(cudaFreeAsync(a, stream), "cudaFreeAsync");
  check(cudaStreamSynchronize(stream), "the Dirichlet draws");
}

std::vector<std::int64_t> sample_tokens_device(const Array& logits, int type, int m, std::int64_t k, const TokenRows& rows, const Array& out,
                                               int draws) {
  OnDevice on(logits.device);
  const cudaStream_t stream = stream_of(logits);
  // The rows' parameters: a device copy of those given per row.
  struct Owned {
    std::vector<void*> p;
    ~Owned() {
      for (void* q : p) cudaFree(q);
    }
  } owned;
  const auto upload = [&](const auto& v, bool always = false) -> const typename std::decay_t<decltype(v)>::value_type* {
    using T = typename std::decay_t<decltype(v)>::value_type;
    if (v.size() <= 1 && !always) return nullptr;
    void* d = nullptr;
    check(cudaMalloc(&d, v.size() * sizeof(T)), "the rows' parameters");
    owned.p.push_back(d);
    check(cudaMemcpyAsync(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, stream), "the rows' parameters");
    return static_cast<const T*>(d);
  };
  std::vector<int> top_k(rows.top_k.size());
  for (std::size_t i = 0; i < top_k.size(); ++i) top_k[i] = static_cast<int>(std::min<std::int64_t>(rows.top_k[i], 1 << 30));
  gpu::TokenParams p;
  p.temperature = upload(rows.temperature), p.temperature_all = rows.temperature[0];
  p.top_k = upload(top_k), p.top_k_all = top_k[0];
  p.top_p = upload(rows.top_p), p.top_p_all = rows.top_p[0];
  p.min_p = upload(rows.min_p), p.min_p_all = rows.min_p[0];
  p.seed = rows.seed_is_batch ? nullptr : upload(rows.seed, true), p.seed_all = rows.seed[0];  // a request's own seed: as given
  p.offset = upload(rows.offset), p.offset_all = rows.offset[0];
  auto* o = reinterpret_cast<int*>(out.data);
  guarded([&] {
    thread_local gpu::TokenSampler sampler;
    sampler.sample(reinterpret_cast<const void*>(logits.data), static_cast<gpu::LogitType>(type), m, k, p, draws, o, stream);
  });
  // The refused rows (-1): each row's first draw, read back.
  std::vector<int> first(static_cast<std::size_t>(m));
  check(cudaMemcpy2DAsync(first.data(), sizeof(int), o, static_cast<std::size_t>(draws) * sizeof(int), sizeof(int), static_cast<std::size_t>(m),
                          cudaMemcpyDeviceToHost, stream),
        "the draws");
  check(cudaStreamSynchronize(stream), "the token sampler");
  std::vector<std::int64_t> refused;
  for (int r = 0; r < m; ++r)
    if (first[static_cast<std::size_t>(r)] < 0) refused.push_back(r);
  return refused;
}

}  // namespace warpsim::python::detail
