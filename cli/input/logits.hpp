// Logits from a file, for the commands that take them (sample, validate
// --logits): K logits or M rows of K, as float32, float16 or text (rounded
// to float32, as is float64), or a uint16 .npy of bf16 / fp16 bit patterns
// named by --logit-type (numpy has no bfloat16). Each value exactly a value
// of its type, held as a float (oracle/token/token_law.hpp). UsageError,
// naming the file, otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/input/sources.hpp"
#include "oracle/token/token_law.hpp"

namespace warpsim::cli {

inline constexpr std::int64_t kMaxLogitRows = 65536;
inline constexpr std::int64_t kMaxLogitsARow = std::int64_t{1} << 20;

struct Logits {
  std::string quoted;
  oracle::token::LogitType type = oracle::token::LogitType::F32;
  std::int64_t rows = 1, cols = 0;
  bool vector = false;        // one row of logits (a vector, or one number a line)
  std::vector<float> values;  // rows x cols
  std::string type_name() const;  // f32 | bf16 | f16
};

// logit_type: "f32" | "bf16" | "f16", or none (the file's).
Logits read_logits(const InputSource& inputs, const std::string& path, const std::optional<std::string>& logit_type);

// Row r's law under `s` (oracle::token::probabilities), a UsageError naming
// the row and the logit for NaN, +inf and rows of -inf alone.
std::vector<double> token_law_of_row(const Logits& l, std::int64_t r, const oracle::token::Sampling& s);

// The options' message for a refused sampling ("--top-p must lie in (0, 1]"), or "".
std::string refused_sampling(const oracle::token::Sampling& s);

}  // namespace warpsim::cli
