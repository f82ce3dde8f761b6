// A group of processes that share one job: the ranks of an MPI communicator,
// or this process alone.
//
// warpsim runs on MPI (Debian's OpenMPI) for work beyond one GPU: one rank a
// GPU, across hosts. Nothing here is a transport of its own; a Communicator
// is the few collective operations the distributed paths use, over MPI where
// the build has it and the process was started by `mpirun`, else over one
// process, where each is the identity.
//
//   Communicator& c = Communicator::world();   // every rank of the job
//   const Share s = share_of(n, chunk, c.rank(), c.size());
//   ... count draws s.first .. s.first + s.count - 1 (global indices) ...
//   c.sum(counts);                              // every rank: the job's counts
//
// A user's MPI program passes its own communicator (dist/mpi.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace warpsim::dist {

class Communicator {
 public:
  // The operations, over MPI or one process (dist/communicator.cpp).
  struct Impl;

  // The job's every rank: MPI_COMM_WORLD where this build has MPI and the
  // process was started by mpirun (MPI is initialised on this first call, and
  // finalised at exit), else this process alone. Thread-compatible: call it
  // from one thread.
  static Communicator& world();
  // This process alone.
  static Communicator self();

  explicit Communicator(std::shared_ptr<Impl> impl);

  int rank() const;
  int size() const;
  bool distributed() const { return size() > 1; }
  // "MPI (Open MPI v4.1.4), 3 ranks" or "one process".
  std::string describe() const;

  // Every rank passes the same length; every rank gets the element-wise sum
  // over ranks (64-bit integers: counts of up to 2^64 - 1 draws are exact).
  void sum(std::span<std::uint64_t> values) const;
  // The largest of every rank's value, on every rank.
  double max(double value) const;
  // Rank 0's value, on every rank.
  int broadcast(int value) const;
  // Every rank's text, in rank order, on every rank.
  std::vector<std::string> gather(const std::string& text) const;

  // Ends the whole job: `message` on standard error, naming this rank where
  // there are several, then every rank's exit with `exit_code` (MPI_Abort;
  // alone: std::exit). For a failure that other ranks cannot know of (bad
  // input on one shard, a CUDA error on one GPU), so none waits forever.
  [[noreturn]] void abort(int exit_code, const std::string& message) const;

 private:
  std::shared_ptr<Impl> impl_;
};

// Whether this build has MPI (WARPSIM_HAVE_MPI), and whether this process
// was started by mpirun (its environment says so), without initialising MPI.
bool built_with_mpi();
bool launched_by_mpirun();

// This process's rank among those its launcher started on the same host
// (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK, Hydra's MPI_LOCALRANKID, Slurm's
// SLURM_LOCALID), read from the environment, so that a process forked before
// MPI starts knows it too; -1 where the launcher says nothing. One GPU a
// rank: rank r of a host takes that host's GPU r mod (its GPUs).
int local_rank();

// Rank `rank`'s share of n items handed out in whole chunks of `chunk` (the
// last chunk may be shorter): contiguous, rank 0 first, shares differing by
// at most one chunk. Item i is made by the same rank for a given R, and its
// value never depends on R: a chunk's draws are keyed by their global index.
struct Share {
  std::uint64_t first = 0;  // the first item
  std::uint64_t count = 0;  // items from `first` on
};
Share share_of(std::uint64_t n, std::uint64_t chunk, int rank, int ranks);

}  // namespace warpsim::dist
