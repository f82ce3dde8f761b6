// Whole reads and writes on a pipe's file descriptor, retried where a signal
// interrupts them: the sandbox's report frame and the relay's requests
// (cli/validate/sandbox.cpp, relay.cpp).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace warpsim::cli::validate {

// False where the other end is gone (or another error) before n bytes.
inline bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

inline bool read_all(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace warpsim::cli::validate
