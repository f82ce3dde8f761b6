#include "cli/validate/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "cli/layout_frames.hpp"
#include "cli/report_json.hpp"
#include "stats/input_checks.hpp"

namespace warpsim::cli::validate {

namespace {

std::string fixed(double v, int digits = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// One colour rule for outcomes, every view.
const char* outcome_colour(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "#2ca02c";
    case Outcome::Fail: return "#d62728";
    case Outcome::Skipped: return "#888888";
  }
  return "#000";
}

std::string failing_summary(const Report& r) {
  std::string s;
  for (const auto& c : r.checks)
    if (c.outcome == Outcome::Fail) s += (s.empty() ? "" : ", ") + c.name;
  int survived = 0;
  for (const auto& m : r.mutants) survived += m.killed ? 0 : 1;
  if (survived) s += (s.empty() ? "" : ", ") + std::to_string(survived) + " mutants survived";
  return s;
}

}  // namespace

std::vector<std::size_t> categories_to_show(const Law& law, std::size_t n) {
  std::vector<std::size_t> order(law.categories.size());
  std::iota(order.begin(), order.end(), 0);
  if (order.size() <= n) return order;
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(), [&](std::size_t a, std::size_t b) {
    const auto &x = law.categories[a], &y = law.categories[b];
    if (x.rejected != y.rejected) return x.rejected;
    if (x.p_raw != y.p_raw) return x.p_raw < y.p_raw;
    return a < b;
  });
  order.resize(n);
  std::sort(order.begin(), order.end());
  return order;
}

std::string render_text(const Report& r) {
  std::ostringstream s;
  s << "warpsim validate: " << r.subject << "\n";
  for (const auto& c : r.checks) {
    // Padded, never cut: a law check's name carries its distribution's label.
    auto padded = [](std::string x, std::size_t width) { return x.size() < width ? x + std::string(width - x.size(), ' ') : x; };
    const std::string outcome = c.outcome == Outcome::Pass ? "pass" : c.outcome == Outcome::Fail ? "FAIL" : "skipped";
    s << "  " << padded(outcome, 8) << " " << padded(c.name, 24) << " " << c.detail << "\n";
  }
  for (const auto& law : r.laws) {
    const auto show = categories_to_show(law, 10);
    if (law.categories.empty()) continue;
    s << "  categories of " << law.label << (show.size() < law.categories.size() ? " (the 10 with the smallest p-values)" : "") << ":\n"
      << "    index      observed      expected   p (raw)     p (Holm)\n";
    for (auto i : show) {
      const auto& c = law.categories[i];
      char line[160];
      std::snprintf(line, sizeof line, "    %-8llu %11.0f %13.1f   %-10.3g  %-10.3g%s\n", static_cast<unsigned long long>(c.index), c.observed, c.expected,
                    c.p_raw, c.p_adjusted, c.rejected ? "  REJECTED" : "");
      s << line;
    }
  }
  if (r.rows && !r.rows->worst.empty()) {
    s << "  rows that stand out (" << (r.rows->draws == r.rows->rows ? "the most improbable draws" : "the largest chi-squares") << "):\n";
    for (const auto& w : r.rows->worst) s << "    row " << w.row << ": " << w.what << "\n";
  }
  if (!r.mutants.empty()) {
    int killed = 0;
    for (const auto& m : r.mutants) killed += m.killed ? 1 : 0;
    s << "  mutation score: " << killed << " of " << r.mutants.size() << " killed\n";
    for (const auto& m : r.mutants) {
      char line[200];
      std::snprintf(line, sizeof line, "    %-8s %-28s %-5s %-20s %.2f s\n", m.killed ? "killed" : "SURVIVED", m.name.c_str(), m.form.c_str(),
                    m.property.c_str(), m.seconds);
      s << line;
    }
  }
  if (r.counterexample) {
    const auto& c = *r.counterexample;
    s << "counterexample (" << c.property << ", " << c.dtype << ", seed " << c.seed << ", " << c.rows << " x " << c.cols << ", failing row "
      << c.failing_row << (c.draws > 0 ? ", " + std::to_string(c.draws) + " draws a row" : "") << ")" << (c.file.empty() ? "" : ", saved to " + c.file)
      << ":\n";
    for (int i = 0; i < c.rows && i < 8; ++i) {
      s << "    ";
      for (int j = 0; j < c.cols && j < 16; ++j) s << (j ? " " : "") << stats::number_text(c.weights[static_cast<std::size_t>(i * c.cols + j)]);
      s << (c.cols > 16 ? " ..." : "") << "\n";
    }
    if (c.rows > 8) s << "    ...\n";
    for (const auto& line : c.replay) s << "  replay: " << line << "\n";
  }
  for (const auto& n : r.notes) s << "note: " << n << "\n";
  s << "verdict: " << (r.consistent() ? "CONSISTENT" : "INCONSISTENT (" + failing_summary(r) + ")") << " -- false-positive rate of the statistical checks at most "
    << stats::number_text(r.alpha) << " (" << fixed(r.seconds, 3) << " s" << (r.processes > 1 ? " on " + std::to_string(r.processes) + " processes" : "") << ")\n";
  return s.str();
}

