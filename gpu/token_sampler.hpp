// Token sampling as LLM servers do it -- temperature, top-k, top-p, min-p --
// from fp32, bf16 or fp16 logits, every draw equal to the exact definition's
// (oracle/token/token_law.hpp, docs/tokens.md): softmax(x / T) through the
// shared exp (rng/exp.hpp), quantised to integers (2^43 for the largest), the
// truncations as thresholds on those integers, the draw the exact inverse of
// their sums. Integer sums do not depend on their order, so the kernel sums
// in whatever tree is fast and still gives the definition's bits. No sort:
// top-k and top-p thresholds are radix selections (counts, then masses) over
// the weights' bits in shared memory.
//
// Row r draws S tokens: draw j from rng::uniform<double>(seed_r, offset_r, j)
// (seed_r = seed[r], or rng::request_seed(seed_all, r))
// (a request's seed and step: the same request and step replay the same
// tokens; the next step draws afresh), at out[r * S + j].
//
// Usage:
//   gpu::TokenSampler sampler;
//   gpu::TokenParams p;  p.temperature_all = 0.7f;  p.top_p_all = 0.9f;  p.seed = d_seeds;  p.offset = d_steps;
//   sampler.sample(d_logits, gpu::LogitType::BF16, m, k, p, /*draws=*/1, d_out);
//   gpu::TokenSampler::plan(m, k, type).describe();  // the layout it takes
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace warpsim::gpu {

enum class LogitType { F32, BF16, F16 };

// Each row's parameters: a device array of M values, or nullptr for the
// scalar beside it on every row -- but for the seed, where the scalar is the
// batch's: row r's request seed is rng::request_seed(seed_all, r), so that
// rows are separate requests (rows of one seed and offset would draw the same
// uniforms) and batches of nearby seeds share none. Refused per row (its draws -1): a
// temperature that is negative or not finite, top_k < 0, top_p outside
// (0, 1], min_p outside [0, 1].
struct TokenParams {
  const float* temperature = nullptr;
  float temperature_all = 1.0f;  // 0: greedy
  const int* top_k = nullptr;
  int top_k_all = 0;  // 0 (or >= K): off
  const float* top_p = nullptr;
  float top_p_all = 1.0f;  // 1: off
  const float* min_p = nullptr;
  float min_p_all = 0.0f;  // 0: off
  const std::uint64_t* seed = nullptr;
  std::uint64_t seed_all = 0;
  const std::uint64_t* offset = nullptr;
  std::uint64_t offset_all = 0;
};

// How a row is laid out: `cluster` blocks of 512 threads (a thread-block
// cluster, sharing their shared memory), each holding a slice of the row; the
// slice's weights kept in shared memory (read from DRAM once) or, for rows too
// long for the cluster's shared memory, recomputed from the logits at each pass.
struct TokenPlan {
  int cluster = 1;
  std::int64_t slice = 0;  // elements a block
  bool in_shared = true;
  std::size_t shared_bytes = 0;
  std::string describe() const;
};

class TokenSampler {
 public:
  static constexpr std::int64_t kMaxK = std::int64_t{1} << 20;
  static constexpr int kMaxRows = 1 << 16;

  // The layout sample() takes on the current device; `ask.cluster` > 0
  // asks for that many blocks a row (1, 2, 4, 8, 16: for benchmarks).
  static TokenPlan plan(int m, std::int64_t k, LogitType type, const TokenPlan& ask = {0});

  // logits: device, M x K row-major, of `type` (bf16/fp16 as their 16-bit
  // patterns); out: device, M * draws ints. A row whose logits hold a NaN or
  // +inf, or only -inf, or whose parameters are refused, gets -1 for every
  // draw (the host callers -- the CLI, Python -- name the row and the reason).
  // Asynchronous on `stream`. Throws std::invalid_argument on M outside
  // [1, 65,536], K outside [1, 2^20], draws < 1 or M * draws past 2^31 - 1.
  void sample(const void* logits, LogitType type, int m, std::int64_t k, const TokenParams& params, int draws, int* out,
              cudaStream_t stream = nullptr, const TokenPlan& ask = {0});
};

}  // namespace warpsim::gpu
