#include "stats/continuous_law.hpp"

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/uniform.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace warpsim::stats {

namespace {

namespace bm = boost::math;

struct Form {
  const char* name;
  const char* parameters;  // as the user writes them
  std::size_t count;
};

constexpr Form kForms[] = {
    {"uniform", "a,b", 2},         {"normal", "mu,sigma", 2}, {"exponential", "rate", 1},
    {"gamma", "shape,scale", 2},   {"beta", "a,b", 2},        {"truncated-normal", "mu,sigma,lo,hi", 4},
};

[[noreturn]] void refuse(const std::string& spec, const std::string& why) {
  throw std::invalid_argument("law '" + spec + "': " + why + " (the forms: " + continuous_law_forms() + ")");
}

std::vector<double> numbers(const std::string& spec, const std::string& text) {
  std::vector<double> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    const std::string piece = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(piece.c_str(), &end);
    if (piece.empty() || end != piece.c_str() + piece.size() || errno == ERANGE || !std::isfinite(v)) {
      refuse(spec, "'" + piece + "' is not a finite number");
    }
    out.push_back(v);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

}  // namespace

std::string continuous_law_forms() {
  std::string s;
  for (const auto& f : kForms) s += (s.empty() ? "" : ", ") + std::string(f.name) + ":" + f.parameters;
  return s;
}

std::string ContinuousLaw::describe() const {
  std::ostringstream s;
  s << name << " (";
  for (std::size_t i = 0; i < parameters.size(); ++i) s << (i ? ", " : "") << parameters[i];
  s << ")";
  return s.str();
}

ContinuousLaw continuous_law(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos) refuse(spec, "give NAME:PARAMETERS");
  ContinuousLaw law;
  law.name = spec.substr(0, colon);
  const Form* form = nullptr;
  for (const auto& f : kForms)
    if (law.name == f.name) form = &f;
  if (!form) refuse(spec, "'" + law.name + "' is not a law warpsim knows");
  law.parameters = numbers(spec, spec.substr(colon + 1));
  if (law.parameters.size() != form->count) {
    refuse(spec, law.name + " takes " + std::to_string(form->count) + " parameters (" + form->parameters + "), " +
                     std::to_string(law.parameters.size()) + " given");
  }
  const auto& p = law.parameters;
  const double inf = std::numeric_limits<double>::infinity();
  const auto positive = [&](std::size_t i, const char* what) {
    if (!(p[i] > 0)) refuse(spec, std::string(what) + " must be > 0");
  };
  if (law.name == "uniform") {
    if (!(p[0] < p[1])) refuse(spec, "a must be below b");
    const double a = p[0], b = p[1];
    law.lower = a;
    law.upper = b;
    // (x - a) / (b - a), exactly 0 and 1 outside: Boost's uniform refuses x outside [a, b]
    law.cdf = [a, b](double x) { return x <= a ? 0.0 : x >= b ? 1.0 : (x - a) / (b - a); };
    law.sf = [a, b](double x) { return x <= a ? 1.0 : x >= b ? 0.0 : (b - x) / (b - a); };
  } else if (law.name == "normal") {
    positive(1, "sigma");
    const bm::normal_distribution<double> d(p[0], p[1]);
    law.lower = -inf;
    law.upper = inf;
    law.cdf = [d](double x) { return bm::cdf(d, x); };
    law.sf = [d](double x) { return bm::cdf(bm::complement(d, x)); };
  } else if (law.name == "exponential") {
    positive(0, "rate");
    const bm::exponential_distribution<double> d(p[0]);
    law.lower = 0;
    law.upper = inf;
    law.cdf = [d](double x) { return x <= 0 ? 0.0 : bm::cdf(d, x); };
    law.sf = [d](double x) { return x <= 0 ? 1.0 : bm::cdf(bm::complement(d, x)); };
  } else if (law.name == "gamma") {
    positive(0, "shape");
    positive(1, "scale");
    const bm::gamma_distribution<double> d(p[0], p[1]);
    law.lower = 0;
    law.upper = inf;
    law.cdf = [d](double x) { return x <= 0 ? 0.0 : bm::cdf(d, x); };
    law.sf = [d](double x) { return x <= 0 ? 1.0 : bm::cdf(bm::complement(d, x)); };
  } else if (law.name == "beta") {
    positive(0, "a");
    positive(1, "b");
    const bm::beta_distribution<double> d(p[0], p[1]);
    law.lower = 0;
    law.upper = 1;
    law.cdf = [d](double x) { return x <= 0 ? 0.0 : x >= 1 ? 1.0 : bm::cdf(d, x); };
    law.sf = [d](double x) { return x <= 0 ? 1.0 : x >= 1 ? 0.0 : bm::cdf(bm::complement(d, x)); };
  } else {  // truncated-normal
    positive(1, "sigma");
    if (!(p[2] < p[3])) refuse(spec, "lo must be below hi");
    const bm::normal_distribution<double> d(p[0], p[1]);
    const double lo = p[2], hi = p[3];
    // The mass kept, from whichever tail keeps its digits.
    const bool upper_side = lo > p[0];
    const double z = upper_side ? bm::cdf(bm::complement(d, lo)) - bm::cdf(bm::complement(d, hi)) : bm::cdf(d, hi) - bm::cdf(d, lo);
    if (!(z > 0)) refuse(spec, "[lo, hi] holds no mass of the normal in double precision");
    law.lower = lo;
    law.upper = hi;
    law.cdf = [d, lo, hi, z, upper_side](double x) {
      if (x <= lo) return 0.0;
      if (x >= hi) return 1.0;
      const double f = upper_side ? bm::cdf(bm::complement(d, lo)) - bm::cdf(bm::complement(d, x)) : bm::cdf(d, x) - bm::cdf(d, lo);
      return std::clamp(f / z, 0.0, 1.0);
    };
    law.sf = [d, lo, hi, z, upper_side](double x) {
      if (x <= lo) return 1.0;
      if (x >= hi) return 0.0;
      const double s = upper_side ? bm::cdf(bm::complement(d, x)) - bm::cdf(bm::complement(d, hi)) : bm::cdf(d, hi) - bm::cdf(d, x);
      return std::clamp(s / z, 0.0, 1.0);
    };
  }
  return law;
}

}  // namespace warpsim::stats
