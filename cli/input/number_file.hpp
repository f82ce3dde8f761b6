// Numbers from a file (or "-" for standard input): one a line, or separated by
// commas, semicolons or white space. Anything else is a UsageError that names
// the file, line and (printable, shortened) text.
//
// What reads as a number: a decimal or exponent form with an optional sign
// ("3", "-0.5", "+2.5e-3"), "inf", "nan". Subnormal values (1e-310) read
// exactly; a value that overflows a double (1e400) or underflows it to 0
// (1e-400) is refused rather than turned into inf or 0.
//
// Limits (each refused with a message that names it): at most `max_count`
// numbers, `max_token_chars` characters in one number, and `max_bytes` bytes
// read in all, so that /dev/zero or an endless stream ends in an error, not
// in exhausted memory.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "cli/input/sources.hpp"

namespace warpsim::cli {

struct NumberLimits {
  std::size_t max_count = 10'000'000;
  std::size_t max_token_chars = 1000;
  std::size_t max_bytes = std::size_t{1} << 30;
};

// The numbers of a stream one at a time, each with the line it is on (from
// 1), in constant memory: what reads the files that stream (validate's draws).
class NumberStream {
 public:
  NumberStream(std::istream& in, const std::string& name, const NumberLimits& limits);
  // The next number and its line; false at the end of the input.
  bool next(double& value, std::size_t& line);
  std::size_t count() const { return count_; }
  // "'name'" as messages quote it.
  const std::string& quoted_name() const { return file_; }

 private:
  std::streambuf* buf_;
  std::istream& in_;
  std::string file_;
  NumberLimits limits_;
  std::string token_;
  std::size_t line_ = 1, bytes_ = 0, token_line_ = 1, count_ = 0;
  bool done_ = false;
};

std::vector<double> read_numbers(std::istream& in, const std::string& name, const NumberLimits& limits = {});
std::vector<double> read_numbers(const InputSource& inputs, const std::string& path, const NumberLimits& limits = {});

}  // namespace warpsim::cli
