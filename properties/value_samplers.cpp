#include "properties/value_samplers.hpp"

#include <cmath>
#include <stdexcept>

#include "oracle/rejection/gamma.hpp"

namespace warpsim::properties {

namespace {

// gamma:shape,scale -- the two parameters, checked.
void gamma_parameters(const std::vector<double>& p) {
  if (p.size() != 2 || !(p[0] > 0) || !(p[1] > 0) || !std::isfinite(p[0]) || !std::isfinite(p[1])) {
    throw std::invalid_argument("gamma draws with two parameters, shape > 0 and scale > 0");
  }
}

template <class R>
ValueSampler gamma_oracle() {
  ValueSampler s;
  s.where = "host (the oracle)";
  s.dtype = sizeof(R) == 4 ? "float32" : "float64";
  s.draw = [](const std::vector<double>& p, std::uint64_t n, std::uint64_t seed, std::uint64_t first) {
    gamma_parameters(p);
    std::vector<double> out(static_cast<std::size_t>(n));
    const R shape = static_cast<R>(p[0]);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const R g = oracle::rejection::gamma_draw<R>(shape, seed, first + i);
      out[i] = static_cast<double>(static_cast<R>(static_cast<double>(g) * p[1]));
    }
    return out;
  };
  return s;
}

std::vector<ValueAlgorithm> make_value_registry() {
  std::vector<ValueAlgorithm> rows;
  rows.push_back({"gamma", "seed 004's rejection loop over Marsaglia-Tsang, shape below 1 boosted by U^(1/a) (oracle/rejection/gamma.hpp)", "gamma",
                  gamma_oracle<double>(), gamma_oracle<float>(), std::nullopt, std::nullopt});
  detail::add_gpu_value_entries(rows);
  return rows;
}

}  // namespace

const std::vector<ValueAlgorithm>& value_registry() {
  static const std::vector<ValueAlgorithm> rows = make_value_registry();
  return rows;
}

const ValueAlgorithm& find_value_algorithm(const std::string& name) {
  std::string names;
  for (const auto& a : value_registry()) {
    if (a.name == name) return a;
    names += (names.empty() ? "" : ", ") + a.name;
  }
  throw std::invalid_argument("no sampler of a continuous law named '" + name + "' (there are: " + names + ")");
}

}  // namespace warpsim::properties
