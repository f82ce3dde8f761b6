#include "cli/colour.hpp"

#include <cmath>
#include <cstdio>

namespace warpsim::cli {

std::string Rgb::hex() const {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

std::string Rgb::ansi_background() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "\x1b[48;2;%d;%d;%dm", r, g, b);
  return buf;
}

Rgb LaneColours::fill(int owner) const {
  if (owner < 0) return {};
  // HSL(h, 70%, 85%) -> RGB, h = owner * 360 / lanes.
  const double h = static_cast<double>(owner * 360 / lanes_) / 60.0, s = 0.70, l = 0.85;
  const double c = (1 - std::abs(2 * l - 1)) * s;
  const double x = c * (1 - std::abs(std::fmod(h, 2.0) - 1));
  const double m = l - c / 2;
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(h) % 6) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
  }
  auto byte = [&](double v) { return static_cast<std::uint8_t>(std::lround((v + m) * 255)); };
  return {byte(r), byte(g), byte(b)};
}

}  // namespace warpsim::cli
