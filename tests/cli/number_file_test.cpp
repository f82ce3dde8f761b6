// The number reader's limits and messages, at small limits so that each
// edge is cheap to reach.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "cli/errors.hpp"
#include "cli/input/number_file.hpp"

using warpsim::cli::NumberLimits;
using warpsim::cli::read_numbers;
using warpsim::cli::UsageError;

namespace {

std::string error_of(const std::string& text, const NumberLimits& limits = {}) {
  std::istringstream in(text);
  try {
    read_numbers(in, "f", limits);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<double> numbers(const std::string& text) {
  std::istringstream in(text);
  return read_numbers(in, "f");
}

}  // namespace

TEST(NumberFile, ReadsEverySeparatorAndSign) {
  EXPECT_EQ(numbers("1,2;3\t4\r\n+5 -6\f7\v8\n"), (std::vector<double>{1, 2, 3, 4, 5, -6, 7, 8}));
}

TEST(NumberFile, ReadsSubnormalsExactlyAndZeroWithAHugeExponent) {
  const auto v = numbers("1e-310 4.9e-324 0e-999");
  EXPECT_EQ(v[0], 1e-310);
  EXPECT_EQ(v[1], 4.9e-324);
  EXPECT_EQ(v[2], 0.0);
}

TEST(NumberFile, RefusesOverflowAndUnderflowSayingWhich) {
  EXPECT_NE(error_of("1e400").find("overflows to infinity"), std::string::npos);
  EXPECT_NE(error_of("-1e400").find("overflows to infinity"), std::string::npos);
  EXPECT_NE(error_of("1e-400").find("underflows to 0"), std::string::npos);
  EXPECT_NE(error_of("1e-99999").find("underflows to 0"), std::string::npos);
}

TEST(NumberFile, NamesLineAndToken) {
  EXPECT_NE(error_of("1\n2\n\nx3\n").find("line 4: 'x3' is not a number"), std::string::npos);
}

TEST(NumberFile, EnforcesEachLimit) {
  EXPECT_NE(error_of("1 2 3 4", {.max_count = 3}).find("holds more than 3 numbers"), std::string::npos);
  EXPECT_NE(error_of("123456", {.max_token_chars = 5}).find("a token longer than 5 characters"), std::string::npos);
  EXPECT_NE(error_of("1" + std::string(200, ' '), {.max_bytes = 100}).find("longer than 100 bytes"), std::string::npos);
  std::istringstream at_limit("1 2 3");
  EXPECT_EQ(read_numbers(at_limit, "f", {.max_count = 3, .max_token_chars = 1, .max_bytes = 5}).size(), 3u);
}

TEST(NumberFile, MessagesArePrintableAndShort) {
  const std::string e = error_of(std::string("\x1b[31m\0", 6) + std::string(5000, 'z'));
  for (char c : e) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << e;
  EXPECT_NE(e.find("\\x1b[31m\\x00"), std::string::npos) << e;
  EXPECT_LT(e.size(), 200u) << e;
}

TEST(NumberFile, EmptyInputHoldsNoNumbers) {
  EXPECT_NE(error_of("").find("holds no numbers"), std::string::npos);
  EXPECT_NE(error_of(" ,; \n\n").find("holds no numbers"), std::string::npos);
}
