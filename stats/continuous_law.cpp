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
  if (!label.empty()) return name + " " + label;
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
    law.quantile = [a, b](double u) { return a + u * (b - a); };
    law.upper_tail_quantile = [a, b](double q) { return b - q * (b - a); };
  } else if (law.name == "normal") {
    positive(1, "sigma");
    const bm::normal_distribution<double> d(p[0], p[1]);
    law.lower = -inf;
    law.upper = inf;
    law.cdf = [d](double x) { return bm::cdf(d, x); };
    law.sf = [d](double x) { return bm::cdf(bm::complement(d, x)); };
    law.quantile = [d](double u) { return bm::quantile(d, u); };
    law.upper_tail_quantile = [d](double q) { return bm::quantile(bm::complement(d, q)); };
  } else if (law.name == "exponential") {
    positive(0, "rate");
    const bm::exponential_distribution<double> d(p[0]);
    law.lower = 0;
    law.upper = inf;
    law.cdf = [d](double x) { return x <= 0 ? 0.0 : bm::cdf(d, x); };
    law.sf = [d](double x) { return x <= 0 ? 1.0 : bm::cdf(bm::complement(d, x)); };
    law.quantile = [d](double u) { return bm::quantile(d, u); };
    law.upper_tail_quantile = [d](double q) { return bm::quantile(bm::complement(d, q)); };
  } else if (law.name == "gamma") {
    positive(0, "shape");
    positive(1, "scale");
    const bm::gamma_distribution<double> d(p[0], p[1]);
    law.lower = 0;
    law.upper = inf;
    law.cdf = [d](double x) { return x <= 0 ? 0.0 : bm::cdf(d, x); };
    law.sf = [d](double x) { return x <= 0 ? 1.0 : bm::cdf(bm::complement(d, x)); };
    law.quantile = [d](double u) { return bm::quantile(d, u); };
    law.upper_tail_quantile = [d](double q) { return bm::quantile(bm::complement(d, q)); };
  } else if (law.name == "beta") {
    positive(0, "a");
    positive(1, "b");
    const bm::beta_distribution<double> d(p[0], p[1]);
    law.lower = 0;
    law.upper = 1;
    law.cdf = [d](double x) { return x <= 0 ? 0.0 : x >= 1 ? 1.0 : bm::cdf(d, x); };
    law.sf = [d](double x) { return x <= 0 ? 1.0 : x >= 1 ? 0.0 : bm::cdf(bm::complement(d, x)); };
    law.quantile = [d](double u) { return bm::quantile(d, u); };
    law.upper_tail_quantile = [d](double q) { return bm::quantile(bm::complement(d, q)); };
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
    // F^-1 and S^-1 through the normal's, from the side that keeps digits
    const double f_lo = bm::cdf(d, lo), f_hi = bm::cdf(d, hi), s_lo = bm::cdf(bm::complement(d, lo)), s_hi = bm::cdf(bm::complement(d, hi));
    law.quantile = [d, lo, hi, z, upper_side, f_lo, s_lo](double u) {
      const double x = upper_side ? bm::quantile(bm::complement(d, std::max(s_lo - u * z, 0.0))) : bm::quantile(d, std::min(f_lo + u * z, 1.0));
      return std::clamp(x, lo, hi);
    };
    law.upper_tail_quantile = [d, lo, hi, z, upper_side, f_hi, s_hi](double q) {
      const double x = upper_side ? bm::quantile(bm::complement(d, std::min(s_hi + q * z, 1.0))) : bm::quantile(d, std::max(f_hi - q * z, 0.0));
      return std::clamp(x, lo, hi);
    };
  }
  return law;
}

namespace {

// The x in [a, b] where `below(x)` turns from true to false, to the last bit
// (a and b finite, below(a) true, below(b) false).
template <class Below>
double boundary(double a, double b, Below below) {
  for (int i = 0; i < 2200; ++i) {
    const double m = a / 2 + b / 2;
    if (m <= a || m >= b) break;
    (below(m) ? a : b) = m;
  }
  return b;
}

// A finite bracket [a, b] of the support with below(a) and !below(b).
template <class Below>
std::pair<double, double> bracket(const ContinuousLaw& law, Below below) {
  double a = std::isfinite(law.lower) ? law.lower : -1, b = std::isfinite(law.upper) ? law.upper : 1;
  while (!below(a) && std::isfinite(a)) a = a * 2 - 1;
  while (below(b) && std::isfinite(b)) b = b * 2 + 1;
  return {a, b};
}

}  // namespace

