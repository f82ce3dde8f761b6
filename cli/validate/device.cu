// device.hpp with CUDA: every call checked; an error that belongs to a
// plugin's launch is returned by synchronize_error() for the caller to blame.
#include <cuda_runtime.h>

#include "cli/errors.hpp"
#include "cli/input/array_view.hpp"
#include "cli/validate/device.hpp"

namespace warpsim::cli::validate::device {

namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw UsageError(what + ": CUDA error " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

// Few categories: each block counts in shared memory (32-bit, at most
// 2^31 draws a block a call) and adds its counts to the global ones once, so
// the atomics on a hot category stay inside the SM.
constexpr int kSharedBins = 8192;

// One draw e of index i, checked and counted (both kernels' per-draw step):
// false where i is out of range (noted in findings[0..1]); a draw of weight
// 0 is noted in findings[2..3] and counted.
template <class I, class T, bool Shared>
__device__ bool note_draw(I i, std::uint64_t e, const T* w, std::int64_t k, unsigned int* local, unsigned long long* counts,
                          unsigned long long* findings) {
  if (i < 0 || i >= k) {
    atomicAdd(&findings[0], 1ull);
    atomicMin(&findings[1], static_cast<unsigned long long>(e));
    return false;
  }
  if (w[i] == T(0)) {
    atomicAdd(&findings[2], 1ull);
    atomicMin(&findings[3], static_cast<unsigned long long>(e));
  }
  if constexpr (Shared) {
    atomicAdd(&local[i], 1u);
  } else {
    atomicAdd(&counts[i], 1ull);
  }
  return true;
}

template <class T, bool Shared>
__global__ void histogram_kernel(const std::int32_t* idx, std::uint64_t n, const T* w, std::int64_t k, unsigned long long* counts,
                                 unsigned long long* findings) {
  __shared__ unsigned int local[Shared ? kSharedBins : 1];
  if constexpr (Shared) {
    for (int i = threadIdx.x; i < k; i += blockDim.x) local[i] = 0;
    __syncthreads();
  }
  for (std::uint64_t e = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    note_draw<std::int32_t, T, Shared>(idx[e], e, w, k, local, counts, findings);
  }
  if constexpr (Shared) {
    __syncthreads();
    for (int i = threadIdx.x; i < k; i += blockDim.x)
      if (local[i]) atomicAdd(&counts[i], static_cast<unsigned long long>(local[i]));
  }
}

template <class T>
void launch_histogram(int blocks, int threads, const std::int32_t* idx, std::uint64_t n, const T* w, std::int64_t k, unsigned long long* c,
                      unsigned long long* f) {
  if (k <= kSharedBins) {
    histogram_kernel<T, true><<<blocks, threads>>>(idx, n, w, k, c, f);
  } else {
    histogram_kernel<T, false><<<blocks, threads>>>(idx, n, w, k, c, f);
  }
}

}  // namespace

std::string unavailable() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  if (n == 0) return "no CUDA device";
  return "";
}

int use_local_rank_device(int local) {
  int n = 0;
  if (local < 0 || cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    return -1;
  }
  const int d = local % n;
  check(cudaSetDevice(d), "choosing GPU " + std::to_string(d) + " for local rank " + std::to_string(local));
  return d;
}

Buffer::Buffer(std::size_t bytes, const std::string& what) : bytes_(bytes) {
  const cudaError_t e = cudaMalloc(&p_, bytes == 0 ? 1 : bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    throw UsageError(what + " needs " + std::to_string(bytes) + " bytes of device memory; " + std::to_string(free) + " of " +
                     std::to_string(total) + " are free");
  }
  check(e, what + " (cudaMalloc of " + std::to_string(bytes) + " bytes)");
}

Buffer::~Buffer() {
  if (p_) cudaFree(p_);  // in a destructor: an error here has been reported by the call that caused it
}

void Buffer::upload(const void* host, std::size_t bytes) { check(cudaMemcpy(p_, host, bytes, cudaMemcpyHostToDevice), "copying to the device"); }
void Buffer::download(void* host, std::size_t bytes) const {
  check(cudaMemcpy(host, p_, bytes, cudaMemcpyDeviceToHost), "copying from the device");
}
void Buffer::zero() { check(cudaMemset(p_, 0, bytes_), "cudaMemset"); }

std::string synchronize_error() {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e == cudaSuccess) return "";
  return std::string("CUDA error ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
}

