// Built without CUDA: the catalogue's CUDA forms cannot run here, and say so.
#include "properties/mutants.hpp"

namespace warpsim::properties {

Sampler cuda_mutant(Mutation m) {
  Sampler s = host_mutant(m);
  s.name += "@cuda";
  s.where = "CUDA";
  s.f32 = nullptr;
  s.f64 = nullptr;
  s.unavailable = [] { return std::string("warpsim was built without CUDA"); };
  return s;
}

}  // namespace warpsim::properties
