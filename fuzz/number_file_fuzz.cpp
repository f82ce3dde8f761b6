// Fuzz target: the number-file reader (cli/input/number_file.hpp), the parser every
// command's --weights, --observed and --probabilities go through.
//
// Checks: it returns numbers or throws UsageError, nothing else; within the
// limits it was given; a message is printable; and every number it returns
// is one the text spelled: printed back in shortest form and read again, it
// is the same double (NaN aside).
#include <charconv>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "cli/errors.hpp"
#include "cli/input/number_file.hpp"
#include "fuzz/fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpsim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const cli::NumberLimits limits{.max_count = 64, .max_token_chars = 40, .max_bytes = 2048};
  std::istringstream in(text);
  try {
    const auto numbers = cli::read_numbers(in, "fuzz input", limits);
    if (numbers.empty() || numbers.size() > limits.max_count) fuzz::violated("count outside [1, max_count]");
    if (size > limits.max_bytes) fuzz::violated("read past max_bytes");
    for (double v : numbers) {
      if (std::isnan(v)) continue;
      char buf[64];
      const auto w = std::to_chars(buf, buf + sizeof buf, v);
      double back = 0;
      std::from_chars(buf, w.ptr, back);
      if (!(back == v)) fuzz::violated("a number does not survive printing and reading back");
    }
  } catch (const cli::UsageError& e) {
    fuzz::expect_printable(e.what(), "message");
  }
  return 0;
}
