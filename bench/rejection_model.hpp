// Seed 004's predictions for the rejection benchmark, computed in host code
// (rejection_model.cpp: oracle/rejection/loop_model.hpp, Eigen) so that the
// .cu file does not compile Eigen.
#pragma once

namespace warpsim::bench {

/// E[L_32]: a warp's iterations a call for a lane acceptance p, uncached, or
/// pre-cached in the steady state across calls.
double predicted_warp_iterations(bool precached, double p);

}  // namespace warpsim::bench
