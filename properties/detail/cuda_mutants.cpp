// The catalogue's CUDA forms as Samplers (CUDA builds): the kernels are in
// mutants_cuda.cu, reached through detail/mutation.hpp.
#include <string>

#include "gpu/device.hpp"
#include "properties/mutants.hpp"

namespace warpsim::properties {

Sampler cuda_mutant(Mutation m) {
  Sampler s = host_mutant(m);
  s.name += "@cuda";
  s.where = "CUDA";
  s.f32 = [m](const Matrix<float>& x, std::uint64_t seed) { return detail::cuda_warp_per_row(m, x.weights.data(), x.rows, x.cols, seed); };
  s.f64 = [m](const Matrix<double>& x, std::uint64_t seed) { return detail::cuda_warp_per_row(m, x.weights.data(), x.rows, x.cols, seed); };
  s.unavailable = [] {
    std::string reason;
    return gpu::first_device(&reason) ? std::string() : "no CUDA device: " + reason;
  };
  return s;
}

}  // namespace warpsim::properties
