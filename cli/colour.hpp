// One colour rule for every picture of a layout -- text, SVG and HTML: a cell
// takes the colour of the lane that owns it (lanes spread around the hue
// circle, light enough to read black text on), white when no lane does; a
// changed cell is outlined in red, a highlighted one in black. The renderers
// ask this policy and never pick colours themselves.
#pragma once

#include <cstdint>
#include <string>

namespace warpsim::cli {

struct Rgb {
  std::uint8_t r = 255, g = 255, b = 255;
  std::string hex() const;            // "#rrggbb"
  std::string ansi_background() const;  // 24-bit terminal background
};

class LaneColours {
 public:
  explicit LaneColours(int lanes) : lanes_(lanes < 1 ? 1 : lanes) {}
  // Owner lane (-1: none) -> fill.
  Rgb fill(int owner) const;
  static Rgb changed() { return {0xd6, 0x27, 0x28}; }
  static Rgb highlighted() { return {0, 0, 0}; }

 private:
  int lanes_;
};

}  // namespace warpsim::cli
