// properties/lda_sbc.hpp's GPU sweep where warpsim is built without CUDA.
#include "properties/lda_sbc.hpp"

namespace warpsim::properties {

std::unique_ptr<LdaSweep> gpu_lda_sweep(std::string* why) {
  if (why) *why = "this warpsim was built without CUDA (no nvcc at configure time)";
  return nullptr;
}

}  // namespace warpsim::properties
