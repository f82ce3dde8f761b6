#include "properties/value_mutants.hpp"

#include <cmath>
#include <stdexcept>

#include "oracle/rejection/gamma.hpp"

namespace warpsim::properties {

namespace {

enum class GammaMutation { None, SqueezeX2, BoostForgotten, EarlyFloatCast };

namespace rj = oracle::rejection;

// oracle::rejection::gamma_try with the squeeze as a mutation may write it.
double mutant_try(const rj::GammaConstants<double>& k, const rj::GammaAttempt<double>& a, GammaMutation m) {
  if (!a.ok) return -1;
  const double t = std::fma(k.c, a.normal, 1.0);
  if (!(t > 0)) return -1;
  const double v = t * t * t;
  const double x2 = a.normal * a.normal;
  // mutation squeeze-x2: 0.0331 x^2 for 0.0331 x^4
  const double squeeze = m == GammaMutation::SqueezeX2 ? 1 - 0.0331 * x2 : std::fma(-0.0331, x2 * x2, 1.0);
  if (a.u < squeeze) return k.d * v;
  if (std::log(a.u) < std::fma(0.5, x2, k.d * ((1 - v) + std::log(v)))) return k.d * v;
  return -1;
}

// oracle::rejection::gamma_draw<double> with the mutation.
double mutant_draw(double shape, std::uint64_t seed, std::uint64_t task, GammaMutation m) {
  const rj::GammaConstants<double> k(shape < 1 ? shape + 1 : shape);
  double g = -1;
  for (std::uint32_t j = 0; g < 0; ++j) g = mutant_try(k, rj::gamma_attempt_numbers<double>(seed, task, j), m);
  if (shape < 1 && m != GammaMutation::BoostForgotten)  // mutation boost-forgotten: this step left out
    g = rj::gamma_boost(g, shape, rj::gamma_boost_uniform<double>(seed, task));
  return g;
}

ValueSampler sampler(GammaMutation m) {
  ValueSampler s;
  s.where = "host";
  s.dtype = "float64";
  s.draw = [m](const std::vector<double>& p, std::uint64_t n, std::uint64_t seed, std::uint64_t first) {
    check_gamma_parameters(p);
    std::vector<double> out(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < out.size(); ++i) {
      const double g = mutant_draw(p[0], seed, first + i, m);
      // mutation early-float-cast: the variate through a float before the scale
      out[i] = m == GammaMutation::EarlyFloatCast ? static_cast<double>(static_cast<float>(g)) * p[1] : g * p[1];
    }
    return out;
  };
  s.clamp_below = gamma_clamp_below<double>;
  return s;
}

// oracle::rejection::dirichlet_draw, vector d from tasks (first + d) K + i,
// with the mutation.
ValueSampler dirichlet_sampler(bool last_unnormalised) {
  ValueSampler s;
  s.where = "host";
  s.dtype = "float64";
  s.draw = [last_unnormalised](const std::vector<double>& alpha, std::uint64_t n, std::uint64_t seed, std::uint64_t first) {
    check_dirichlet_parameters(alpha);
    const std::size_t k = alpha.size();
    std::vector<double> out(static_cast<std::size_t>(n) * k);
    for (std::size_t d = 0; d < n; ++d) {
      double* x = out.data() + d * k;
      double sum = 0;
      for (std::size_t i = 0; i < k; ++i) sum += x[i] = rj::gamma_draw(alpha[i], seed, (first + d) * k + i);
      // mutation last-unnormalised: the loop bound K - 1
      for (std::size_t i = 0; i < (last_unnormalised ? k - 1 : k); ++i) x[i] /= sum;
    }
    return out;
  };
  return s;
}

const std::vector<std::string> kGammaLaws = {"gamma:0.01,1", "gamma:0.5,1", "gamma:1,1", "gamma:4,1"};
const std::vector<std::string> kDirichletLaws = {"dirichlet:0.3,1,4"};

}  // namespace

const std::vector<ValueMutant>& value_mutants() {
  static const std::vector<ValueMutant> rows = {
      {"gamma/squeeze-x2", "the squeeze u < 1 - 0.0331 x^4 written u < 1 - 0.0331 x^2", "gamma", sampler(GammaMutation::SqueezeX2), kGammaLaws},
      {"gamma/boost-forgotten", "shape a < 1 drawn as Gamma(a + 1): the factor U^(1/a) left out", "gamma", sampler(GammaMutation::BoostForgotten), kGammaLaws},
      {"gamma/early-float-cast", "the variate held in a float before it is scaled and stored as a double", "gamma", sampler(GammaMutation::EarlyFloatCast),
       kGammaLaws},
      {"dirichlet/last-unnormalised", "the normalising loop runs to K - 1: the last component is left a gamma variate", "dirichlet", dirichlet_sampler(true),
       kDirichletLaws, 100000},
  };
  return rows;
}

const ValueMutant& value_mutant_base(const std::string& law) {
  static const ValueMutant gamma{"gamma", "", "gamma", sampler(GammaMutation::None), kGammaLaws};
  static const ValueMutant dirichlet{"dirichlet", "", "dirichlet", dirichlet_sampler(false), kDirichletLaws, 100000};
  if (law == "dirichlet") return dirichlet;
  if (law == "gamma") return gamma;
  throw std::invalid_argument("no seeded bugs of the " + law + " law");
}

}  // namespace warpsim::properties
