// `warpsim sample`: tokens from a file of logits, as an LLM server draws
// them -- temperature, top-k, top-p, min-p -- by the token law's definition
// (oracle/token/token_law.hpp, docs/tokens.md) on the host, or with
// --device by the GPU kernels (gpu/token_sampler.hpp), whose every draw is
// checked against the definition's.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "cli/input/sources.hpp"

namespace CLI {
class App;
}

namespace warpsim::cli {

struct SampleOptions {
  std::string logits;                    // .npy or text: K logits, or M x K
  std::optional<std::string> logit_type;  // f32 | bf16 | f16 (16-bit types from uint16 bit patterns)
  float temperature = 1.0f;
  std::int64_t top_k = 0;
  float top_p = 1.0f;
  float min_p = 0.0f;
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;  // the request's step
  int draws = 1;
  bool device = false;
  std::string format = "text";  // text | json
  std::optional<std::string> out;  // .npy of int32 draws, M x S
};

inline constexpr std::int64_t kSampleMaxDraws = std::int64_t{1} << 24;   // M x S
inline constexpr std::int64_t kSampleCheckedElements = std::int64_t{1} << 26;  // --device: checked against the definition up to M x K

CLI::App* add_sample_command(CLI::App& app, SampleOptions& o);

// 0; throws UsageError for bad input or options; 1 if --device's draws
// differ from the definition's (a bug to report).
int run_sample(const SampleOptions& o, std::ostream& out, const InputSource& inputs);

}  // namespace warpsim::cli
