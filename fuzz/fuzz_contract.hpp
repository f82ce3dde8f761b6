// What every fuzz target checks beyond "no crash, no sanitizer report, no
// timeout": the promises the command line makes about its output.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace warpsim::fuzz {

// Stops the run as a crash (libFuzzer records the input) with a reason.
[[noreturn]] inline void violated(const std::string& what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz contract violated: %s\n%.*s\n", what.c_str(), static_cast<int>(std::min<std::size_t>(detail.size(), 2000)),
               detail.data());
  std::abort();
}

// Messages are for people and terminals: printable ASCII and newlines only
// (a NUL would end them early; an escape sequence would drive the terminal).
inline void expect_printable(std::string_view text, const char* what) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (!(u == '\n' || (u >= 0x20 && u < 0x7f))) violated(std::string(what) + " holds an unprintable byte", text);
  }
}

}  // namespace warpsim::fuzz
