#include "cli/validate/sandbox.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <sstream>

#include "cli/errors.hpp"
#include "cli/validate/fd_io.hpp"

namespace warpsim::cli::validate {

namespace {

constexpr std::size_t kNoteBytes = 1024;
char* g_note = nullptr;  // shared with the parent; set in the worker only

// The frame the worker sends: a kind ('R' report, 'U' usage error, 'I'
// internal error), its exit code, and the text's length and bytes.
void send(int fd, char kind, int code, const std::string& text) {
  const std::uint64_t n = text.size();
  const std::int32_t c = code;
  write_all(fd, &kind, 1) && write_all(fd, &c, sizeof c) && write_all(fd, &n, sizeof n) && write_all(fd, text.data(), text.size());
}

std::string signal_name(int sig) {
  const char* d = ::strsignal(sig);
  return std::to_string(sig) + (d ? " (" + std::string(d) + ")" : std::string());
}

}  // namespace

void note_call(const std::string& what) {
  if (!g_note) return;
  const std::size_t n = std::min(what.size(), kNoteBytes - 1);
  std::memcpy(g_note, what.data(), n);
  g_note[n] = '\0';
}

SandboxOutcome run_in_worker(const std::function<int(std::ostream&)>& work, const std::string& who, double seconds, const Channel* channel) {
  void* shared = ::mmap(nullptr, kNoteBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw std::runtime_error("validate: cannot map the worker's note");
  auto* note = static_cast<char*>(shared);
  note[0] = '\0';
  int fds[2];
  if (::pipe(fds) != 0) {
    ::munmap(shared, kNoteBytes);
    throw std::runtime_error("validate: cannot make the worker's pipe");
  }
  // The channel's pipes: requests (worker to parent) and answers.
  int req[2] = {-1, -1}, ans[2] = {-1, -1};
  if (channel && (::pipe(req) != 0 || ::pipe(ans) != 0)) {
    for (const int fd : {req[0], req[1]}) {
      if (fd >= 0) ::close(fd);
    }
    ::close(fds[0]), ::close(fds[1]), ::munmap(shared, kNoteBytes);
    throw std::runtime_error("validate: cannot make the worker's request pipes");
  }
  auto close_channel = [&](bool worker_side) {
    if (!channel) return;
    ::close(worker_side ? req[0] : req[1]);
    ::close(worker_side ? ans[1] : ans[0]);
  };
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]), ::close(fds[1]), ::munmap(shared, kNoteBytes);
    if (channel) ::close(req[0]), ::close(req[1]), ::close(ans[0]), ::close(ans[1]);
    throw std::runtime_error("validate: cannot start the worker");
  }
  if (pid == 0) {
    // The worker: everything the plugin touches happens here; it ends with
    // _exit, never returning into its parent's stack.
    ::close(fds[0]);
    close_channel(true);
    g_note = note;
    std::ostringstream out;
    try {
      if (channel) channel->worker_end(req[1], ans[0]);
      const int code = work(out);
      note_call("");
      send(fds[1], 'R', code, out.str());
    } catch (const UsageError& e) {
      send(fds[1], 'U', 2, e.what());
    } catch (const std::exception& e) {
      send(fds[1], 'I', 3, e.what());
    }
    std::cout.flush();
    std::cerr.flush();
    ::_exit(0);
  }
  ::close(fds[1]);
  close_channel(false);
  std::string bytes;
  bool timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  char buf[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p[2] = {{fds[0], POLLIN, 0}, {channel ? req[0] : -1, POLLIN, 0}};
    const int ready = ::poll(p, channel ? 2 : 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    if (channel && (p[1].revents & POLLIN)) {
      // A request; its answer may wait for other processes.
      if (channel->serve(req[0], ans[1])) continue;
      break;
    }
    if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the worker is done (or gone)
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (channel) ::close(req[0]), ::close(ans[1]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string in_flight = note[0] ? std::string(note) : std::string();
  ::munmap(shared, kNoteBytes);

  // A whole frame: the worker's own outcome.
  constexpr std::size_t kHeader = 1 + sizeof(std::int32_t) + sizeof(std::uint64_t);
  if (!timed_out && bytes.size() >= kHeader) {
    std::int32_t code;
    std::uint64_t n;
    std::memcpy(&code, bytes.data() + 1, sizeof code);
    std::memcpy(&n, bytes.data() + 1 + sizeof code, sizeof n);
    if (bytes.size() == kHeader + n) {
      std::string text = bytes.substr(kHeader);
      if (bytes[0] == 'R') return {code, std::move(text)};
      if (bytes[0] == 'U') throw UsageError(text);
      throw std::runtime_error(text);
    }
  }
  const std::string where = in_flight.empty() ? " (between the plugin's calls)" : " during " + in_flight;
  if (timed_out) {
    throw UsageError(who + " did not finish within " + std::to_string(static_cast<long long>(seconds)) + " s" + where +
                     "; the worker was stopped (--time-limit sets the limit)");
  }
  if (WIFSIGNALED(status)) {
    throw UsageError(who + " ended the worker that ran it with signal " + signal_name(WTERMSIG(status)) + where + ": no report");
  }
  if (WIFEXITED(status)) {
    throw UsageError(who + " ended the worker that ran it with exit(" + std::to_string(WEXITSTATUS(status)) + ")" + where +
                     ": no report, so no verdict");
  }
  throw UsageError(who + ": its worker ended without a report" + where);
}

}  // namespace warpsim::cli::validate
