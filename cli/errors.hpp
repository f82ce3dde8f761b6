// What the command line promises about failure: its exit codes, the error
// for input it refuses, and how it echoes text it was given.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace warpsim::cli {

// Exit codes. 1 means only "the work ran and found a failure" (for `stats`:
// the test rejected); anything wrong with what was asked is 2; 3 is a bug in
// warpsim itself (an exception the code did not expect), never bad input.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailureFound = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternal = 3;

// Input that is well-formed on the command line but cannot be used: a bad
// file, values out of range, options that do not fit together, or work past a
// stated limit. The CLI prints it and exits with kExitUsage.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `text` made safe to print in a message: control and non-ASCII bytes as \xNN
// (a NUL no longer ends the message), and at most `max_chars` of it, the rest
// counted ("... (200000 characters)").
std::string printable(std::string_view text, std::size_t max_chars = 60);

}  // namespace warpsim::cli
