#include "cli/rejection_command.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

#include "cli/errors.hpp"
#include "stats/input_checks.hpp"  // number_text
#include "oracle/rejection/loop_model.hpp"

namespace warpsim::cli {

namespace rj = oracle::rejection;

namespace {

// The rows of the law worth printing: up to the point where P(L <= n) is
// within 1e-6 of 1, at most 60.
std::size_t rows_to_show(const rj::LoopLaw& law) {
  double done = 0;
  std::size_t n = 0;
  while (n < law.pmf.size() && n < 60) {
    done += law.pmf[n++];
    if (1 - done < 1e-6) break;
  }
  return n;
}

// The note's two pictures (seed 004): E[L_K] against p (uncached, pre-cached
// where asked, and the scalar 1/p), and uncached / pre-cached; p from 0.05
// to 0.99. One colour a curve, the same in both panels.
std::string svg(const RejectionOptions& o) {
  std::vector<double> ps;
  for (int i = 1; i <= 19; ++i) ps.push_back(0.05 * i);
  ps.push_back(0.97);
  ps.push_back(0.99);
  std::vector<double> unc, cac, scalar;
  for (double p : ps) {
    unc.push_back(rj::uncached_loop(o.lanes, p, 1.0).mean);
    scalar.push_back(1 / p);
    if (o.cached) cac.push_back(rj::cached_loop(o.lanes, p, rj::CachedVariant::listing, 1.0).loop.mean);
  }
  const double W = 520, H = 300, left = 60, right = 20, top = 30, bottom = 45;
  std::ostringstream s;
  s << std::fixed << std::setprecision(2);
  const int panels = o.cached ? 2 : 1;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W * panels << "\" height=\"" << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  auto panel = [&](int at, const std::string& title, const std::vector<std::pair<std::string, std::pair<std::string, const std::vector<double>*>>>& curves,
                   bool log_y) {
    const double x0 = at * W + left, x1 = (at + 1) * W - right, y0 = H - bottom, y1 = top;
    double lo = 1e300, hi = -1e300;
    for (const auto& c : curves) {
      for (double v : *c.second.second) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    if (log_y) lo = std::max(lo, 1e-3);
    const double a = log_y ? std::log10(lo) : std::min(lo, 1.0), b = log_y ? std::log10(hi) : hi;
    auto X = [&](double p) { return x0 + (x1 - x0) * p; };
    auto Y = [&](double v) { const double t = ((log_y ? std::log10(v) : v) - a) / (b - a == 0 ? 1 : b - a); return y0 - (y0 - y1) * t; };
    s << "<g class=\"panel\"><text x=\"" << (x0 + x1) / 2 << "\" y=\"18\" text-anchor=\"middle\">" << title << "</text>\n";
    s << "<line x1=\"" << x0 << "\" y1=\"" << y0 << "\" x2=\"" << x1 << "\" y2=\"" << y0 << "\" stroke=\"black\"/>";
    s << "<line x1=\"" << x0 << "\" y1=\"" << y0 << "\" x2=\"" << x0 << "\" y2=\"" << y1 << "\" stroke=\"black\"/>\n";
    for (int t = 0; t <= 4; ++t) {
      const double p = t / 4.0;
      s << "<text x=\"" << X(p) << "\" y=\"" << y0 + 16 << "\" text-anchor=\"middle\">" << p << "</text>";
      const double v = log_y ? std::pow(10, a + (b - a) * t / 4) : a + (b - a) * t / 4;
      s << "<text x=\"" << x0 - 6 << "\" y=\"" << Y(v) + 4 << "\" text-anchor=\"end\">" << std::setprecision(v < 10 ? 2 : 0) << v
        << std::setprecision(2) << "</text>\n";
    }
    s << "<text x=\"" << (x0 + x1) / 2 << "\" y=\"" << H - 8 << "\" text-anchor=\"middle\">p, a lane's acceptance probability</text>\n";
    s << "<line class=\"asked\" x1=\"" << X(o.p) << "\" y1=\"" << y0 << "\" x2=\"" << X(o.p) << "\" y2=\"" << y1
      << "\" stroke=\"black\" stroke-dasharray=\"4 3\"><title>p = " << o.p << "</title></line>\n";
    int k = 0;
    for (const auto& c : curves) {
      s << "<polyline class=\"curve\" fill=\"none\" stroke-width=\"2\" stroke=\"" << c.second.first << "\" points=\"";
      for (std::size_t i = 0; i < ps.size(); ++i) s << X(ps[i]) << ',' << Y((*c.second.second)[i]) << ' ';
      s << "\"><title>" << c.first << "</title></polyline>\n";
      s << "<text x=\"" << x1 - 4 << "\" y=\"" << y1 + 14 * (k + 1) << "\" text-anchor=\"end\" fill=\"" << c.second.first << "\">" << c.first << "</text>\n";
      ++k;
    }
    s << "</g>\n";
  };
  const std::string K = std::to_string(o.lanes);
  std::vector<std::pair<std::string, std::pair<std::string, const std::vector<double>*>>> first = {
      {"uncached E[L_" + K + "]", {"#1f77b4", &unc}}, {"scalar 1/p", {"#7f7f7f", &scalar}}};
  if (o.cached) first.push_back({"pre-cached E[L]", {"#d62728", &cac}});
  panel(0, "E[iterations], " + K + " lanes (log scale)", first, true);
  std::vector<double> ratio;
  if (o.cached) {
    for (std::size_t i = 0; i < ps.size(); ++i) ratio.push_back(unc[i] / cac[i]);
    panel(1, "uncached / pre-cached, " + K + " lanes", {{"ratio", {"#2ca02c", &ratio}}}, false);
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace

CLI::App* add_rejection_command(CLI::App& app, RejectionOptions& o) {
  auto* cmd = app.add_subcommand("rejection", "The cost of a rejection loop on a warp: the law and mean of its iterations (seed 004)");
  cmd->add_option("--lanes", o.lanes, "K, the lanes of a warp, 1 to 64")->capture_default_str();
  cmd->add_option("--p", o.p, "a lane's probability of accepting a proposal, in [1e-300, 1]")->required();
  cmd->add_flag("--cached", o.cached, "also the pre-cached loop of seed 004, in its steady state across calls");
  cmd->add_option("--format", o.format, "output format (svg: the note's curves against p)")
      ->check(CLI::IsMember({"text", "json", "svg"}))
      ->capture_default_str();
  return cmd;
}

int run_rejection(const RejectionOptions& o, std::ostream& out) {
  if (o.lanes < 1 || o.lanes > rj::kMaxLanes) throw UsageError("--lanes must be 1 to 64, not " + std::to_string(o.lanes));
  // Below 1e-300 a loop's mean (about H_K / p iterations) nears the largest
  // double; down to it the means are exact and the pmf is stepped through at
  // most rj::kMaxPmfIterations times (the rest stated as its tail).
  if (!(o.p >= kRejectionMinP && o.p <= 1)) {
    throw UsageError("--p must lie in [1e-300, 1], got " + stats::number_text(o.p) +
                     (o.p > 0 && o.p < kRejectionMinP ? " (below 1e-300 the mean number of iterations would pass 1e300)" : ""));
  }
  if (o.format == "svg") {
    out << svg(o);
    return kExitOk;
  }
  const auto u = rj::uncached_loop(o.lanes, o.p);
  rj::CachedSteadyState c;
  if (o.cached) c = rj::cached_loop(o.lanes, o.p);
  if (o.format == "json") {
    nlohmann::json j;
    j["lanes"] = o.lanes;
    j["p"] = o.p;
    j["scalar_mean"] = 1 / o.p;
    j["uncached"] = {{"mean", u.mean}, {"over_scalar", u.mean * o.p}, {"pmf", u.pmf}, {"tail", u.tail}};
    if (o.cached) {
      std::vector<double> at_return(c.cached_at_return.data(), c.cached_at_return.data() + c.cached_at_return.size());
      j["cached"] = {{"mean", c.loop.mean},
                     {"uncached_over_cached", u.mean / c.loop.mean},
                     {"pmf", c.loop.pmf},
                     {"tail", c.loop.tail},
                     {"cached_at_return", at_return},
                     {"fixed_point_steps", c.fixed_point_steps},
                     {"residual", c.residual}};
    }
    out << j.dump(1) << '\n';
    return kExitOk;
  }
  out << std::setprecision(6);
  out << "rejection loop on a warp of " << o.lanes << " lanes, each accepting with p = " << o.p << " (seed 004)\n";
  out << "  scalar loop:          E[L_1] = 1/p = " << 1 / o.p << " iterations\n";
  out << "  warp, uncached:       E[L_" << o.lanes << "] = " << u.mean << " iterations (" << u.mean * o.p << " x 1/p)\n";
  if (o.cached) {
    out << "  warp, pre-cached:     E[L] = " << c.loop.mean << " iterations in the steady state (uncached / pre-cached "
        << u.mean / c.loop.mean << "; fixed point solved, checked by " << c.fixed_point_steps << (c.fixed_point_steps == 1 ? " call" : " calls")
        << ")\n";
  }
  if (u.tail > 1e-6 || (o.cached && c.loop.tail > 1e-6)) {
    out << "  (the laws are stepped through " << u.pmf.size() - 1 << " iterations uncached"
        << (o.cached ? ", " + std::to_string(c.loop.pmf.size() - 1) + " pre-cached" : "") << "; P(L beyond) = " << stats::number_text(u.tail)
        << (o.cached ? " and " + stats::number_text(c.loop.tail) : "") << ")\n";
  }
  out << "\n  n   P(L = n) uncached" << (o.cached ? "   P(L = n) pre-cached" : "") << '\n';
  const std::size_t rows = std::max(rows_to_show(u), o.cached ? rows_to_show(c.loop) : 0);
  for (std::size_t n = 1; n < rows; ++n) {
    out << std::setw(3) << n << "   " << std::setw(17) << (n < u.pmf.size() ? u.pmf[n] : 0.0);
    if (o.cached) out << "   " << std::setw(19) << (n < c.loop.pmf.size() ? c.loop.pmf[n] : 0.0);
    out << '\n';
  }
  return kExitOk;
}

}  // namespace warpsim::cli
