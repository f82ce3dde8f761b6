// A progress line for long runs, on standard error when it is a terminal:
//   validate: 412,000,000 / 1,000,000,000 draws  41%  2.1e8/s  2.8 s left
// Quiet when piped or redirected (and in-process callers pass none): nothing
// is written, and the cost is one clock read per update call.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace warpsim::cli::validate {

class Progress {
 public:
  // `out` null: quiet.
  explicit Progress(std::ostream* out = nullptr) : out_(out) {}
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // A new phase: what is counted ("draws"), and how many there are if known.
  void start(std::string what, std::optional<std::uint64_t> total);
  // `done` so far in this phase; redraws at most 10 times a second.
  void update(std::uint64_t done);
  // Clears the line.
  void finish();
  bool enabled() const { return out_ != nullptr; }

  // The standard error stream if it is a terminal, else null.
  static std::ostream* terminal_stderr();

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream* out_;
  std::string what_;
  std::optional<std::uint64_t> total_;
  Clock::time_point begin_{}, last_{};
  bool drawn_ = false;
};

// 1234567 -> "1,234,567".
std::string grouped(std::uint64_t n);

}  // namespace warpsim::cli::validate
