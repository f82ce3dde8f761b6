// The law an LLM server draws a token from, defined exactly: a row's logits
// as given, a temperature, then top-k, top-p and min-p in that order (Hugging
// Face's order of warpers), and the draw. The kernels (gpu/token_sampler.hpp)
// equal it draw for draw. Every step after the exp is integer arithmetic, so
// no sum depends on an order of addition: the kernels are free to sum in any
// tree and still give this definition's bits.
//
//   1. logits       each exactly a value of its type (fp32, bf16, fp16: all
//                   floats; logit_value() reads bf16 and fp16 bit patterns).
//                   NaN and +inf are refused (naming the token); -inf is a
//                   token of weight 0; a row needs one finite logit.
//   2. temperature  T, a float. T = 0: greedy, the first index of the largest
//                   logit. T > 0: r = 1 / T and s_i = x_i r, each rounded
//                   once (a product a logit, as kernels scale); m = max s_i
//                   (= the largest logit times r, the product being
//                   monotone); where m overflows to +-inf (T tiny, or r
//                   overflowing to inf), greedy as T = 0.
//   3. weights      w_i = rng::exp_f32(s_i - m) (the subtraction rounded once;
//                   rng/exp.hpp: the same bits on host and device): in [0, 1],
//                   the largest exactly 1.
//   4. quanta       q_i = w_i * 2^43 rounded to the nearest integer (ties to
//                   even): exact for w_i >= 2^-20; the largest is 2^43; a
//                   weight below 2^-44 of the largest is 0, never drawn. A row
//                   of K <= 2^20 sums to < 2^64: every sum below is exact.
//   5. top-k        (0 < k < K) v_k = the k-th largest q (with multiplicity);
//                   tokens with q >= v_k stay: ties at the threshold all stay
//                   (as Hugging Face's TopKLogitsWarper keeps them).
//   6. top-p        (p < 1, a float) among the tokens top-k left, W_k their
//                   q's sum and target = ceil(p * W_k) (exactly): v_p = the
//                   largest q such that the tokens with q >= v_p hold at least
//                   target; those stay. The least set of most probable tokens
//                   holding p of the mass, with every tie of its smallest.
//   7. min-p        (p_min > 0, a float) v_m = ceil(p_min * 2^43): tokens with
//                   q >= v_m stay (probability >= p_min times the largest, as
//                   Hugging Face's MinPLogitsWarper).
//   8. the law      v = max(v_k, v_p, v_m); W = sum of q_i >= v; p_i = q_i / W
//                   for q_i >= v, else 0. Untruncated, per token within
//                   (8 max|x / T| + 8) 2^-24 p_i + 2^-43 of softmax(x / T)
//                   (tests/unit/token_law_test.cpp, WithinItsBoundOfSoftmax).
//   9. the draw     draw j of a row with seed s at offset o (a request's seed
//                   and step): U = the 53 bits of rng::uniform<double>(s, o, j)
//                   (stream o, draw j), t = floor(U * W / 2^53) (exact), and
//                   the token i with Q_i <= t < Q_i + q_i, Q_i the sum of the
//                   kept q before i: each token's rate is p_i within 2^-53.
//                   Greedy: every draw the greedy index. (A batch given one
//                   seed s: its callers make row r the request of seed
//                   rng::request_seed(s, r), SplitMix64's output r + 1.)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "rng/exp.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::oracle::token {

__extension__ typedef unsigned __int128 U128;  // GCC's and Clang's 128-bit integer

enum class LogitType { F32, BF16, F16 };

constexpr int kQuantumBits = 43;
constexpr std::int64_t kMaxK = std::int64_t{1} << 20;

// A logit's value from its bits: bf16 is a float32's upper half; fp16 is
// IEEE binary16 (subnormals included). Both are floats exactly.
inline float logit_value(std::uint16_t bits, LogitType type) {
  if (type == LogitType::BF16) {
    const std::uint32_t f = static_cast<std::uint32_t>(bits) << 16;
    float x;
    std::memcpy(&x, &f, 4);
    return x;
  }
  if (type != LogitType::F16) throw std::invalid_argument("logit_value: 16-bit types are bf16 and fp16");
  const int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  float v;
  if (exponent == 0x1f) v = mantissa ? NAN : INFINITY;
  else if (exponent == 0) v = std::ldexp(static_cast<float>(mantissa), -24);
  else v = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  return sign ? -v : v;
}

