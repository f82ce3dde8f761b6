#include "cli/input/weights.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "cli/errors.hpp"
#include "cli/input/arrays.hpp"
#include "stats/input_checks.hpp"  // number_text

namespace warpsim::cli {

namespace {

std::string g(double v) { return stats::number_text(v); }

}  // namespace

Weights read_weights(const InputSource& inputs, const std::string& path, const WeightRules& rules) {
  const auto& dtype = rules.dtype;
  auto a = read_whole_array(inputs, path, rules.max_weights);
  Weights w;
  w.quoted = a.info.quoted;
  if (a.info.kind == ElementKind::Float) {
    const bool file_fp32 = a.info.bytes == 4;
    if (dtype && (*dtype == "f32") != file_fp32) {
      throw UsageError("--dtype " + *dtype + " contradicts " + w.quoted + ", which holds " + a.info.dtype());
    }
    w.fp32 = file_fp32;
  } else {
    w.fp32 = dtype.value_or("f64") == "f32";
  }
  w.vector = a.vector;
  w.rows = a.rows;
  w.cols = a.cols;
  if (w.cols > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) throw UsageError(w.quoted + " has more than 2^31 - 1 weights a row");
  w.values = std::move(a.values);
  const char* prec = w.fp32 ? "fp32" : "fp64";
  for (std::uint64_t r = 0; r < w.rows; ++r) {
    long double total = 0;
    for (std::uint64_t j = 0; j < w.cols; ++j) {
      double& v = w.values[r * w.cols + j];
      auto where = [&] {
        return w.quoted + ": weight " + (w.vector ? std::to_string(j) : "(" + std::to_string(r) + ", " + std::to_string(j) + ")") + " is " + g(v);
      };
      if (std::isnan(v)) throw UsageError(where() + ": not a number");
      if (std::isinf(v)) throw UsageError(where() + ": infinite");
      if (v < 0) throw UsageError(where() + ": negative");
      if (w.fp32) {
        const float f = static_cast<float>(v);
        if (std::isinf(f)) throw UsageError(where() + ", which overflows fp32 (" + rules.fp32_because + ")");
        if (v > 0 && f == 0) throw UsageError(where() + ", which rounds to 0 in fp32 (" + rules.fp32_because + ")");
        v = f;
      }
      total += v;
    }
    if (total == 0 && rules.rows_are_distributions) {
      throw UsageError(w.quoted + (w.vector ? " has" : ": row " + std::to_string(r) + " has") +
                       " no positive weight: there is no distribution to draw from");
    }
    if (w.fp32 ? total > static_cast<long double>(std::numeric_limits<float>::max())
               : total > static_cast<long double>(std::numeric_limits<double>::max())) {
      throw UsageError(w.quoted + (w.vector ? "" : ", row " + std::to_string(r)) + ": the weights sum past the largest " + prec +
                       " value, so no sampler can form their total");
    }
  }
  for (std::uint64_t r = 1; r < w.rows && !w.rows_differ; ++r) {
    w.rows_differ = std::memcmp(w.values.data(), w.values.data() + r * w.cols, w.cols * sizeof(double)) != 0;
  }
  return w;
}


std::vector<std::vector<float>> read_weight_rows(const InputSource& inputs, const std::string& path, int w, int k) {
  const auto n = static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(k);
  const auto read = read_weights(inputs, path,
                                 {.dtype = "f32", .rows_are_distributions = false, .max_weights = n, .fp32_because = "the views compute in fp32"});
  if (read.values.size() != n) {
    throw UsageError(read.quoted + " holds " + std::to_string(read.values.size()) + " numbers; W x K = " + std::to_string(n) +
                     " are needed (lane r's K weights, lane after lane)");
  }
  std::vector<std::vector<float>> rows(static_cast<std::size_t>(w));
  for (int r = 0; r < w; ++r) {
    for (int i = 0; i < k; ++i) rows[static_cast<std::size_t>(r)].push_back(static_cast<float>(read.values[static_cast<std::size_t>(r * k + i)]));
  }
  return rows;
}

std::vector<std::vector<float>> generated_weight_rows(std::uint64_t seed, int w, int k) {
  std::mt19937 rng(static_cast<std::mt19937::result_type>(seed));
  std::vector<std::vector<float>> rows(static_cast<std::size_t>(w), std::vector<float>(static_cast<std::size_t>(k)));
  for (auto& row : rows)
    for (auto& x : row) x = static_cast<float>(rng() % 10);
  return rows;
}

}  // namespace warpsim::cli
