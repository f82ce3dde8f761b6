// The registry's samplers of continuous laws: each draws the values of a
// law stats/continuous_law.hpp knows, value i of a seed's stream the
// (first + i)-th, with the law's parameters -- the oracle's (on the host, in
// fp64 and fp32) and, where warpsim is built with CUDA, the kernel's.
// `warpsim validate --builtin NAME --law LAW` checks them as it checks a
// plugin's draw_values (cli/validate/values.hpp).
//
//   gamma   Marsaglia-Tsang (seed 004's loop; oracle/rejection/gamma.hpp,
//           gpu/gamma.hpp), shape a boosted by U^(1/a) below 1; the law
//           gamma:shape,scale (the variate is Gamma(shape) x scale)
//   dirichlet  K gamma variates normalised (the oracle's dirichlet_draw, in
//           float64); the law dirichlet:a1,...,aK. A draw is K values:
//           draw(params, n, ...) returns n x K, draw d's first. (The GPU's
//           Dirichlet draws are the LDA sweep's theta and phi, tested there.)
//
// Usage:
//   const auto& g = properties::find_value_algorithm("gamma");
//   auto x = g.oracle64.draw({0.5, 1.0}, 1000, /*seed=*/7, /*first=*/0);
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace warpsim::properties {

struct ValueSampler {
  std::string where;  // "host (the oracle)" | "GPU"
  std::string dtype;  // "float64" | "float32": what its values are computed and stored in
  // Values first .. first + n - 1 of the seed's stream, with the law's
  // parameters; throws std::invalid_argument on parameters it cannot take.
  std::function<std::vector<double>(const std::vector<double>& params, std::uint64_t n, std::uint64_t seed, std::uint64_t first)> draw;
  // Why it cannot run here ("" if it can): the GPU entries without a device.
  std::function<std::string()> unavailable = [] { return std::string(); };
  // Where it clamps its lower tail for the law's parameters, a value it
  // returns for every draw below (empty: no clamp). The gamma samplers return
  // their precision's least normal number for a variate below it (times the
  // scale): validate judges that value as the mass below it, as --clamp-low.
  std::function<double(const std::vector<double>& params)> clamp_below;
};

struct ValueAlgorithm {
  std::string name;     // "gamma"
  std::string listing;  // the method and where it comes from
  std::string law;      // the stats::continuous_law family its draws follow
  ValueSampler oracle64;
  std::optional<ValueSampler> oracle32;
  std::optional<ValueSampler> gpu64, gpu32;
};

const std::vector<ValueAlgorithm>& value_registry();

// The laws' parameters as the samplers take them, std::invalid_argument
// saying what is wanted otherwise: gamma (shape > 0, scale > 0), dirichlet
// (2 to 1024 concentrations, each > 0 and finite).
void check_gamma_parameters(const std::vector<double>& params);
void check_dirichlet_parameters(const std::vector<double>& params);

// The gamma samplers' clamp in precision R (oracle/rejection/gamma.hpp's
// underflow rule): R's least normal number times the scale, as they scale it.
template <class R>
double gamma_clamp_below(const std::vector<double>& params) {
  return static_cast<double>(static_cast<R>(static_cast<double>(std::numeric_limits<R>::min()) * params.at(1)));
}

// Throws std::invalid_argument listing the names.
const ValueAlgorithm& find_value_algorithm(const std::string& name);

namespace detail {
// The GPU entries (properties/detail/gpu_entries.cpp; none without CUDA).
void add_gpu_value_entries(std::vector<ValueAlgorithm>& rows);
}  // namespace detail

}  // namespace warpsim::properties
