// The Communicator over MPI (built where CMake finds MPI: WARPSIM_HAVE_MPI).
#include <mpi.h>

#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>

#include "dist/communicator_impl.hpp"
#include "dist/mpi.hpp"

namespace warpsim::dist {

namespace {

void finalize_at_exit() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (initialised && !finalised) MPI_Finalize();
}

struct Mpi final : Communicator::Impl {
  explicit Mpi(MPI_Comm c) : comm(c) {
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
  }
  int rank() const override { return r; }
  int size() const override { return n; }
  std::string describe() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string v(version, static_cast<std::size_t>(len));
    if (const auto comma = v.find(','); comma != std::string::npos) v.resize(comma);  // "Open MPI v4.1.4"
    return "MPI (" + v + "), " + std::to_string(n) + (n == 1 ? " rank" : " ranks");
  }
  void sum(std::span<std::uint64_t> values) const override {
    // In pieces of at most 2^30 elements (MPI counts are int).
    constexpr std::size_t kPiece = std::size_t{1} << 30;
    for (std::size_t at = 0; at < values.size(); at += kPiece) {
      const int m = static_cast<int>(std::min(kPiece, values.size() - at));
      MPI_Allreduce(MPI_IN_PLACE, values.data() + at, m, MPI_UINT64_T, MPI_SUM, comm);
    }
  }
  double max(double value) const override {
    double out = value;
    MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
    return out;
  }
  int broadcast(int value) const override {
    MPI_Bcast(&value, 1, MPI_INT, 0, comm);
    return value;
  }
  std::vector<std::string> gather(const std::string& text) const override {
    const int len = static_cast<int>(text.size());
    std::vector<int> lens(static_cast<std::size_t>(n)), at(static_cast<std::size_t>(n));
    MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm);
    int total = 0;
    for (int i = 0; i < n; ++i) {
      at[static_cast<std::size_t>(i)] = total;
      total += lens[static_cast<std::size_t>(i)];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Allgatherv(text.data(), len, MPI_CHAR, all.data(), lens.data(), at.data(), MPI_CHAR, comm);
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back(all.substr(static_cast<std::size_t>(at[static_cast<std::size_t>(i)]), static_cast<std::size_t>(lens[static_cast<std::size_t>(i)])));
    return out;
  }
  [[noreturn]] void abort(int exit_code, const std::string& message) const override {
    // One write, so that the line is whole however mpirun interleaves the
    // ranks' standard errors.
    const std::string line = "warpsim: rank " + std::to_string(r) + " of " + std::to_string(n) + ": " + message + "\n";
    std::cerr.write(line.data(), static_cast<std::streamsize>(line.size()));
    std::cerr.flush();
    MPI_Abort(comm, exit_code);
    std::_Exit(exit_code);  // (MPI_Abort does not return)
  }
  MPI_Comm comm;
  int r = 0, n = 1;
};

}  // namespace

std::shared_ptr<Communicator::Impl> mpi_world() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit(finalize_at_exit);
  }
  return std::make_shared<Mpi>(MPI_COMM_WORLD);
}

Communicator over(MPI_Comm comm) { return Communicator(std::make_shared<Mpi>(comm)); }

}  // namespace warpsim::dist
