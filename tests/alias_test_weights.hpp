// The fixed weights the alias-table tests measure on (host, model and GPU
// tests alike), so that a figure in docs/ names one input: uniform fractions
// from a 64-bit LCG, and a power law of exponent 1 shuffled by a stride.
#pragma once

#include <cstdint>
#include <vector>

namespace warpsim::test {

// w_i uniform in [0, 1): 53-bit fractions (double) or 24-bit (float).
template <class T = double>
std::vector<T> uniform_weights(std::size_t n, std::uint64_t seed) {
  std::vector<T> w(n);
  for (auto& x : w) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    if constexpr (sizeof(T) == 4) x = static_cast<float>(seed >> 40) * 0x1p-24f;
    else x = static_cast<double>(seed >> 11) * 0x1p-53;
  }
  return w;
}

// w[(i * stride) mod n] = 1 / (i + 1); the stride must be prime to n.
template <class T = double>
std::vector<T> shuffled_power_law(std::size_t n, std::size_t stride = 40503) {
  std::vector<T> w(n);
  for (std::size_t i = 0; i < n; ++i) w[(i * stride) % n] = T(1) / static_cast<T>(i + 1);
  return w;
}

}  // namespace warpsim::test