nlohmann::ordered_json render_json(const Report& r) {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const auto& c : r.checks) {
    nlohmann::ordered_json j = {{"name", c.name}, {"outcome", outcome_name(c.outcome)}, {"detail", c.detail}};
    if (c.test) j["test"] = to_json(*c.test);
    checks.push_back(j);
  }
  nlohmann::ordered_json laws = nlohmann::ordered_json::array();
  for (const auto& law : r.laws) {
    nlohmann::ordered_json cats = nlohmann::ordered_json::array();
    constexpr std::size_t kMax = 100000;
    const auto show = categories_to_show(law, kMax);
    for (auto i : show) {
      const auto& c = law.categories[i];
      cats.push_back({{"index", c.index}, {"observed", c.observed}, {"expected", c.expected}, {"p_raw", c.p_raw}, {"p_adjusted", c.p_adjusted},
                      {"rejected", c.rejected}});
    }
    laws.push_back({{"label", law.label},
                    {"draws", law.draws},
                    {"categories_total", law.categories.size()},
                    {"categories", cats},
                    {"batches", law.batches},
                    {"batch_p_values", law.batch_p_values}});
  }
  nlohmann::ordered_json j = {{"warpsim_validate", 1},
                      {"kind", r.kind},
                      {"subject", r.subject},
                      {"verdict", r.consistent() ? "consistent" : "inconsistent"},
                      {"alpha", r.alpha},
                      {"seconds", r.seconds},
                      {"processes", r.processes},
                      {"checks", checks},
                      {"laws", laws},
                      {"notes", r.notes}};
  if (r.rows) {
    nlohmann::ordered_json worst = nlohmann::ordered_json::array();
    for (const auto& w : r.rows->worst) worst.push_back({{"row", w.row}, {"what", w.what}, {"score", w.score}});
    j["rows"] = {{"rows", r.rows->rows}, {"draws", r.rows->draws}, {"pit_heaviest", r.rows->pit_heaviest}, {"pit_index", r.rows->pit_index},
                 {"worst", worst}};
  }
  if (r.counterexample) {
    const auto& c = *r.counterexample;
    j["counterexample"] = {{"property", c.property}, {"dtype", c.dtype}, {"seed", c.seed}, {"rows", c.rows}, {"cols", c.cols},
                           {"failing_row", c.failing_row}, {"draws", c.draws}, {"weights", c.weights}, {"file", c.file}, {"replay", c.replay}, {"detail", c.detail}};
  }
  if (!r.mutants.empty()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    int killed = 0;
    for (const auto& m : r.mutants) {
      killed += m.killed ? 1 : 0;
      list.push_back({{"name", m.name}, {"form", m.form}, {"bug", m.bug}, {"killed", m.killed}, {"property", m.property},
                      {"seconds", m.seconds}, {"counterexample", m.counterexample}});
    }
    j["mutation_score"] = {{"killed", killed}, {"total", r.mutants.size()}, {"mutants", list}};
  }
  return j;
}

