#include "sim/symbolic.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "sim/lane_mask.hpp"

namespace warpsim::sim {

Sym Sym::element(int owner, int index) { return range(owner, index, index); }

Sym Sym::range(int owner, int lo, int hi) {
  if (owner < 0 || owner >= kMaxLanes || lo < 0 || hi < lo) {
    throw std::invalid_argument("Sym::range: owner must be a lane 0..63 and 0 <= lo <= hi");
  }
  Sym s;
  s.runs_.push_back({static_cast<std::int16_t>(owner), lo, hi, 1});
  return s;
}

std::int64_t Sym::coefficient(int owner, int index) const {
  for (const Run& r : runs_)
    if (r.owner == owner && r.lo <= index && index <= r.hi) return r.coeff;
  return 0;
}

void Sym::combine(const Sym& other, std::int64_t sign) {
  // Sweep over the runs' boundaries: the coefficient is piecewise constant
  // between them. Each run adds coeff at lo and takes it away after hi.
  struct Event {
    std::int16_t owner;
    std::int64_t pos;
    std::int64_t delta;
  };
  std::vector<Event> events;
  events.reserve(2 * (runs_.size() + other.runs_.size()));
  for (const Run& r : runs_) {
    events.push_back({r.owner, r.lo, r.coeff});
    events.push_back({r.owner, std::int64_t{r.hi} + 1, -r.coeff});
  }
  for (const Run& r : other.runs_) {
    events.push_back({r.owner, r.lo, sign * r.coeff});
    events.push_back({r.owner, std::int64_t{r.hi} + 1, -sign * r.coeff});
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return std::pair{a.owner, a.pos} < std::pair{b.owner, b.pos}; });
  std::vector<Run> out;
  std::int64_t coeff = 0;
  for (std::size_t i = 0; i < events.size();) {
    const auto owner = events[i].owner;
    const auto pos = events[i].pos;
    for (; i < events.size() && events[i].owner == owner && events[i].pos == pos; ++i) coeff += events[i].delta;
    // coeff now holds from pos up to the next event of this owner (it returns
    // to 0 after the owner's last event).
    if (coeff == 0 || i == events.size() || events[i].owner != owner) continue;
    const auto hi = static_cast<std::int32_t>(events[i].pos - 1);
    if (!out.empty() && out.back().owner == owner && out.back().hi + 1 == pos && out.back().coeff == coeff) {
      out.back().hi = hi;
    } else {
      out.push_back({owner, static_cast<std::int32_t>(pos), hi, coeff});
    }
  }
  runs_ = std::move(out);
}

Sym& Sym::operator+=(const Sym& other) {
  combine(other, 1);
  return *this;
}

Sym& Sym::operator-=(const Sym& other) {
  combine(other, -1);
  return *this;
}

Sym operator-(Sym a) {
  for (auto& r : a.runs_) r.coeff = -r.coeff;
  return a;
}

std::string Sym::to_string(SymStyle style) const {
  if (runs_.empty()) return "0";
  std::string out;
  for (const Run& r : runs_) {
    if (r.coeff < 0) {
      out += out.empty() ? "-" : " - ";
    } else if (!out.empty()) {
      out += " + ";
    }
    const std::int64_t mag = r.coeff < 0 ? -r.coeff : r.coeff;
    if (mag != 1) out += std::to_string(mag) + "*";
    out += lane_letter(r.owner);
    out += std::to_string(r.lo);
    if (r.hi != r.lo || style == SymStyle::Range) {
      out += ':';
      out += std::to_string(r.hi);
    }
  }
  return out;
}

}  // namespace warpsim::sim
