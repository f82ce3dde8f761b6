#include "cli/validate/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace warpsim::cli::validate {

std::string grouped(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::ostream* Progress::terminal_stderr() { return ::isatty(STDERR_FILENO) == 1 ? &std::cerr : nullptr; }

void Progress::start(std::string what, std::optional<std::uint64_t> total) {
  finish();
  what_ = std::move(what);
  total_ = total;
  begin_ = last_ = Clock::now();
}

void Progress::update(std::uint64_t done) {
  if (!out_) return;
  const auto now = Clock::now();
  if (now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - begin_).count();
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  char tail[96];
  std::string line = "\r  validate: " + grouped(done);
  if (total_ && *total_ > 0) {
    const double left = rate > 0 ? static_cast<double>(*total_ - std::min(done, *total_)) / rate : 0;
    std::snprintf(tail, sizeof tail, " %3.0f%%  %.2g/s  %.1f s left", 100.0 * static_cast<double>(done) / static_cast<double>(*total_), rate, left);
    line += " / " + grouped(*total_) + " " + what_ + tail;
  } else {
    std::snprintf(tail, sizeof tail, "  %.2g/s  %.1f s", rate, seconds);
    line += " " + what_ + tail;
  }
  *out_ << line << "\x1b[K" << std::flush;
  drawn_ = true;
}

void Progress::finish() {
  if (out_ && drawn_) *out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace warpsim::cli::validate