namespace {

// Observed (bars) against expected (ticks) per category; failing ones red.
std::string category_svg(const Law& law) {
  const auto show = categories_to_show(law, 256);
  if (show.empty()) return "";
  double top = 1;
  for (auto i : show) top = std::max({top, law.categories[i].observed, law.categories[i].expected});
  const double bar = std::clamp(720.0 / static_cast<double>(show.size()), 2.0, 40.0);
  const double width = bar * static_cast<double>(show.size()) + 60, height = 220;
  std::ostringstream s;
  s << "<svg class=\"categories\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height + 30 << "\">\n";
  s << "<text x=\"4\" y=\"12\" font-size=\"11\">" << fixed(top, 6) << "</text><text x=\"4\" y=\"" << height << "\" font-size=\"11\">0</text>\n";
  for (std::size_t n = 0; n < show.size(); ++n) {
    const auto& c = law.categories[show[n]];
    const double x = 50 + bar * static_cast<double>(n);
    const double h = (height - 20) * c.observed / top, e = (height - 20) * c.expected / top;
    s << "<rect class=\"bar" << (c.rejected ? " rejected" : "") << "\" x=\"" << x << "\" y=\"" << height - h << "\" width=\"" << std::max(1.0, bar - 1)
      << "\" height=\"" << h << "\" fill=\"" << (c.rejected ? "#d62728" : "#1f77b4") << "\"><title>category " << c.index << ": observed "
      << stats::number_text(c.observed) << ", expected " << fixed(c.expected, 8) << ", p raw " << fixed(c.p_raw) << ", p Holm " << fixed(c.p_adjusted)
      << "</title></rect>";
    s << "<line x1=\"" << x << "\" x2=\"" << x + std::max(1.0, bar - 1) << "\" y1=\"" << height - e << "\" y2=\"" << height - e
      << "\" stroke=\"#000\" stroke-width=\"2\"/>";
    // A rejected category is marked under the axis too: its bar may have no height.
    if (c.rejected) s << "<rect x=\"" << x << "\" y=\"" << height + 2 << "\" width=\"" << std::max(1.0, bar - 1) << "\" height=\"5\" fill=\"#d62728\"/>";
    s << "\n";
  }
  s << "<text x=\"50\" y=\"" << height + 20 << "\" font-size=\"11\">bars: observed; black ticks: expected; red (and marked below the axis): rejected by its binomial test"
    << (show.size() < law.categories.size() ? " (" + std::to_string(show.size()) + " of " + std::to_string(law.categories.size()) + " categories, smallest p first)" : "")
    << "</text>\n</svg>\n";
  return s.str();
}

std::string histogram_svg(const Law& law) {
  if (law.batch_p_values.empty()) return "";
  constexpr int kBins = 10;
  int count[kBins] = {};
  for (double p : law.batch_p_values) ++count[std::min(kBins - 1, static_cast<int>(p * kBins))];
  const int top = std::max(1, *std::max_element(count, count + kBins));
  std::ostringstream s;
  s << "<svg class=\"histogram\" xmlns=\"http://www.w3.org/2000/svg\" width=\"560\" height=\"190\">\n";
  for (int b = 0; b < kBins; ++b) {
    const double h = 140.0 * count[b] / top;
    s << "<rect class=\"bin\" x=\"" << 20 + 38 * b << "\" y=\"" << 160 - h << "\" width=\"34\" height=\"" << h << "\" fill=\"#9467bd\"><title>p in ["
      << b / 10.0 << ", " << (b + 1) / 10.0 << "): " << count[b] << "</title></rect>";
  }
  const double flat = 160 - 140.0 * (static_cast<double>(law.batch_p_values.size()) / kBins) / top;
  s << "<line x1=\"20\" x2=\"400\" y1=\"" << flat << "\" y2=\"" << flat << "\" stroke=\"#000\" stroke-dasharray=\"4\"/>";
  s << "<text x=\"20\" y=\"180\" font-size=\"11\">p-values of " << law.batch_p_values.size()
    << " batches, 0 to 1; dashed: what a correct sampler gives on average</text>\n</svg>\n";
  return s.str();
}

// The PITs' histogram, 1,000 bins shown as 50: flat under the null.
std::string pit_svg(const std::vector<double>& bins, const char* title) {
  constexpr int kShown = 50;
  if (bins.empty()) return "";
  std::vector<double> shown(kShown, 0.0);
  for (std::size_t i = 0; i < bins.size(); ++i) shown[i * kShown / bins.size()] += bins[i];
  double total = 0;
  for (double c : shown) total += c;
  const double top = std::max(1.0, *std::max_element(shown.begin(), shown.end()));
  std::ostringstream s;
  s << "<svg class=\"pit\" xmlns=\"http://www.w3.org/2000/svg\" width=\"560\" height=\"200\">\n<text x=\"20\" y=\"14\" font-size=\"12\">"
    << title << "</text>\n";
  for (int b = 0; b < kShown; ++b) {
    const double h = 150.0 * shown[static_cast<std::size_t>(b)] / top;
    s << "<rect class=\"bin\" x=\"" << 20 + 10 * b << "\" y=\"" << 170 - h << "\" width=\"9\" height=\"" << h << "\" fill=\"#17becf\"><title>u in ["
      << b / 50.0 << ", " << (b + 1) / 50.0 << "): " << shown[static_cast<std::size_t>(b)] << "</title></rect>";
  }
  const double flat = 170 - 150.0 * (total / kShown) / top;
  s << "<line x1=\"20\" x2=\"520\" y1=\"" << flat << "\" y2=\"" << flat << "\" stroke=\"#000\" stroke-dasharray=\"4\"/>";
  s << "<text x=\"20\" y=\"190\" font-size=\"11\">u from 0 to 1; dashed: the uniform law, what every draw following its row gives</text>\n</svg>\n";
  return s.str();
}

}  // namespace

