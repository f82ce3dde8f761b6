#include "properties/value_samplers.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "oracle/rejection/gamma.hpp"

namespace warpsim::properties {

// gamma:shape,scale -- the two parameters, checked.
void check_gamma_parameters(const std::vector<double>& p) {
  if (p.size() != 2 || !(p[0] > 0) || !(p[1] > 0) || !std::isfinite(p[0]) || !std::isfinite(p[1])) {
    throw std::invalid_argument("gamma draws with two parameters, shape > 0 and scale > 0");
  }
}

// dirichlet:a1,...,aK -- K >= 2 concentrations, each > 0.
void check_dirichlet_parameters(const std::vector<double>& p) {
  if (p.size() < 2 || p.size() > 1024) throw std::invalid_argument("dirichlet draws with 2 to 1024 concentrations, each > 0");
  for (double a : p)
    if (!(a > 0) || !std::isfinite(a)) throw std::invalid_argument("dirichlet draws with 2 to 1024 concentrations, each > 0");
}

namespace {

template <class R>
ValueSampler gamma_oracle() {
  ValueSampler s;
  s.where = "host (the oracle)";
  s.dtype = sizeof(R) == 4 ? "float32" : "float64";
  s.draw = [](const std::vector<double>& p, std::uint64_t n, std::uint64_t seed, std::uint64_t first) {
    check_gamma_parameters(p);
    std::vector<double> out(static_cast<std::size_t>(n));
    const R shape = static_cast<R>(p[0]);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const R g = oracle::rejection::gamma_draw<R>(shape, seed, first + i);
      out[i] = static_cast<double>(static_cast<R>(static_cast<double>(g) * p[1]));
    }
    return out;
  };
  s.clamp_below = gamma_clamp_below<R>;
  return s;
}

ValueSampler dirichlet_oracle() {
  ValueSampler s;
  s.where = "host (the oracle)";
  s.dtype = "float64";
  s.draw = [](const std::vector<double>& p, std::uint64_t n, std::uint64_t seed, std::uint64_t first) {
    check_dirichlet_parameters(p);
    const std::size_t k = p.size();
    std::vector<double> out(static_cast<std::size_t>(n) * k);
    for (std::size_t d = 0; d < n; ++d) {
      const auto x = oracle::rejection::dirichlet_draw(p, seed, (first + d) * k);
      std::copy(x.begin(), x.end(), out.begin() + static_cast<std::ptrdiff_t>(d * k));
    }
    return out;
  };
  return s;
}

std::vector<ValueAlgorithm> make_value_registry() {
  std::vector<ValueAlgorithm> rows;
  rows.push_back({"gamma", "seed 004's rejection loop over Marsaglia-Tsang, shape below 1 boosted by U^(1/a) (oracle/rejection/gamma.hpp)", "gamma",
                  gamma_oracle<double>(), gamma_oracle<float>(), std::nullopt, std::nullopt});
  rows.push_back({"dirichlet", "K gamma variates normalised (oracle/rejection/gamma.hpp's dirichlet_draw, draw d the tasks d K .. d K + K - 1)", "dirichlet",
                  dirichlet_oracle(), std::nullopt, std::nullopt, std::nullopt});
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
