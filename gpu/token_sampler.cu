// gpu/token_sampler.hpp's dispatch: the plan (blocks a row, whether the row
// fits the cluster's shared memory) and the launch. The kernel is
// gpu/token/row_agent.cuh.
#include "gpu/token_sampler.hpp"

#include <cuda_fp16.h>

#include <algorithm>
#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/dependent_launch.cuh"
#include "gpu/launch.hpp"
#include "gpu/token/row_agent.cuh"

namespace warpsim::gpu {

namespace {

int logit_bytes(LogitType type) { return type == LogitType::F32 ? 4 : 2; }

// Dynamic shared memory of a block holding `slice` elements: the floats
// (plus a vector's worth for alignment) when in_shared, and a prefix sum a
// chunk of 32.
std::size_t token_shared_bytes(std::int64_t slice, bool in_shared, LogitType type) {
  const std::int64_t vec = 16 / logit_bytes(type);
  const std::size_t floats = in_shared ? static_cast<std::size_t>((slice + vec + 3) / 4 * 16) : 0;
  return floats + static_cast<std::size_t>((slice + kChunk - 1) / kChunk) * sizeof(unsigned long long);
}

constexpr std::int64_t kMinSlice = 4096;  // fewer elements a block: not worth a cluster's barriers

template <class In>
void launch(const TokenPlan& plan, const void* logits, int m, std::int64_t k, const TokenParams& params, int draws, int* out,
            cudaStream_t stream) {
  auto kernel = token_rows<In>;
  allow_dynamic_shared(reinterpret_cast<const void*>(kernel), plan.shared_bytes);
  const dim3 grid(static_cast<unsigned>(m) * static_cast<unsigned>(plan.cluster)), block(kTokenThreads);
  const auto* typed = static_cast<const In*>(logits);
  if (plan.cluster == 1) {
    kernel<<<grid, block, plan.shared_bytes, stream>>>(typed, k, plan.slice, plan.in_shared, params, draws, out);
    WARPSIM_CUDA(cudaGetLastError());
  } else {
    detail::launch_clustered(static_cast<unsigned>(plan.cluster), kernel, grid, block, plan.shared_bytes, stream, typed, k, plan.slice,
                             plan.in_shared, params, draws, out);
  }
}

}  // namespace

std::string TokenPlan::describe() const {
  return std::to_string(cluster) + (cluster == 1 ? " block" : " blocks") + " a row, " + std::to_string(slice) + " elements a block, " +
         (in_shared ? "weights in shared memory" : "weights recomputed from the logits each pass") + ", " + std::to_string(shared_bytes) +
         " bytes of dynamic shared memory";
}

TokenPlan TokenSampler::plan(int m, std::int64_t k, LogitType type) {
  const std::size_t budget = max_shared_per_block() - sizeof(TokenShared) - 1024;
  const int sms = multiprocessors();
  // Blocks a row: enough that M rows fill the device, each block at least
  // kMinSlice elements; then enough that the slice fits shared memory.
  int cluster = 1;
  while (cluster < kMaxTokenCluster && static_cast<std::int64_t>(m) * cluster < sms && k / (2 * cluster) >= kMinSlice) cluster *= 2;
  TokenPlan p;
  for (;; cluster *= 2) {
    p.cluster = cluster;
    p.slice = ((k + cluster - 1) / cluster + kChunk - 1) / kChunk * kChunk;
    p.in_shared = token_shared_bytes(p.slice, true, type) <= budget;
    if (p.in_shared || cluster == kMaxTokenCluster) break;
  }
  p.shared_bytes = token_shared_bytes(p.slice, p.in_shared, type);
  return p;
}

void TokenSampler::sample(const void* logits, LogitType type, int m, std::int64_t k, const TokenParams& params, int draws, int* out,
                          cudaStream_t stream) {
  if (m < 1 || m > kMaxRows) throw std::invalid_argument("TokenSampler: M must lie in [1, 65536], got " + std::to_string(m));
  if (k < 1 || k > kMaxK) throw std::invalid_argument("TokenSampler: K must lie in [1, 2^20], got " + std::to_string(k));
  if (draws < 1) throw std::invalid_argument("TokenSampler: draws must be >= 1");
  if (static_cast<std::int64_t>(m) * draws > 2147483647) throw std::invalid_argument("TokenSampler: M x draws past 2^31 - 1");
  const TokenPlan plan = TokenSampler::plan(m, k, type);
  switch (type) {
    case LogitType::F32: launch<float>(plan, logits, m, k, params, draws, out, stream); break;
    case LogitType::BF16: launch<Bf16Bits>(plan, logits, m, k, params, draws, out, stream); break;
    case LogitType::F16: launch<F16Bits>(plan, logits, m, k, params, draws, out, stream); break;
  }
}

}  // namespace warpsim::gpu