std::string render_html(const Report& r, const std::string& layout_svg) {
  std::ostringstream s;
  const bool ok = r.consistent();
  s << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>warpsim validate: " << escape_xml(r.subject) << "</title>\n"
    << "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}td,th{padding:2px 8px;text-align:left;vertical-align:top}"
    << ".verdict{font-size:1.4em;padding:6px;color:#fff}.pass{color:#2ca02c}.fail{color:#d62728;font-weight:bold}.skipped{color:#888}"
    << "pre{background:#f4f4f4;padding:6px;overflow-x:auto}</style></head><body>\n";
  s << "<h1>warpsim validate</h1><p>" << escape_xml(r.subject) << "</p>\n";
  s << "<div class=\"verdict\" id=\"verdict\" style=\"background:" << (ok ? "#2ca02c" : "#d62728") << "\">"
    << (ok ? "consistent" : "inconsistent: " + escape_xml(failing_summary(r))) << "</div>\n";
  s << "<p>False-positive rate of the statistical checks together: at most " << stats::number_text(r.alpha) << ". " << fixed(r.seconds, 3) << " s.</p>\n";
  s << "<h2>Checks</h2><table id=\"checks\"><tr><th>outcome</th><th>check</th><th>detail</th></tr>\n";
  for (const auto& c : r.checks) {
    s << "<tr class=\"check\"><td class=\"" << outcome_name(c.outcome) << "\" style=\"color:" << outcome_colour(c.outcome) << "\">"
      << outcome_name(c.outcome) << "</td><td>" << escape_xml(c.name) << "</td><td>" << escape_xml(c.detail) << "</td></tr>\n";
  }
  s << "</table>\n";
  for (const auto& law : r.laws) {
    s << "<h2>Observed against expected: " << escape_xml(law.label) << "</h2><p>" << law.draws << " draws.</p>\n" << category_svg(law);
    if (!law.batch_p_values.empty()) s << "<h3>Two-level test: p-values of the batches</h3>\n" << histogram_svg(law);
  }
  if (r.rows) {
    s << "<h2>Every draw by its own row</h2><p>" << r.rows->draws << " draws of " << r.rows->rows << " rows.</p>\n"
      << pit_svg(r.rows->pit_heaviest, "PITs, each row's categories heaviest first (too peaked: piled left; too flat: piled right)")
      << pit_svg(r.rows->pit_index, "PITs in index order");
    if (!r.rows->worst.empty()) {
      s << "<h3>Rows that stand out</h3><table id=\"worst-rows\"><tr><th>row</th><th>what</th></tr>\n";
      for (const auto& w : r.rows->worst) s << "<tr class=\"worst-row\"><td>" << w.row << "</td><td>" << escape_xml(w.what) << "</td></tr>\n";
      s << "</table>\n";
    }
  }
  if (!r.mutants.empty()) {
    s << "<h2>Seeded bugs</h2><table id=\"mutants\"><tr><th></th><th>mutant</th><th>form</th><th>the bug</th><th>killed by</th><th>s</th></tr>\n";
    for (const auto& m : r.mutants) {
      s << "<tr class=\"mutant\"><td class=\"" << (m.killed ? "pass" : "fail") << "\">" << (m.killed ? "killed" : "survived") << "</td><td>"
        << escape_xml(m.name) << "</td><td>" << m.form << "</td><td>" << escape_xml(m.bug) << "</td><td>" << escape_xml(m.property) << "</td><td>"
        << fixed(m.seconds, 3) << "</td></tr>\n";
    }
    s << "</table>\n";
  }
  if (r.counterexample) {
    const auto& c = *r.counterexample;
    s << "<h2>Counterexample</h2><p>" << escape_xml(c.property) << ", " << c.dtype << ", seed " << c.seed << ", " << c.rows << " x " << c.cols
      << ", failing row " << c.failing_row << (c.draws > 0 ? ", " + std::to_string(c.draws) + " draws a row" : "")
      << (c.file.empty() ? "" : ", saved to " + escape_xml(c.file)) << ".</p>\n<pre>";
    for (const auto& line : c.replay) s << escape_xml(line) << "\n";
    s << "</pre>\n<pre>" << escape_xml(c.detail) << "</pre>\n";
    if (!layout_svg.empty()) s << "<h3>The failing row on the warp (warpsim show " << escape_xml(r.counterexample->show.empty() ? std::string("prefix") : r.counterexample->show.front()) << ")</h3>\n<div class=\"layout\">" << layout_svg << "</div>\n";
  }
  for (const auto& n : r.notes) s << "<p class=\"note\">note: " << escape_xml(n) << "</p>\n";
  // The page checks itself (?selftest): every check has a row, every law a
  // chart whose bars are the categories shown, the rejected bars are marked.
  s << "<p id=\"selftest\"></p>\n<script>\n"
    << "const expect = {checks: " << r.checks.size() << ", laws: " << r.laws.size() << ", rejected: [";
  for (std::size_t l = 0; l < r.laws.size(); ++l) {
    int rejected = 0;
    for (auto i : categories_to_show(r.laws[l], 256)) rejected += r.laws[l].categories[i].rejected ? 1 : 0;
    s << (l ? "," : "") << rejected;
  }
  s << "], layout: " << (r.counterexample && !layout_svg.empty() ? "true" : "false") << ", pit: " << (r.rows ? 2 : 0)
    << ", worst: " << (r.rows ? r.rows->worst.size() : 0) << "};\n"
    << "if (location.search.includes('selftest')) {\n"
    << "  const charts = document.querySelectorAll('svg.categories');\n"
    << "  let ok = document.querySelectorAll('tr.check').length === expect.checks && charts.length === expect.laws;\n"
    << "  charts.forEach((c, i) => { ok = ok && c.querySelectorAll('rect.bar').length > 0 && c.querySelectorAll('rect.rejected').length === expect.rejected[i]"
    << " && c.getBoundingClientRect().width > 0; });\n"
    << "  const pits = document.querySelectorAll('svg.pit');\n"
    << "  ok = ok && pits.length === expect.pit && document.querySelectorAll('tr.worst-row').length === expect.worst;\n"
    << "  pits.forEach(c => { ok = ok && c.querySelectorAll('rect.bin').length === 50 && c.getBoundingClientRect().width > 0; });\n"
    << "  if (expect.layout) ok = ok && document.querySelector('div.layout svg') !== null"
    << " && document.querySelector('div.layout svg').getBoundingClientRect().width > 0;\n"
    << "  document.getElementById('selftest').textContent = 'selftest: ' + (ok ? 'pass' : 'fail');\n"
    << "}\n</script>\n</body></html>\n";
  return s.str();
}

}  // namespace warpsim::cli::validate
