// One colour rule for text, SVG and HTML (cli/colour.hpp): the three pictures
// of one layout give each lane's cells the same colour.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "cli/app.hpp"
#include "cli/colour.hpp"
#include "cli/input/sources.hpp"

using namespace warpsim::cli;

namespace {

std::string run(std::vector<std::string> args) {
  std::ostringstream out, err;
  EXPECT_EQ(run_cli(args, out, err, MemoryInputs{}), 0) << err.str();
  return out.str();
}

}  // namespace

TEST(Colour, LanesGetDistinctLightColoursAndNoOwnerIsWhite) {
  const LaneColours c(16);
  EXPECT_EQ(c.fill(-1).hex(), "#ffffff");
  for (int a = 0; a < 16; ++a) {
    const Rgb x = c.fill(a);
    EXPECT_GT(x.r + x.g + x.b, 3 * 170) << "light enough for black text";
    for (int b = a + 1; b < 16; ++b) EXPECT_NE(x.hex(), c.fill(b).hex()) << a << " " << b;
  }
}

TEST(Colour, TextSvgAndHtmlUseTheSameRule) {
  const LaneColours c(8);
  const std::string svg = run({"show", "butterfly", "--lanes", "8", "--format", "svg"});
  const std::string html = run({"show", "butterfly", "--lanes", "8", "--format", "html"});
  const std::string text = run({"show", "butterfly", "--lanes", "8", "--color", "always"});
  const std::string plain = run({"show", "butterfly", "--lanes", "8"});
  for (int lane = 0; lane < 8; ++lane) {
    const std::string hex = c.fill(lane).hex();
    EXPECT_NE(svg.find("fill=\"" + hex), std::string::npos) << lane;
    EXPECT_NE(html.find(hex), std::string::npos) << lane;
    EXPECT_NE(text.find(c.fill(lane).ansi_background()), std::string::npos) << lane;
  }
  EXPECT_NE(html.find(LaneColours::changed().hex()), std::string::npos);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos) << "no escape codes unless asked (or on a terminal)";
}
