// The operations a Communicator forwards to (dist/communicator.hpp): one
// process (dist/communicator.cpp) or MPI (dist/mpi_communicator.cpp).
#pragma once

#include "dist/communicator.hpp"

namespace warpsim::dist {

struct Communicator::Impl {
  virtual ~Impl() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string describe() const = 0;
  virtual void sum(std::span<std::uint64_t> values) const = 0;
  virtual double max(double value) const = 0;
  virtual int broadcast(int value) const = 0;
  virtual std::vector<std::string> gather(const std::string& text) const = 0;
  [[noreturn]] virtual void abort(int exit_code, const std::string& message) const = 0;
};

#ifdef WARPSIM_HAVE_MPI
// MPI_COMM_WORLD, MPI initialised now and finalised at exit.
std::shared_ptr<Communicator::Impl> mpi_world();
#endif

}  // namespace warpsim::dist
