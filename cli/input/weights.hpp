// Weights from a file, for every command that takes them (validate, alias,
// show): one reader, read_weights, which checks them as a sampler needs them
// (finite, non-negative, each row a distribution, exactly values of the
// precision the sampler uses); and the layouts `show` asks of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/input/sources.hpp"

namespace warpsim::cli {

// The most weights held (M x K).
inline constexpr std::uint64_t kMaxWeights = std::uint64_t{1} << 27;

// K weights (one distribution: a vector, or one number a line) or an M x K
// matrix (one distribution a row), from .npy or text (cli/input/arrays.hpp),
// checked: finite, non-negative, each row with a positive total that its
// precision can hold, rounded to the precision the sampler used (fp32
// refuses what overflows or flushes to 0). The precision: the file's, for
// floats; else `dtype` ("f32" | "f64", default f64), which must not
// contradict a float file's. UsageError, naming the file and the weight,
// otherwise.
struct WeightRules {
  std::optional<std::string> dtype;
  // false: a row may be all 0 (show's views add weights; they draw nothing)
  bool rows_are_distributions = true;
  std::uint64_t max_weights = kMaxWeights;
  // what an fp32 refusal adds: how to do otherwise
  std::string fp32_because = "pass --dtype f64 if the sampler uses doubles";
};
struct Weights {
  std::string quoted;
  bool fp32 = true;
  bool vector = false;       // one distribution
  std::uint64_t rows = 1, cols = 0;
  std::vector<double> values;  // rows x cols, each exactly a value of the precision
  bool rows_differ = false;
};
Weights read_weights(const InputSource& inputs, const std::string& path, const WeightRules& rules);
inline Weights read_weights(const InputSource& inputs, const std::string& path, const std::optional<std::string>& dtype) {
  return read_weights(inputs, path, WeightRules{.dtype = dtype});
}

// W x K weights from `path`, lane after lane, through read_weights (fp32, a
// lane may be all 0): each finite, non-negative and surviving the conversion
// to fp32 (1e39 would become inf, 1e-46 would become 0); exactly W x K of
// them, in any shape. UsageError otherwise.
std::vector<std::vector<float>> read_weight_rows(const InputSource& inputs, const std::string& path, int w, int k);

// W x K small whole weights (0 to 9) from a seeded generator: every partial
// sum is exact, so numeric views read as plainly as the symbolic ones.
std::vector<std::vector<float>> generated_weight_rows(std::uint64_t seed, int w, int k);

}  // namespace warpsim::cli