HistogramFindings histogram(const Buffer& indices, std::uint64_t n, const Buffer& weights, int dtype_bytes, std::int64_t k, Buffer& counts) {
  unsigned long long host[4] = {0, UINT64_MAX, 0, UINT64_MAX};
  Buffer findings(sizeof host, "the histogram's findings");
  findings.upload(host, sizeof host);
  const int threads = 256;
  // A block takes at most 2^31 draws (its shared counters are 32-bit).
  const int blocks = static_cast<int>(std::min<std::uint64_t>((n + threads - 1) / threads, 1024));
  if (n > 0) {
    const auto* idx = static_cast<const std::int32_t*>(indices.get());
    auto* c = static_cast<unsigned long long*>(counts.get());
    auto* f = static_cast<unsigned long long*>(findings.get());
    if (dtype_bytes == 4) {
      launch_histogram(blocks, threads, idx, n, static_cast<const float*>(weights.get()), k, c, f);
    } else {
      launch_histogram(blocks, threads, idx, n, static_cast<const double*>(weights.get()), k, c, f);
    }
    check(cudaGetLastError(), "launching the histogram kernel");
    check(cudaDeviceSynchronize(), "the histogram kernel");
  }
  findings.download(host, sizeof host);
  return {host[0], host[1], host[2], host[3]};
}

}  // namespace warpsim::cli::validate::device

