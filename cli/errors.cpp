#include "cli/errors.hpp"

#include <cstdio>

namespace warpsim::cli {

std::string printable(std::string_view text, std::size_t max_chars) {
  std::string out;
  const std::size_t shown = std::min(text.size(), max_chars);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (shown < text.size()) out.append("... (").append(std::to_string(text.size())).append(" characters)");
  return out;
}

}  // namespace warpsim::cli