double lower_quantile(const ContinuousLaw& law, double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("lower_quantile: p must lie in (0, 1)");
  if (law.quantile) return law.quantile(p);
  const auto below = [&](double x) { return law.cdf(x) < p; };
  const auto [a, b] = bracket(law, below);
  if (!below(a)) return a;
  return boundary(a, b, below);
}

double upper_quantile(const ContinuousLaw& law, double q) {
  if (!(q > 0 && q < 1)) throw std::invalid_argument("upper_quantile: q must lie in (0, 1)");
  if (law.upper_tail_quantile) return law.upper_tail_quantile(q);
  const auto below = [&](double x) { return law.sf(x) >= q; };
  const auto [a, b] = bracket(law, below);
  if (!below(a)) return a;
  return boundary(a, b, below);
}

ContinuousLaw tabulated_law(const std::vector<double>& x, const std::vector<double>& f, const std::string& name) {
  const auto refuse_row = [&](std::size_t i, const std::string& why) {
    throw std::invalid_argument("CDF table " + name + ", row " + std::to_string(i + 1) + ": " + why);
  };
  if (x.size() != f.size()) throw std::invalid_argument("CDF table " + name + ": as many F values as points");
  if (x.size() < 2) throw std::invalid_argument("CDF table " + name + ": at least two rows (x F), from F = 0 to F = 1");
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(f[i])) refuse_row(i, "x and F must be finite numbers");
    if (f[i] < 0 || f[i] > 1) refuse_row(i, "F must lie in [0, 1]");
    if (i && !(x[i] > x[i - 1])) refuse_row(i, "x must increase from row to row");
    if (i && f[i] < f[i - 1]) refuse_row(i, "F must not decrease");
  }
  if (f.front() != 0) refuse_row(0, "F must start at 0 (the support's lower end)");
  if (f.back() != 1) refuse_row(x.size() - 1, "F must end at 1 (the support's upper end)");
  ContinuousLaw law;
  law.name = "table";
  law.label = name;
  law.lower = x.front();
  law.upper = x.back();
  // linear between the rows; S from 1 - F at the rows (exact where F is)
  const auto interpolate = [x, f](double t, bool survival) {
    if (t <= x.front()) return survival ? 1.0 : 0.0;
    if (t >= x.back()) return survival ? 0.0 : 1.0;
    const std::size_t i = static_cast<std::size_t>(std::upper_bound(x.begin(), x.end(), t) - x.begin());  // x[i - 1] <= t < x[i]
    const double w = (t - x[i - 1]) / (x[i] - x[i - 1]);
    const double a = survival ? 1 - f[i - 1] : f[i - 1], b = survival ? 1 - f[i] : f[i];
    return std::clamp(a + (b - a) * w, 0.0, 1.0);
  };
  law.cdf = [interpolate](double t) { return interpolate(t, false); };
  law.sf = [interpolate](double t) { return interpolate(t, true); };
  // the inverse: the least x with F(x) >= p on the segment that reaches p
  law.quantile = [x, f](double p) {
    const std::size_t i = static_cast<std::size_t>(std::lower_bound(f.begin(), f.end(), p) - f.begin());  // f[i - 1] < p <= f[i]
    if (i == 0) return x.front();
    if (i >= f.size()) return x.back();
    return x[i - 1] + (x[i] - x[i - 1]) * (p - f[i - 1]) / (f[i] - f[i - 1]);
  };
  law.upper_tail_quantile = [x, f](double q) {
    // the greatest x with 1 - F(x) >= q: F(x) <= 1 - q, from the top segment down
    std::size_t i = f.size() - 1;
    while (i > 0 && 1 - f[i - 1] < q) --i;  // 1 - f[i - 1] >= q > 1 - f[i]
    if (i == 0) return x.front();
    const double a = 1 - f[i - 1], b = 1 - f[i];
    return a == b ? x[i - 1] : x[i - 1] + (x[i] - x[i - 1]) * (a - q) / (a - b);
  };
  return law;
}

}  // namespace warpsim::stats
