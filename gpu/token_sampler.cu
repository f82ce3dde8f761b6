// gpu/token_sampler.hpp's dispatch: the plan (blocks a row, whether the row
// fits the cluster's shared memory) and the launch. The kernel is
// gpu/token/row_agent.cuh.
#include "gpu/token_sampler.hpp"

#include <cuda_fp16.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/detail/dependent_launch.cuh"
#include "gpu/launch.hpp"
#include "gpu/token/row_agent.cuh"

namespace warpsim::gpu {

namespace {

int logit_bytes(LogitType type) { return type == LogitType::F32 ? 4 : 2; }

// Dynamic shared memory of a block holding `slice` elements: the floats
// (plus a vector's worth for alignment) when in_shared, a prefix sum a
// chunk, and the selections' key buffer.
std::size_t token_shared_bytes(std::int64_t slice, bool in_shared, LogitType type) {
  const std::int64_t vec = 16 / logit_bytes(type);
  const std::size_t floats = in_shared ? static_cast<std::size_t>((slice + vec + 3) / 4 * 16) : 0;
  return floats + static_cast<std::size_t>((slice + kChunk - 1) / kChunk) * sizeof(unsigned long long) + kKeyBuffer * sizeof(std::uint32_t);
}

constexpr std::int64_t kMinSlice = 4096;      // fewer elements a block: not worth a cluster's barriers
constexpr std::int64_t kTargetSlice = 20480;  // at most: long enough to amortise a row's barriers, short enough for two blocks an SM (docs/perf/tokens.md)

// Whether the device holds a cluster of `cluster` blocks of the kernel with
// `shared` bytes each (asked once a kernel, size and byte count).
template <class In>
bool fits(int cluster, std::size_t shared) {
  static std::mutex mutex;
  static std::map<std::tuple<int, int, std::size_t>, bool> known;  // (device, cluster, bytes)
  int device = 0;
  WARPSIM_CUDA(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(device, cluster, shared);
  if (const auto it = known.find(key); it != known.end()) return it->second;
  auto kernel = token_rows<In>;
  allow_dynamic_shared(reinterpret_cast<const void*>(kernel), shared);
  if (cluster > 8) WARPSIM_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  return known[key] = cluster == 1 || detail::cluster_fits(static_cast<unsigned>(cluster), kernel, dim3(kTokenThreads), shared);
}

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

template <class In>
TokenPlan plan_for(int m, std::int64_t k, LogitType type, int asked) {
  const std::size_t per_block = max_shared_per_block() - sizeof(TokenShared) - 1024;  // one block a multiprocessor
  const std::size_t two_a_sm = per_block / 2 - 1024;                                   // two
  const int sms = multiprocessors();
  const auto slice_of = [&](int c) { return ((k + c - 1) / c + kChunk - 1) / kChunk * kChunk; };
  // Blocks a row: slices of at most kTargetSlice elements (two blocks a
  // multiprocessor, their phases overlapping), more where M rows leave
  // multiprocessors idle (each block at least kMinSlice elements), and
  // enough that two blocks' slices fit a multiprocessor's shared memory.
  int cluster = 1;
  while (cluster < kMaxTokenCluster && slice_of(cluster) > kTargetSlice) cluster *= 2;
  while (cluster < kMaxTokenCluster && static_cast<std::int64_t>(m) * cluster < sms && slice_of(2 * cluster) >= kMinSlice) cluster *= 2;
  while (cluster < kMaxTokenCluster && token_shared_bytes(slice_of(cluster), true, type) > two_a_sm) cluster *= 2;
  if (asked > 0) cluster = asked;
  TokenPlan p;
  p.cluster = cluster;
  p.slice = slice_of(cluster);
  p.in_shared = token_shared_bytes(p.slice, true, type) <= per_block;
  p.shared_bytes = token_shared_bytes(p.slice, p.in_shared, type);
  if (cluster > 8 && !fits<In>(cluster, p.shared_bytes)) {  // a GPC that cannot hold 16: 8, with longer slices
    p.cluster = 8;
    p.slice = slice_of(8);
    p.in_shared = token_shared_bytes(p.slice, true, type) <= per_block;
    p.shared_bytes = token_shared_bytes(p.slice, p.in_shared, type);
  }
  return p;
}

}  // namespace

std::string TokenPlan::describe() const {
  return std::to_string(cluster) + (cluster == 1 ? " block" : " blocks") + " a row, " + std::to_string(slice) + " elements a block, " +
         (in_shared ? "weights in shared memory" : "weights recomputed from the logits each pass") + ", " + std::to_string(shared_bytes) +
         " bytes of dynamic shared memory";
}

TokenPlan TokenSampler::plan(int m, std::int64_t k, LogitType type, const TokenPlan& ask) {
  if (ask.cluster != 0 && (ask.cluster < 1 || ask.cluster > kMaxTokenCluster || (ask.cluster & (ask.cluster - 1))))
    throw std::invalid_argument("TokenSampler: a row's blocks must be 1, 2, 4, 8 or 16, got " + std::to_string(ask.cluster));
  switch (type) {
    case LogitType::BF16: return plan_for<Bf16Bits>(m, k, type, ask.cluster);
    case LogitType::F16: return plan_for<F16Bits>(m, k, type, ask.cluster);
    default: return plan_for<float>(m, k, type, ask.cluster);
  }
}

void TokenSampler::sample(const void* logits, LogitType type, int m, std::int64_t k, const TokenParams& params, int draws, int* out,
                          cudaStream_t stream, const TokenPlan& ask) {
  if (m < 1 || m > kMaxRows) throw std::invalid_argument("TokenSampler: M must lie in [1, 65536], got " + std::to_string(m));
  if (k < 1 || k > kMaxK) throw std::invalid_argument("TokenSampler: K must lie in [1, 2^20], got " + std::to_string(k));
  if (draws < 1) throw std::invalid_argument("TokenSampler: draws must be >= 1");
  if (static_cast<std::int64_t>(m) * draws > 2147483647) throw std::invalid_argument("TokenSampler: M x draws past 2^31 - 1");
  const TokenPlan plan = TokenSampler::plan(m, k, type, ask);
  switch (type) {
    case LogitType::F32: launch<float>(plan, logits, m, k, params, draws, out, stream); break;
    case LogitType::BF16: launch<Bf16Bits>(plan, logits, m, k, params, draws, out, stream); break;
    case LogitType::F16: launch<F16Bits>(plan, logits, m, k, params, draws, out, stream); break;
  }
}

}  // namespace warpsim::gpu