// The bits of a 16-bit logit x (a value of `type` exactly: logit_value's inverse).
inline std::uint16_t logit_bits(float x, LogitType type) {
  if (type == LogitType::BF16) {
    std::uint32_t f;
    std::memcpy(&f, &x, 4);
    return static_cast<std::uint16_t>(f >> 16);
  }
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const float a = std::fabs(x);
  if (a != a) return 0x7e00;
  if (a == INFINITY) return static_cast<std::uint16_t>(sign | 0x7c00);
  if (a == 0) return sign;
  const int e = std::ilogb(a);
  if (e < -14) return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(a, 24)));  // subnormal
  return static_cast<std::uint16_t>(sign | ((e + 15) << 10) | static_cast<std::uint16_t>(std::ldexp(a, 10 - e) - 1024));
}

struct Sampling {
  float temperature = 1.0f;  // >= 0, finite; 0 is greedy
  std::int64_t top_k = 0;    // >= 0; 0 (or >= K): off
  float top_p = 1.0f;        // in (0, 1]; 1: off
  float min_p = 0.0f;        // in [0, 1]; 0: off
};

// Why a row's parameters are refused ("" if they are not).
inline std::string bad_sampling(const Sampling& s) {
  if (!(s.temperature >= 0) || !std::isfinite(s.temperature)) return "temperature must be finite and >= 0";
  if (s.top_k < 0) return "top_k must be >= 0 (0: off)";
  if (!(s.top_p > 0 && s.top_p <= 1)) return "top_p must lie in (0, 1]";
  if (!(s.min_p >= 0 && s.min_p <= 1)) return "min_p must lie in [0, 1]";
  return "";
}

inline void check(std::span<const float> logits, const Sampling& s) {
  if (logits.empty()) throw std::invalid_argument("a row of no logits");
  if (static_cast<std::int64_t>(logits.size()) > kMaxK) throw std::invalid_argument("a row of more than 2^20 logits");
  if (const auto why = bad_sampling(s); !why.empty()) throw std::invalid_argument(why);
  bool finite = false;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    if (std::isnan(logits[i])) throw std::invalid_argument("logit " + std::to_string(i) + " is NaN");
    if (logits[i] == INFINITY) throw std::invalid_argument("logit " + std::to_string(i) + " is +inf");
    finite = finite || std::isfinite(logits[i]);
  }
  if (!finite) throw std::invalid_argument("every logit is -inf: no token can be drawn");
}

// q = w * 2^43 rounded half to even (w in [0, 1]: the product is exact).
inline std::uint64_t quantum(float w) { return static_cast<std::uint64_t>(std::nearbyint(static_cast<double>(w) * 0x1p43)); }

// ceil(p * w) exactly, for p a float in (0, 1] and w < 2^64.
inline std::uint64_t ceil_mul(float p, std::uint64_t w) {
  int e;
  const float m = std::frexp(p, &e);  // p = m 2^e, m in [0.5, 1)
  const auto mant = static_cast<std::uint64_t>(std::ldexp(m, 24));  // p = mant 2^(e - 24), mant < 2^24
  const U128 product = static_cast<U128>(mant) * w;
  const int shift = 24 - e;  // >= 23
  if (shift >= 128) return product != 0;
  const U128 floor = product >> shift;
  return static_cast<std::uint64_t>(floor + ((floor << shift) != product ? 1 : 0));
}

// 1 / T, rounded once (volatile: never fused into the product that uses it).
inline float reciprocal(float t) {
  volatile float r = 1.0f / t;
  return r;
}

// s - m for s = x r, each rounded once: no fma (volatile keeps the compiler
// from contracting the product into the subtraction).
inline float shifted(float x, float r, float m) {
  volatile float s = x * r;
  return s - m;
}

