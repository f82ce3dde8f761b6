#include "cli/input/logits.hpp"

#include <stdexcept>

#include "cli/errors.hpp"
#include "cli/input/arrays.hpp"

namespace warpsim::cli {

namespace tok = oracle::token;

std::string Logits::type_name() const { return type == tok::LogitType::F32 ? "f32" : type == tok::LogitType::BF16 ? "bf16" : "f16"; }

Logits read_logits(const InputSource& inputs, const std::string& path, const std::optional<std::string>& logit_type) {
  const auto whole = read_whole_array(inputs, path, static_cast<std::uint64_t>(kMaxLogitRows * kMaxLogitsARow));
  Logits l;
  l.quoted = whole.info.quoted;
  l.vector = whole.vector;
  l.rows = whole.vector ? 1 : static_cast<std::int64_t>(whole.rows);
  l.cols = whole.vector ? static_cast<std::int64_t>(whole.values.size()) : static_cast<std::int64_t>(whole.cols);
  if (l.rows < 1 || l.cols < 1) throw UsageError(l.quoted + " holds no logits");
  if (l.rows > kMaxLogitRows) throw UsageError(l.quoted + " has " + std::to_string(l.rows) + " rows of logits; at most 65,536");
  if (l.cols > kMaxLogitsARow) throw UsageError(l.quoted + " has rows of " + std::to_string(l.cols) + " logits; at most 2^20");
  const std::string dtype = whole.info.dtype();
  const std::string asked = logit_type.value_or(dtype == "uint16" ? "" : dtype == "float16" ? "f16" : "f32");
  if (dtype == "uint16") {
    if (asked != "bf16" && asked != "f16")
      throw UsageError(l.quoted + " is uint16: say --logit-type bf16 or f16 (its values are those types' bit patterns)");
    l.type = asked == "bf16" ? tok::LogitType::BF16 : tok::LogitType::F16;
  } else if (asked == "bf16" || (asked == "f16" && dtype != "float16")) {
    throw UsageError("--logit-type " + asked + " reads a uint16 .npy of bit patterns" + (asked == "f16" ? " or a float16 .npy" : "") + "; " +
                     l.quoted + " is " + dtype);
  } else if (dtype == "float16") {
    l.type = tok::LogitType::F16;
  } else if (dtype != "float32" && dtype != "float64" && dtype != "text") {
    throw UsageError(l.quoted + " is " + dtype + "; logits are float32, float16, text, or bf16/f16 bit patterns (uint16)");
  }
  l.values.resize(whole.values.size());
  for (std::size_t i = 0; i < l.values.size(); ++i) {
    l.values[i] = dtype == "uint16" ? tok::logit_value(static_cast<std::uint16_t>(whole.values[i]), l.type) : static_cast<float>(whole.values[i]);
  }
  return l;
}

std::vector<double> token_law_of_row(const Logits& l, std::int64_t r, const tok::Sampling& s) {
  const std::span<const float> row(l.values.data() + r * l.cols, static_cast<std::size_t>(l.cols));
  try {
    return tok::probabilities(row, s);
  } catch (const std::invalid_argument& e) {
    throw UsageError(l.quoted + (l.rows > 1 ? ", row " + std::to_string(r) : std::string()) + ": " + e.what());
  }
}

std::string refused_sampling(const tok::Sampling& s) {
  auto why = tok::bad_sampling(s);
  if (why.empty()) return why;
  for (std::size_t i = 0; i < why.find(' '); ++i)  // "top_p must ..." as the option is spelt: "--top-p must ..."
    if (why[i] == '_') why[i] = '-';
  return "--" + why;
}

}  // namespace warpsim::cli
