// A user's MPI program calling warpsim's distributed C++ API (dist/):
// each rank holds a slice of one weight vector no rank holds whole, the
// ranks build one alias table over it (a table a shard, the unit common to
// all), draw n times from the whole and check the law, in parts.
//
//   mpirun -np 4 ./example_mpi_sharded_alias 1000000 100000000
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "dist/alias.hpp"
#include "dist/mpi.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    const warpsim::dist::Communicator comm = warpsim::dist::over(MPI_COMM_WORLD);
    const std::uint64_t items = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    const std::uint64_t draws = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
    // This rank's slice of the whole: items first .. first + count - 1, weight i = 1 + i % 10.
    const auto share = warpsim::dist::share_of(items, 1, comm.rank(), comm.size());
    std::vector<double> w(share.count);
    for (std::uint64_t i = 0; i < share.count; ++i) w[i] = 1.0 + static_cast<double>((share.first + i) % 10);
    const auto table = warpsim::dist::build_sharded_alias<double>(comm, w);
    const auto counts = warpsim::dist::sample_counts(comm, table, draws, /*seed=*/42);
    // counts[i] is item table.offset + i of the whole.
    const auto verdict = warpsim::dist::law_in_parts(comm, table, counts, 1e-3);
    if (comm.rank() == 0) std::printf("%s\n", verdict.text().c_str());
    if (!verdict.consistent) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}