// Device views: counted where they lie, or read through a staging buffer.
namespace warpsim::cli::validate::device {

namespace {

// Restores the caller's current device on leaving.
class OnDevice {
 public:
  explicit OnDevice(int d) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (d != previous_) check(cudaSetDevice(d), "cudaSetDevice(" + std::to_string(d) + ")");
  }
  ~OnDevice() { cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

constexpr int kLawBatchCells = 20 * 64;  // kBatches x kTwoLevelCells (cli/validate/law.hpp)

// One launch covers at most 2^31 draws, so a block's 32-bit shared counters
// cannot wrap. `first` numbers the launch's draws within the array.
// `number`: the law's number of the array's first draw (its batch and the
// findings' positions count from there).
template <class I, bool Shared>
__global__ void law_count_kernel(const I* idx, std::uint64_t first, std::uint64_t n, std::uint64_t number, const double* w, std::int64_t k,
                                 const std::uint32_t* cell_of, int cells, int batches, unsigned long long* counts, unsigned long long* batch_counts,
                                 unsigned long long* findings) {
  __shared__ unsigned int local[Shared ? kSharedBins : 1];
  __shared__ unsigned int batch_local[kLawBatchCells];
  const int batch_cells = batches * cells;
  if constexpr (Shared) {
    for (int i = threadIdx.x; i < k; i += blockDim.x) local[i] = 0;
  }
  for (int i = threadIdx.x; i < batch_cells; i += blockDim.x) batch_local[i] = 0;
  __syncthreads();
  for (std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; j < n; j += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t at = first + j, e = number + at;
    const I i = idx[at];
    if (!note_draw<I, double, Shared>(i, e, w, k, local, counts, findings)) continue;
    if (batch_cells > 0) atomicAdd(&batch_local[static_cast<int>(e % static_cast<std::uint64_t>(batches)) * cells + cell_of[i]], 1u);
  }
  __syncthreads();
  if constexpr (Shared) {
    for (int i = threadIdx.x; i < k; i += blockDim.x)
      if (local[i]) atomicAdd(&counts[i], static_cast<unsigned long long>(local[i]));
  }
  for (int i = threadIdx.x; i < batch_cells; i += blockDim.x)
    if (batch_local[i]) atomicAdd(&batch_counts[i], static_cast<unsigned long long>(batch_local[i]));
}

template <class I>
void launch_law_count(const I* idx, std::uint64_t n, std::uint64_t number, const double* w, std::int64_t k, const std::uint32_t* cell_of, int cells,
                      int batches, unsigned long long* c, unsigned long long* bc, unsigned long long* f, cudaStream_t stream) {
  int sms = 0, device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  constexpr int threads = 512;
  constexpr std::uint64_t kLaunch = std::uint64_t{1} << 31;
  for (std::uint64_t first = 0; first < n; first += kLaunch) {
    const std::uint64_t m = std::min(kLaunch, n - first);
    const int blocks = static_cast<int>(std::min<std::uint64_t>((m + threads - 1) / threads, static_cast<std::uint64_t>(sms) * 4));
    if (k <= kSharedBins) {
      law_count_kernel<I, true><<<blocks, threads, 0, stream>>>(idx, first, m, number, w, k, cell_of, cells, batches, c, bc, f);
    } else {
      law_count_kernel<I, false><<<blocks, threads, 0, stream>>>(idx, first, m, number, w, k, cell_of, cells, batches, c, bc, f);
    }
    check(cudaGetLastError(), "launching the law's counting kernel");
  }
}

}  // namespace

int pointer_device(const void* address) {
  if (const std::string why = unavailable(); !why.empty()) return -1;  // no device: the address is the host's
  cudaPointerAttributes a{};
  check(cudaPointerGetAttributes(&a, address), "asking CUDA where an array lies");
  return a.type == cudaMemoryTypeDevice ? a.device : -1;
}

bool can_count(const ArrayView& v) { return v.device >= 0 && v.kind == ElementKind::Signed && (v.bytes == 4 || v.bytes == 8); }

void copy_to_host(void* host, const void* address, std::size_t bytes, int device, std::uintptr_t stream, const std::string& what) {
  OnDevice on(device);
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  check(cudaMemcpyAsync(host, address, bytes, cudaMemcpyDeviceToHost, s), what);
  check(cudaStreamSynchronize(s), what);
}

DeviceLawCounts count_law(const ArrayView& v, const std::vector<double>& weights, const std::vector<std::uint32_t>& cell_of, int cells, int batches) {
  if (batches * cells > kLawBatchCells) throw UsageError("count_law: more than " + std::to_string(kLawBatchCells) + " batch cells");
  OnDevice on(v.device);
  const auto stream = reinterpret_cast<cudaStream_t>(v.stream);
  const std::size_t k = weights.size();
  const std::size_t bcn = static_cast<std::size_t>(batches) * static_cast<std::size_t>(cells);
  Buffer w(k * sizeof(double), "the law's weights"), c(k * 8, "the law's counts"), bc(std::max<std::size_t>(bcn, 1) * 8, "the batches' counts"),
      cl(std::max<std::size_t>(cell_of.size(), 1) * 4, "the cells"), f(4 * 8, "the counts' findings");
  const unsigned long long init[4] = {0, UINT64_MAX, 0, UINT64_MAX};
  check(cudaMemcpyAsync(w.get(), weights.data(), k * sizeof(double), cudaMemcpyHostToDevice, stream), "copying the weights to the device");
  if (!cell_of.empty()) check(cudaMemcpyAsync(cl.get(), cell_of.data(), cell_of.size() * 4, cudaMemcpyHostToDevice, stream), "copying the cells");
  check(cudaMemcpyAsync(f.get(), init, sizeof init, cudaMemcpyHostToDevice, stream), "copying to the device");
  check(cudaMemsetAsync(c.get(), 0, c.bytes(), stream), "cudaMemsetAsync");
  check(cudaMemsetAsync(bc.get(), 0, bc.bytes(), stream), "cudaMemsetAsync");
  auto* cp = static_cast<unsigned long long*>(c.get());
  auto* bcp = static_cast<unsigned long long*>(bc.get());
  auto* fp = static_cast<unsigned long long*>(f.get());
  const auto* wp = static_cast<const double*>(w.get());
  const auto* cellp = static_cast<const std::uint32_t*>(cl.get());
  const auto kk = static_cast<std::int64_t>(k);
  if (v.bytes == 4) {
    launch_law_count(static_cast<const std::int32_t*>(v.data), v.elements(), 0, wp, kk, cellp, cells, batches, cp, bcp, fp, stream);
  } else {
    launch_law_count(static_cast<const std::int64_t*>(v.data), v.elements(), 0, wp, kk, cellp, cells, batches, cp, bcp, fp, stream);
  }
  DeviceLawCounts out;
  out.counts.resize(k);
  out.batch_counts.resize(bcn);
  unsigned long long found[4];
  check(cudaMemcpyAsync(out.counts.data(), cp, k * 8, cudaMemcpyDeviceToHost, stream), "copying the counts");
  if (bcn) check(cudaMemcpyAsync(out.batch_counts.data(), bcp, bcn * 8, cudaMemcpyDeviceToHost, stream), "copying the batches' counts");
  check(cudaMemcpyAsync(found, fp, sizeof found, cudaMemcpyDeviceToHost, stream), "copying the findings");
  check(cudaStreamSynchronize(stream), "the law's counting kernel");
  out.out_of_range = found[0];
  out.first_out_of_range = found[1];
  out.zero_weight = found[2];
  out.first_zero_weight = found[3];
  for (auto x : out.counts) out.draws += x;
  if (out.zero_weight > 0) {
    unsigned char bytes[8];
    const auto* p = static_cast<const unsigned char*>(v.data) + out.first_zero_weight * static_cast<std::uint64_t>(v.bytes);
    check(cudaMemcpy(bytes, p, static_cast<std::size_t>(v.bytes), cudaMemcpyDeviceToHost), "copying a draw from the device");
    elements_to_doubles(bytes, 1, v.kind, v.bytes, &out.first_zero_weight_index);
  }
  return out;
}

struct LawTally::State {
  State(std::size_t k, std::size_t batch_cells, std::size_t cell_count)
      : w(k * sizeof(double), "the law's weights"),
        c(k * 8, "the law's counts"),
        bc(std::max<std::size_t>(batch_cells, 1) * 8, "the batches' counts"),
        cl(std::max<std::size_t>(cell_count, 1) * 4, "the cells"),
        f(4 * 8, "the counts' findings") {}
  Buffer w, c, bc, cl, f;
  std::int64_t k = 0;
  int cells = 0, batches = 0;
  std::size_t batch_cells = 0;
};

LawTally::LawTally(const std::vector<double>& weights, const std::vector<std::uint32_t>& cell_of, int cells, int batches) {
  if (batches * cells > kLawBatchCells) throw UsageError("LawTally: more than " + std::to_string(kLawBatchCells) + " batch cells");
  const std::size_t bcn = static_cast<std::size_t>(batches) * static_cast<std::size_t>(cells);
  s_ = new State(weights.size(), bcn, cell_of.size());
  s_->k = static_cast<std::int64_t>(weights.size());
  s_->cells = cells;
  s_->batches = batches;
  s_->batch_cells = bcn;
  s_->w.upload(weights.data(), weights.size() * sizeof(double));
  if (!cell_of.empty()) s_->cl.upload(cell_of.data(), cell_of.size() * 4);
  const unsigned long long init[4] = {0, UINT64_MAX, 0, UINT64_MAX};
  s_->f.upload(init, sizeof init);
  s_->c.zero();
  s_->bc.zero();
}

LawTally::~LawTally() { delete s_; }

void LawTally::add(const std::int32_t* indices, std::uint64_t n, std::uint64_t first) {
  if (n == 0) return;
  launch_law_count(indices, n, first, static_cast<const double*>(s_->w.get()), s_->k, static_cast<const std::uint32_t*>(s_->cl.get()), s_->cells,
                   s_->batches, static_cast<unsigned long long*>(s_->c.get()), static_cast<unsigned long long*>(s_->bc.get()),
                   static_cast<unsigned long long*>(s_->f.get()), nullptr);
  check(cudaDeviceSynchronize(), "the law's counting kernel");
  unsigned long long found[4];
  s_->f.download(found, sizeof found);
  // A first finding in this array: its index, read before the array is reused.
  auto index_at = [&](std::uint64_t number) {
    std::int32_t i = 0;
    check(cudaMemcpy(&i, indices + (number - first), sizeof i, cudaMemcpyDeviceToHost), "copying a draw from the device");
    return i;
  };
  if (found[1] != seen_out_of_range_ && found[1] >= first && found[1] < first + n) out_of_range_index_ = index_at(found[1]);
  if (found[3] != seen_zero_ && found[3] >= first && found[3] < first + n) zero_weight_index_ = index_at(found[3]);
  seen_out_of_range_ = found[1];
  seen_zero_ = found[3];
}

DeviceLawCounts LawTally::counts() const {
  DeviceLawCounts out;
  out.counts.resize(static_cast<std::size_t>(s_->k));
  out.batch_counts.resize(s_->batch_cells);
  s_->c.download(out.counts.data(), out.counts.size() * 8);
  if (!out.batch_counts.empty()) s_->bc.download(out.batch_counts.data(), out.batch_counts.size() * 8);
  unsigned long long found[4];
  s_->f.download(found, sizeof found);
  out.out_of_range = found[0];
  out.first_out_of_range = found[1];
  out.zero_weight = found[2];
  out.first_zero_weight = found[3];
  out.first_zero_weight_index = zero_weight_index_;
  for (auto x : out.counts) out.draws += x;
  return out;
}

}  // namespace warpsim::cli::validate::device
