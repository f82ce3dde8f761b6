// The law an LLM server draws a token from, defined exactly (issue 52's
// first part): a row's logits as given, a temperature, then top-k, top-p and
// min-p, in that order (Hugging Face's order of warpers), and the draw by the
// sum tree's descent (oracle/sum_tree.hpp, resolution 2^-36 of the kept mass).
// The GPU kernels to come must equal it draw for draw.
//
//   1. logits       each exactly a value of its type (fp32, bf16, fp16: held as
//                   doubles; logit_value() reads bf16 and fp16 bit patterns).
//                   NaN and +inf are refused (std::invalid_argument, naming the
//                   token); -inf is a token of weight 0; a row needs one finite.
//   2. temperature  T = 0: greedy, the first index of the largest logit.
//                   T > 0: s_i = x_i / T, one rounding in double; where that
//                   overflows to +inf (T tiny), greedy as T = 0.
//   3. weights      w_i = rng::exp(s_i - max s), the subtraction rounded once,
//                   rng/exp.hpp's e^x (the same bits on host and device): the
//                   largest token's weight is exactly 1.
//   4. top-k        (0 < k < K) keep every token whose weight is >= the k-th
//                   largest weight: ties at the threshold are all kept (as
//                   Hugging Face's TopKLogitsWarper keeps them), so a row may
//                   keep more than k.
//   5. top-p        (p < 1) tokens in order of weight, largest first, ties by
//                   index; W = their weights summed in that order (double);
//                   keep the shortest prefix whose sum reaches p * W (one
//                   rounding), and every token tied with its last. The least
//                   set of most probable tokens holding at least p of the kept
//                   mass (Hugging Face keeps that set too, but breaks ties by
//                   its sort's order).
//   6. min-p        (p_min > 0) keep every token whose weight is >= p_min (the
//                   largest kept weight being 1: probability >= p_min times the
//                   largest probability, as Hugging Face's MinPLogitsWarper).
//   7. the draw     draw j of a row with seed s and offset o (a request's seed
//                   and step, as plugin.h's version 3 passes them): u =
//                   rng::uniform<double>(s, o + j), the index the sum tree's
//                   descent gives over the kept weights (0 elsewhere).
//
// The law is p_i = w_i / sum of the kept w (a token of weight 0 is never
// drawn). Greedy ignores the truncations (they all keep the largest token).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "oracle/sum_tree.hpp"
#include "rng/exp.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::oracle::token {

enum class LogitType { F32, BF16, F16 };

// A logit's value from its bits: bf16 is a float32's upper half; fp16 is
// IEEE binary16 (subnormals included).
inline double logit_value(std::uint16_t bits, LogitType type) {
  if (type == LogitType::BF16) {
    const std::uint32_t f = static_cast<std::uint32_t>(bits) << 16;
    float x;
    std::memcpy(&x, &f, 4);
    return x;
  }
  if (type != LogitType::F16) throw std::invalid_argument("logit_value: 16-bit types are bf16 and fp16");
  const int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double v;
  if (exponent == 0x1f) v = mantissa ? std::nan("") : INFINITY;
  else if (exponent == 0) v = std::ldexp(mantissa, -24);
  else v = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -v : v;
}

struct Sampling {
  double temperature = 1.0;  // >= 0, finite; 0 is greedy
  std::int64_t top_k = 0;    // 0: off
  double top_p = 1.0;        // in (0, 1]; 1: off
  double min_p = 0.0;        // in [0, 1]; 0: off
};

inline void check(std::span<const double> logits, const Sampling& s) {
  if (logits.empty()) throw std::invalid_argument("a row of no logits");
  if (!(s.temperature >= 0) || !std::isfinite(s.temperature)) throw std::invalid_argument("temperature must be finite and >= 0");
  if (s.top_k < 0) throw std::invalid_argument("top_k must be >= 0 (0: off)");
  if (!(s.top_p > 0 && s.top_p <= 1)) throw std::invalid_argument("top_p must lie in (0, 1]");
  if (!(s.min_p >= 0 && s.min_p <= 1)) throw std::invalid_argument("min_p must lie in [0, 1]");
  bool finite = false;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    if (std::isnan(logits[i])) throw std::invalid_argument("logit " + std::to_string(i) + " is NaN");
    if (logits[i] == INFINITY) throw std::invalid_argument("logit " + std::to_string(i) + " is +inf");
    finite = finite || std::isfinite(logits[i]);
  }
  if (!finite) throw std::invalid_argument("every logit is -inf: no token can be drawn");
}

// The kept weights of steps 1-6 (0 for a token not kept; the largest is 1).
inline std::vector<double> weights(std::span<const double> logits, const Sampling& s) {
  check(logits, s);
  const std::size_t k = logits.size();
  std::vector<double> w(k, 0.0);
  const auto greedy = [&] {
    w[static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin())] = 1.0;
    return w;
  };
  if (s.temperature == 0) return greedy();
  std::vector<double> scaled(k);
  for (std::size_t i = 0; i < k; ++i) scaled[i] = logits[i] / s.temperature;
  const double top = *std::max_element(scaled.begin(), scaled.end());
  if (top == INFINITY) return greedy();  // x / T overflowed: the limit T -> 0, as T = 0
  for (std::size_t i = 0; i < k; ++i) w[i] = std::isinf(scaled[i]) ? 0.0 : rng::exp(scaled[i] - top);
  if (s.top_k > 0 && static_cast<std::size_t>(s.top_k) < k) {
    std::vector<double> sorted(w);
    std::nth_element(sorted.begin(), sorted.begin() + (s.top_k - 1), sorted.end(), std::greater<>());
    const double threshold = sorted[static_cast<std::size_t>(s.top_k - 1)];
    for (double& x : w)
      if (x < threshold) x = 0;
  }
  if (s.top_p < 1) {
    std::vector<std::size_t> order(k);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return w[a] > w[b]; });
    double total = 0;
    for (auto i : order) total += w[i];
    const double target = s.top_p * total;
    double sum = 0;
    std::size_t kept = 0;
    while (kept < k && sum < target) sum += w[order[kept++]];
    const double last = w[order[kept - 1]];
    while (kept < k && w[order[kept]] == last) ++kept;  // ties with the last kept
    for (std::size_t j = kept; j < k; ++j) w[order[j]] = 0;
  }
  if (s.min_p > 0) {
    for (double& x : w)
      if (x < s.min_p) x = 0;
  }
  return w;
}

// The law itself: p_i = w_i / sum w, in long double then rounded.
inline std::vector<double> probabilities(std::span<const double> logits, const Sampling& s) {
  const auto w = weights(logits, s);
  long double total = 0;
  for (double x : w) total += x;
  std::vector<double> p(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) p[i] = static_cast<double>(w[i] / total);
  return p;
}

// Draws j = 0 .. n - 1 of a row with a request's seed and offset (step 7).
inline std::vector<std::int64_t> draw(std::span<const double> logits, const Sampling& s, std::uint64_t seed, std::uint64_t offset, int n) {
  const auto w = weights(logits, s);
  const sum_tree::Row<double> row{std::span<const double>(w)};
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) out[static_cast<std::size_t>(j)] = static_cast<std::int64_t>(row.draw(rng::uniform<double>(seed, offset + static_cast<std::uint64_t>(j))));
  return out;
}

}  // namespace warpsim::oracle::token
