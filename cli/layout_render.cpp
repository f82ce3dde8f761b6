#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cli/colour.hpp"
#include "cli/layout_frames.hpp"
#include "sim/lane_mask.hpp"

namespace warpsim::cli {

namespace {

std::size_t cell_width(const Layout& layout) {
  std::size_t w = 1;
  for (const auto& f : layout.frames)
    for (const auto& row : f.grid)
      for (const auto& c : row) w = std::max(w, c.size());
  return w;
}


nlohmann::json frame_json(const Frame& f) {
  nlohmann::json changed = nlohmann::json::array(), highlighted = nlohmann::json::array();
  for (auto [r, l] : f.changed) changed.push_back({r, l});
  for (auto [r, l] : f.highlighted) highlighted.push_back({r, l});
  return {{"title", f.title}, {"grid", f.grid}, {"owner", f.owner}, {"changed", changed}, {"highlighted", highlighted}};
}

}  // namespace

std::string escape_xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_text(const Layout& layout, bool colour) {
  const LaneColours colours(layout.owner_count());
  const std::size_t w = cell_width(layout);
  std::string out;
  const bool many = layout.frames.size() > 1;
  for (std::size_t i = 0; i < layout.frames.size(); ++i) {
    const Frame& f = layout.frames[i];
    if (many) out += (i ? "\n# step " : "# step ") + std::to_string(f.step) + ": " + f.title + "\n";
    for (std::size_t r = 0; r < f.grid.size(); ++r) {
      std::string line;
      for (std::size_t l = 0; l < f.grid[r].size(); ++l) {
        std::string c = f.grid[r][l];
        const bool hi = f.highlighted.count({static_cast<int>(r), static_cast<int>(l)}) > 0;
        if (hi) c = "[" + c + "]";
        if (many && f.changed.count({static_cast<int>(r), static_cast<int>(l)})) c += "*";
        if (l) line += ' ';
        const std::size_t pad = w + (f.highlighted.empty() ? 0 : 2) + (many ? 1 : 0);
        const std::string cell = std::string(pad - std::min(c.size(), pad), ' ') + c;
        const int owner = f.owner.empty() ? -1 : f.owner[r][l];
        line += colour ? colours.fill(owner).ansi_background() + "\x1b[30m" + cell + "\x1b[0m" : cell;
      }
      out += line + "\n";
    }
  }
  return out;
}

std::string render_json(const Layout& layout) {
  nlohmann::json frames = nlohmann::json::array();
  for (const auto& frame : layout.frames) {
    auto f = frame_json(frame);
    f["step"] = frame.step;
    frames.push_back(f);
  }
  nlohmann::json letters = nlohmann::json::array(), colours = nlohmann::json::array();
  const LaneColours rule(layout.owner_count());
  for (int l = 0; l < layout.lanes; ++l) letters.push_back(layout.column_labels.empty() ? std::string(1, sim::lane_letter(l)) : layout.column_label(l));
  for (int o = 0; o < layout.owner_count(); ++o) colours.push_back(rule.fill(o).hex());
  return nlohmann::json{{"algorithm", layout.algorithm},
                        {"lanes", layout.lanes},
                        {"lane_letters", letters},
                        {"lane_colours", colours},
                        {"row_labels", layout.row_labels},
                        {"steps", layout.steps},
                        {"frames", frames}}
             .dump(2) + "\n";
}

std::string render_svg(const Layout& layout) {
  if (layout.frames.size() != 1) throw std::logic_error("render_svg draws exactly one frame");
  const Frame& f = layout.frames.front();
  const int step = f.step;
  std::size_t chars = cell_width(layout);
  for (const auto& label : layout.column_labels) chars = std::max(chars, label.size());  // headers fit their column
  std::size_t label_chars = 4;
  for (const auto& label : layout.row_labels) label_chars = std::max(label_chars, label.size());
  const int cw = static_cast<int>(std::max<std::size_t>(chars, 2)) * 8 + 12, ch = 24, left = static_cast<int>(label_chars) * 8 + 12, top = 52;
  const int rows = static_cast<int>(f.grid.size()), cols = layout.lanes;
  const LaneColours colours(layout.owner_count());
  const int width = left + cols * cw + 10, height = top + rows * ch + 10;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
                  std::to_string(height) + "\" font-family=\"monospace\" font-size=\"12\">\n";
  s += "<title>" + escape_xml(layout.algorithm + ", step " + std::to_string(step) + ": " + f.title) + "</title>\n";
  s += "<text x=\"4\" y=\"16\" font-size=\"13\">" + escape_xml(layout.algorithm + " - step " + std::to_string(step) + ": " + f.title) + "</text>\n";
  for (int l = 0; l < cols; ++l) {
    s += "<text x=\"" + std::to_string(left + l * cw + cw / 2) + "\" y=\"" + std::to_string(top - 8) +
         "\" text-anchor=\"middle\" font-weight=\"bold\">" +
         escape_xml(layout.column_labels.empty() ? std::string(1, sim::lane_letter(l)) : layout.column_label(l)) + "</text>\n";
  }
  for (int r = 0; r < rows; ++r) {
    const int y = top + r * ch;
    const std::string label = r < static_cast<int>(layout.row_labels.size()) ? layout.row_labels[static_cast<std::size_t>(r)] : std::to_string(r);
    s += "<text x=\"4\" y=\"" + std::to_string(y + 16) + "\">" + escape_xml(label) + "</text>\n";
    for (int l = 0; l < cols; ++l) {
      const int x = left + l * cw;
      const int owner = f.owner.empty() ? -1 : f.owner[static_cast<std::size_t>(r)][static_cast<std::size_t>(l)];
      const bool hi = f.highlighted.count({r, l}) > 0, changed = f.changed.count({r, l}) > 0;
      s += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" + std::to_string(cw) +
           "\" height=\"" + std::to_string(ch) + "\" fill=\"" + colours.fill(owner).hex() + "\" stroke=\"" +
           (hi ? LaneColours::highlighted().hex() : changed ? LaneColours::changed().hex() : std::string("#999999")) + "\" stroke-width=\"" + (hi || changed ? "2.5" : "0.5") + "\"/>\n";
      s += "<text x=\"" + std::to_string(x + cw / 2) + "\" y=\"" + std::to_string(y + 16) + "\" text-anchor=\"middle\"" +
           (hi ? " font-weight=\"bold\"" : "") + ">" + escape_xml(f.grid[static_cast<std::size_t>(r)][static_cast<std::size_t>(l)]) + "</text>\n";
    }
  }
  s += "</svg>\n";
  return s;
}

std::string render_html(const Layout& layout) {
  if (static_cast<int>(layout.frames.size()) != layout.steps) throw std::logic_error("render_html needs every step");
  std::string data = render_json(layout);
  // Keep "</script>" out of the embedded JSON.
  for (std::size_t p = 0; (p = data.find("</", p)) != std::string::npos; p += 3) data.replace(p, 2, "<\\/");
  static const char* kPage = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>warpsim show</title>
<style>
body{font-family:sans-serif;margin:1em}
table{border-collapse:collapse;font-family:monospace;font-size:12px}
td,th{border:1px solid #999;padding:2px 5px;text-align:center;min-width:2.5em}
td.changed{outline:2.5px solid @CHANGED@;outline-offset:-3px}
td.highlighted{outline:2.5px solid @HIGHLIGHTED@;font-weight:bold;outline-offset:-3px}
#controls{margin:.5em 0}
</style></head><body>
<h3 id="heading"></h3>
<div id="controls"><button id="prev">&larr; back</button> <button id="next">forward &rarr;</button>
 <span id="where"></span> <span style="color:@CHANGED@">&#9633; changed on this step</span>
 <span>&#9633; highlighted lane's cells (bold)</span></div>
<div id="title"></div>
<table id="grid"></table>
<script id="layout" type="application/json">@DATA@</script>
<script>
"use strict";
const layout = JSON.parse(document.getElementById("layout").textContent);
let step = 0;
function colour(owner) {  // the rule of cli/colour.hpp, computed there
  return owner < 0 ? "#ffffff" : layout.lane_colours[owner];
}
function render() {
  const f = layout.frames[step];
  document.getElementById("heading").textContent = layout.algorithm;
  document.getElementById("where").textContent = "step " + step + " of " + (layout.steps - 1);
  document.getElementById("title").textContent = f.title;
  const changed = new Set(f.changed.map(c => c[0] + "," + c[1]));
  const hi = new Set(f.highlighted.map(c => c[0] + "," + c[1]));
  const t = document.getElementById("grid");
  t.innerHTML = "";
  const head = t.insertRow();
  head.appendChild(document.createElement("th")).textContent = "reg";
  for (const letter of layout.lane_letters) head.appendChild(document.createElement("th")).textContent = letter;
  f.grid.forEach((row, r) => {
    const tr = t.insertRow();
    tr.appendChild(document.createElement("th")).textContent = layout.row_labels[r] ?? String(r);
    row.forEach((v, l) => {
      const td = tr.insertCell();
      td.textContent = v;
      td.style.background = colour(f.owner.length ? f.owner[r][l] : -1);
      if (changed.has(r + "," + l)) td.classList.add("changed");
      if (hi.has(r + "," + l)) td.classList.add("highlighted");
    });
  });
}
function go(delta) { step = Math.min(layout.steps - 1, Math.max(0, step + delta)); render(); }
document.getElementById("prev").addEventListener("click", () => go(-1));
document.getElementById("next").addEventListener("click", () => go(1));
document.addEventListener("keydown", e => { if (e.key === "ArrowRight") go(1); if (e.key === "ArrowLeft") go(-1); });
render();
// ?selftest: step forward and back, and say whether the grid changed.
if (location.search.includes("selftest")) {
  const before = document.getElementById("grid").innerHTML;
  document.getElementById("next").click();
  const after = document.getElementById("grid").innerHTML;
  document.getElementById("prev").click();
  const back = document.getElementById("grid").innerHTML;
  const ok = layout.steps > 1 && before !== after && back === before;
  const p = document.createElement("p");
  p.id = "selftest";
  p.textContent = "selftest: " + (ok ? "pass" : "fail");
  document.body.appendChild(p);
}
</script></body></html>
)HTML";
  std::string page = kPage;
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"@CHANGED@", LaneColours::changed().hex()},
                                   {"@HIGHLIGHTED@", LaneColours::highlighted().hex()}}) {
    for (std::size_t at; (at = page.find(key)) != std::string::npos;) page.replace(at, key.size(), value);
  }
  page.replace(page.find("@DATA@"), 6, data);
  return page;
}

}  // namespace warpsim::cli
