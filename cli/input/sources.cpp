#include "cli/input/sources.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

#include "cli/errors.hpp"
#include "cli/input/arrays.hpp"

namespace warpsim::cli {

void refuse_unless_regular(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);  // follows links: what opening would reach
  if (ec || !std::filesystem::exists(st)) return;
  const char* kind = nullptr;
  const char* why = "";
  switch (st.type()) {
    case std::filesystem::file_type::regular: return;
    case std::filesystem::file_type::directory: kind = "a directory"; break;
    case std::filesystem::file_type::fifo: kind = "a FIFO (a named pipe)", why = ": opening it could block forever"; break;
    case std::filesystem::file_type::socket: kind = "a socket"; break;
    case std::filesystem::file_type::character: kind = "a character device", why = ": it may never end (use - for standard input)"; break;
    case std::filesystem::file_type::block: kind = "a block device"; break;
    default: kind = "something other than a file"; break;
  }
  throw UsageError(what + " '" + printable(path, 200) + "' is " + kind + ", not a file" + why);
}

namespace {

// A read-only stream buffer over a file descriptor whose read errors end as
// a UsageError naming the file. (libstdc++'s filebuf throws
// std::ios_base::failure from underflow where read(2) fails -- /proc/self/mem,
// /proc/self/pagemap, a failing disk -- which ended as an internal error.)
class FileReadBuf : public std::streambuf {
 public:
  FileReadBuf(int fd, std::string quoted) : fd_(fd), quoted_(std::move(quoted)) {}
  ~FileReadBuf() override { ::close(fd_); }
  FileReadBuf(const FileReadBuf&) = delete;
  FileReadBuf& operator=(const FileReadBuf&) = delete;

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const std::size_t n = read_some(buf_, sizeof buf_);
    if (n == 0) return traits_type::eof();
    setg(buf_, buf_, buf_ + n);
    return traits_type::to_int_type(*gptr());
  }
  // Bulk reads (the .npy readers) go straight to the file past the buffer.
  std::streamsize xsgetn(char* s, std::streamsize n) override {
    std::streamsize got = 0;
    while (got < n) {
      if (gptr() < egptr()) {
        const std::streamsize k = std::min<std::streamsize>(n - got, egptr() - gptr());
        std::memcpy(s + got, gptr(), static_cast<std::size_t>(k));
        gbump(static_cast<int>(k));
        got += k;
      } else if (n - got >= static_cast<std::streamsize>(sizeof buf_)) {
        const std::size_t k = read_some(s + got, static_cast<std::size_t>(n - got));
        if (k == 0) break;
        got += static_cast<std::streamsize>(k);
      } else if (underflow() == traits_type::eof()) {
        break;
      }
    }
    return got;
  }

 private:
  std::size_t read_some(char* into, std::size_t n) {
    for (;;) {
      const ssize_t k = ::read(fd_, into, n);
      if (k >= 0) return static_cast<std::size_t>(k);
      if (errno == EINTR) continue;
      throw UsageError("cannot read " + quoted_ + ": " + std::strerror(errno));
    }
  }

  int fd_;
  std::string quoted_;
  char buf_[1 << 16];
};

class FileStream : public std::istream {
 public:
  FileStream(int fd, std::string quoted) : std::istream(nullptr), buf_(fd, std::move(quoted)) {
    rdbuf(&buf_);
    exceptions(std::ios::badbit);  // an extraction through the stream rethrows the buffer's error
  }

 private:
  FileReadBuf buf_;
};

}  // namespace

std::unique_ptr<std::istream> FileInputs::open(const std::string& path) const {
  if (path == "-") return std::make_unique<std::istream>(std::cin.rdbuf());
  refuse_unless_regular(path, "input");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UsageError("cannot open '" + printable(path, 200) + "'");
  return std::make_unique<FileStream>(fd, "'" + printable(path, 200) + "'");
}

std::unique_ptr<ArrayReader> InputSource::open_view(const std::string&, const ArrayLimits&) const { return nullptr; }

std::unique_ptr<std::istream> MemoryInputs::open(const std::string& path) const {
  const auto it = files.find(path);
  if (it == files.end()) throw UsageError("cannot open '" + printable(path, 200) + "'");
  return std::make_unique<std::istringstream>(it->second);
}

}  // namespace warpsim::cli
