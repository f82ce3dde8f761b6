#include "gpu/cuda_check.hpp"
#include "warp_intrinsics_kernels.hpp"

namespace warpsim::gpu_test {

namespace {

__global__ void shuffle_kernel(const ShuffleCase* cases, std::int32_t* out) {
  const ShuffleCase& c = cases[blockIdx.x];
  const int lane = threadIdx.x;
  const std::int32_t v = c.value[lane];
  const int b = c.operand[lane];
  std::int32_t r = 0;
  switch (c.mode) {
    case ShuffleMode::Idx: r = __shfl_sync(0xffffffffu, v, b, c.width); break;
    case ShuffleMode::Up: r = __shfl_up_sync(0xffffffffu, v, static_cast<unsigned>(b), c.width); break;
    case ShuffleMode::Down: r = __shfl_down_sync(0xffffffffu, v, static_cast<unsigned>(b), c.width); break;
    case ShuffleMode::Xor: r = __shfl_xor_sync(0xffffffffu, v, b, c.width); break;
  }
  out[blockIdx.x * 32 + lane] = r;
}

__global__ void vote_kernel(const VoteCase* cases, VoteResult* out) {
  const VoteCase c = cases[blockIdx.x];
  const int lane = threadIdx.x;
  if ((c.active >> lane) & 1u) {
    const bool p = (c.pred >> lane) & 1u;
    out[blockIdx.x].activemask[lane] = __activemask();
    out[blockIdx.x].ballot[lane] = __ballot_sync(c.active, p);
    out[blockIdx.x].any[lane] = __any_sync(c.active, p);
    out[blockIdx.x].all[lane] = __all_sync(c.active, p);
  }
}

template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(std::size_t n) { WARPSIM_CUDA(cudaMalloc(&p, n * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

}  // namespace

std::vector<std::int32_t> run_shuffles(const std::vector<ShuffleCase>& cases) {
  std::vector<std::int32_t> out(cases.size() * 32, -12345);
  if (cases.empty()) return out;
  DeviceBuffer<ShuffleCase> d_cases(cases.size());
  DeviceBuffer<std::int32_t> d_out(out.size());
  WARPSIM_CUDA(cudaMemcpy(d_cases.p, cases.data(), cases.size() * sizeof(ShuffleCase), cudaMemcpyHostToDevice));
  WARPSIM_CUDA(cudaMemcpy(d_out.p, out.data(), out.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  shuffle_kernel<<<static_cast<unsigned>(cases.size()), 32>>>(d_cases.p, d_out.p);
  WARPSIM_CUDA_LAUNCH("shuffle_kernel");
  WARPSIM_CUDA(cudaMemcpy(out.data(), d_out.p, out.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<VoteResult> run_votes(const std::vector<VoteCase>& cases) {
  std::vector<VoteResult> out(cases.size());
  if (cases.empty()) return out;
  DeviceBuffer<VoteCase> d_cases(cases.size());
  DeviceBuffer<VoteResult> d_out(cases.size());
  WARPSIM_CUDA(cudaMemcpy(d_cases.p, cases.data(), cases.size() * sizeof(VoteCase), cudaMemcpyHostToDevice));
  WARPSIM_CUDA(cudaMemset(d_out.p, 0, cases.size() * sizeof(VoteResult)));
  vote_kernel<<<static_cast<unsigned>(cases.size()), 32>>>(d_cases.p, d_out.p);
  WARPSIM_CUDA_LAUNCH("vote_kernel");
  WARPSIM_CUDA(cudaMemcpy(out.data(), d_out.p, cases.size() * sizeof(VoteResult), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace warpsim::gpu_test
