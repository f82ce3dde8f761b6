// Module header: warpsim's work over several processes (MPI ranks).
//
//   dist/communicator.hpp  Communicator (world, self; sum, max, broadcast,
//                          gather, abort), Share and share_of, built_with_mpi,
//                          launched_by_mpirun
//   dist/mpi.hpp           over(MPI_Comm): a user's own communicator (MPI builds)
#pragma once

#include "dist/communicator.hpp"
