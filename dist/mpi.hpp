// A Communicator over a user's own MPI communicator (include <mpi.h> first;
// link warpsim::dist, built with MPI). The communicator must outlive every
// use; warpsim neither duplicates nor frees it.
#pragma once

#include <mpi.h>

#include "dist/communicator.hpp"

namespace warpsim::dist {

Communicator over(MPI_Comm comm);

}  // namespace warpsim::dist
