#include "cli/validate/relay.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/validate/fd_io.hpp"
#include "dist/communicator_impl.hpp"

namespace warpsim::cli::validate {

namespace {

// Requests: one byte naming the operation, then its operands; answers carry
// the result alone. Lengths and counts are uint64, in this machine's order
// (both ends are the same program on the same host).
constexpr char kWho = 'W';        // -> int32 rank, int32 size, text describe
constexpr char kSum = 'S';        // uint64 n, n x uint64 -> n x uint64
constexpr char kMax = 'M';        // double -> double
constexpr char kBroadcast = 'B';  // int32 -> int32
constexpr char kGather = 'G';     // text -> uint64 n, n x text
constexpr char kAbort = 'A';      // int32 code, text -> (the job ends)

template <class T>
bool put(int fd, const T& v) {
  return write_all(fd, &v, sizeof v);
}
template <class T>
bool get(int fd, T& v) {
  return read_all(fd, &v, sizeof v);
}
bool put_text(int fd, const std::string& s) { return put(fd, std::uint64_t{s.size()}) && write_all(fd, s.data(), s.size()); }
bool get_text(int fd, std::string& s) {
  std::uint64_t n = 0;
  if (!get(fd, n) || n > (std::uint64_t{1} << 32)) return false;
  s.resize(static_cast<std::size_t>(n));
  return read_all(fd, s.data(), s.size());
}

// The worker's end: each operation a request, then a wait for the answer.
class Relay final : public dist::Communicator::Impl {
 public:
  Relay(int to_parent, int from_parent) : out_(to_parent), in_(from_parent) {}

  int rank() const override { return who().rank; }
  int size() const override { return who().size; }
  std::string describe() const override { return who().describe; }

  void sum(std::span<std::uint64_t> values) const override {
    check(put(out_, kSum) && put(out_, std::uint64_t{values.size()}) && write_all(out_, values.data(), values.size_bytes()) &&
          read_all(in_, values.data(), values.size_bytes()));
  }
  double max(double value) const override {
    check(put(out_, kMax) && put(out_, value) && get(in_, value));
    return value;
  }
  int broadcast(int value) const override {
    std::int32_t v = value;
    check(put(out_, kBroadcast) && put(out_, v) && get(in_, v));
    return v;
  }
  std::vector<std::string> gather(const std::string& text) const override {
    std::uint64_t n = 0;
    check(put(out_, kGather) && put_text(out_, text) && get(in_, n) && n <= (std::uint64_t{1} << 24));
    std::vector<std::string> all(static_cast<std::size_t>(n));
    for (auto& s : all) check(get_text(in_, s));
    return all;
  }
  [[noreturn]] void abort(int exit_code, const std::string& message) const override {
    const std::int32_t code = exit_code;
    put(out_, kAbort) && put(out_, code) && put_text(out_, message);
    ::_exit(exit_code);  // the parent ends the job; the worker need not wait
  }

 private:
  struct Who {
    int rank = 0, size = 1;
    std::string describe;
  };
  const Who& who() const {
    if (!who_) {
      std::int32_t r = 0, n = 0;
      Who w;
      check(put(out_, kWho) && get(in_, r) && get(in_, n) && get_text(in_, w.describe));
      w.rank = r, w.size = n;
      who_ = std::move(w);
    }
    return *who_;
  }
  static void check(bool ok) {
    if (!ok) throw std::runtime_error("validate: the worker lost its parent's channel");
  }

  int out_, in_;
  mutable std::optional<Who> who_;
};

// The parent's end: one request read, performed on MPI_COMM_WORLD, answered.
bool serve(int from_worker, int to_worker) {
  char op = 0;
  if (!get(from_worker, op)) return false;
  const dist::Communicator& comm = dist::Communicator::world();
  switch (op) {
    case kWho:
      return put(to_worker, std::int32_t{comm.rank()}) && put(to_worker, std::int32_t{comm.size()}) && put_text(to_worker, comm.describe());
    case kSum: {
      std::uint64_t n = 0;
      if (!get(from_worker, n) || n > (std::uint64_t{1} << 32)) return false;
      std::vector<std::uint64_t> v(static_cast<std::size_t>(n));
      if (!read_all(from_worker, v.data(), v.size() * sizeof(std::uint64_t))) return false;
      comm.sum(v);
      return write_all(to_worker, v.data(), v.size() * sizeof(std::uint64_t));
    }
    case kMax: {
      double v = 0;
      return get(from_worker, v) && put(to_worker, comm.max(v));
    }
    case kBroadcast: {
      std::int32_t v = 0;
      return get(from_worker, v) && put(to_worker, std::int32_t{comm.broadcast(v)});
    }
    case kGather: {
      std::string text;
      if (!get_text(from_worker, text)) return false;
      const auto all = comm.gather(text);
      if (!put(to_worker, std::uint64_t{all.size()})) return false;
      for (const auto& s : all) {
        if (!put_text(to_worker, s)) return false;
      }
      return true;
    }
    case kAbort: {
      std::int32_t code = 0;
      std::string message;
      if (!get(from_worker, code) || !get_text(from_worker, message)) return false;
      comm.abort(code, message);
    }
    default:
      return false;
  }
}

}  // namespace

Channel relay_channel(std::optional<dist::Communicator>& worker_comm) {
  Channel c;
  c.worker_end = [&worker_comm](int to_parent, int from_parent) {
    worker_comm.emplace(std::make_shared<Relay>(to_parent, from_parent));
  };
  c.serve = serve;
  return c;
}

}  // namespace warpsim::cli::validate
