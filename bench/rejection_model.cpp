#include "rejection_model.hpp"

#include "oracle/rejection/loop_model.hpp"

namespace warpsim::bench {

double predicted_warp_iterations(bool precached, double p) {
  return precached ? oracle::rejection::cached_loop(32, p).loop.mean : oracle::rejection::uncached_loop(32, p).mean;
}

}  // namespace warpsim::bench
