// A plugin's worker under mpirun: its Communicator relays each collective
// operation to its parent, the MPI process.
//
// `warpsim validate --plugin` runs the plugin in a worker forked before
// anything else starts (cli/validate/sandbox.hpp), MPI included, so that a
// plugin that crashes, exits or hangs cannot decide the verdict. Under
// mpirun the worker still shares the law's draws with the other ranks: its
// Communicator (dist/communicator.hpp) sends each operation over the
// sandbox's Channel, and the parent performs it on MPI_COMM_WORLD and
// sends back the result. Every worker makes the same operations in the
// same order (validate's are collective), so the parents' MPI calls match.
//
//   Channel ch = relay_channel(worker_comm);   // worker_comm set in the worker
//   run_in_worker(work, who, seconds, &ch);
#pragma once

#include <optional>

#include "cli/validate/sandbox.hpp"
#include "dist/communicator.hpp"

namespace warpsim::cli::validate {

// The channel of a relaying worker: in the worker, `worker_comm` becomes a
// Communicator whose operations are requests to the parent; the parent
// serves them on dist::Communicator::world() (MPI starts at its first).
// A worker's abort asks the parent to end the job (MPI_Abort), naming the
// rank.
Channel relay_channel(std::optional<dist::Communicator>& worker_comm);

}  // namespace warpsim::cli::validate