// The greedy index (first of the largest logits), or -1 where the row is not greedy.
inline std::int64_t greedy_index(std::span<const float> logits, const Sampling& s) {
  const auto top = std::max_element(logits.begin(), logits.end());
  if (s.temperature == 0) return top - logits.begin();
  const float r = reciprocal(s.temperature);
  if (std::isinf(r) || std::isinf(*top * r)) return top - logits.begin();
  return -1;
}

// Steps 1-4: every token's quantum (a greedy row: 2^43 at its index, else 0).
inline std::vector<std::uint64_t> quanta(std::span<const float> logits, const Sampling& s) {
  check(logits, s);
  std::vector<std::uint64_t> q(logits.size(), 0);
  if (const auto g = greedy_index(logits, s); g >= 0) {
    q[static_cast<std::size_t>(g)] = std::uint64_t{1} << kQuantumBits;
    return q;
  }
  const float r = reciprocal(s.temperature);
  const float m = *std::max_element(logits.begin(), logits.end()) * r;
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = quantum(rng::exp_f32(shifted(logits[i], r, m)));
  return q;
}

// Steps 5-8: the least quantum kept, v.
inline std::uint64_t threshold(const std::vector<std::uint64_t>& q, const Sampling& s) {
  std::vector<std::uint64_t> sorted(q);
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  std::uint64_t vk = 0, vp = 0, vm = 0;
  if (s.top_k > 0 && static_cast<std::size_t>(s.top_k) < q.size()) vk = sorted[static_cast<std::size_t>(s.top_k - 1)];
  if (s.top_p < 1) {
    std::uint64_t total = 0;
    for (auto x : sorted)
      if (x >= vk) total += x;
    const std::uint64_t target = ceil_mul(s.top_p, total);
    std::uint64_t sum = 0;
    for (auto x : sorted) {  // the prefix of the largest reaching the target
      sum += x;
      if (sum >= target) {
        vp = x;
        break;
      }
    }
  }
  if (s.min_p > 0) vm = static_cast<std::uint64_t>(std::ceil(static_cast<double>(s.min_p) * 0x1p43));
  return std::max({vk, vp, vm});
}

// The kept quanta (0 for a token not kept).
inline std::vector<std::uint64_t> weights(std::span<const float> logits, const Sampling& s) {
  auto q = quanta(logits, s);
  const auto v = threshold(q, s);
  for (auto& x : q)
    if (x < v) x = 0;
  return q;
}

// The law itself, p_i = q_i / W, each rounded once to double.
inline std::vector<double> probabilities(std::span<const float> logits, const Sampling& s) {
  const auto q = weights(logits, s);
  std::uint64_t total = 0;
  for (auto x : q) total += x;
  std::vector<double> p(q.size());
  for (std::size_t i = 0; i < q.size(); ++i)
    p[i] = static_cast<double>(static_cast<long double>(q[i]) / static_cast<long double>(total));
  return p;
}

// Step 9's index for a uniform's 53 bits over kept quanta summing to `total`.
inline std::size_t locate(const std::vector<std::uint64_t>& q, std::uint64_t total, std::uint64_t u53) {
  const auto t = static_cast<std::uint64_t>((static_cast<U128>(u53) * total) >> 53);
  std::uint64_t below = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (q[i] > 0 && t < below + q[i]) return i;
    below += q[i];
  }
  throw std::logic_error("token::locate: t past the row's total");
}

// The 53 bits of rng::uniform<double>(seed, offset, j).
inline std::uint64_t uniform_bits(std::uint64_t seed, std::uint64_t offset, std::uint32_t j) {
  const auto x = rng::philox_bits(seed, offset, j);
  return ((static_cast<std::uint64_t>(x.v[0]) << 32) | x.v[1]) >> 11;
}

// Draws j = 0 .. n - 1 of a row with a request's seed and offset (step 9).
inline std::vector<std::int64_t> draw(std::span<const float> logits, const Sampling& s, std::uint64_t seed, std::uint64_t offset, int n) {
  const auto q = weights(logits, s);
  std::uint64_t total = 0;
  for (auto x : q) total += x;
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j)
    out[static_cast<std::size_t>(j)] = static_cast<std::int64_t>(locate(q, total, uniform_bits(seed, offset, static_cast<std::uint32_t>(j))));
  return out;
}

}  // namespace warpsim::oracle::token
