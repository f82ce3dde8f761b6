// The token sampler (oracle/token/token_law.hpp, gpu/token_sampler.hpp) as
// a registry row: it draws from logits, the registry's samplers from
// weights, so a row's weights w are given to it as logits ln w (a weight of
// 0 the logit -inf, never drawn), at temperature 1 and untruncated. Its law
// is then w / sum w within the definition's bound (docs/tokens.md): each
// ln w is rounded once to a float, so a weight's share is off by at most
// about 8 |ln w| 2^-24 of itself, plus 2^-43 of the largest weight from the
// quanta. Row r is the request of rng::request_seed(seed, r) at offset 0 (a
// batch given one seed), its draw j the request's draw j.
//
// Usage:
//   std::vector<float> x = properties::token_logits<float>(m.row(r));
//   auto idx = oracle::token::draw(x, properties::kTokenRowSampling, rng::request_seed(seed, r), 0, draws);
#pragma once

#include <cmath>
#include <span>
#include <vector>

#include "oracle/token/token_law.hpp"

namespace warpsim::properties {

// Temperature 1, no top-k, top-p or min-p.
inline constexpr oracle::token::Sampling kTokenRowSampling{};

// ln w, computed in double and rounded once to float; ln 0 = -inf.
template <class T>
std::vector<float> token_logits(std::span<const T> weights) {
  std::vector<float> x(weights.size());
  for (std::size_t i = 0; i < weights.size(); ++i) x[i] = static_cast<float>(std::log(static_cast<double>(weights[i])));
  return x;
}

}  // namespace warpsim::properties
