// Philox4x32-10 with its round keys computed once: the same function as
// Random123's r123::Philox4x32 (rng/philox_uniform.hpp's philox_bits), for
// kernels that draw many blocks under one key. Random123 bumps the key
// between rounds inside every call; a sampler whose key is the seed pays
// those 18 additions a block for nothing. Here the ten round keys are made
// once (PhiloxKeyed(seed)), and a block is ten rounds of two 32 x 32 -> 64
// multiplications and two three-way XORs.
//
// Host and device: tests/unit/philox_keyed_test.cpp checks it against
// Random123 on the host, bit for bit, and the GPU samplers that use it are
// checked draw for draw against the oracle, which calls Random123.
//
// Usage:
//   const detail::PhiloxKeyed philox(seed);
//   const auto x = philox(stream, 0);  // == rng::philox_bits(seed, stream, 0)
#pragma once

#include <Random123/philox.h>

#include <cstdint>

#include "gpu/detail/host_device.hpp"


namespace warpsim::gpu::detail {

class PhiloxKeyed {
 public:
  static constexpr int kRounds = 10;

  /// @param seed  the key, as rng/ forms it: {low 32 bits, high 32 bits}
  WARPSIM_HD explicit PhiloxKeyed(std::uint64_t seed) {
    std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
    for (int r = 0; r < kRounds; ++r) {
      key0_[r] = k0;
      key1_[r] = k1;
      k0 += PHILOX_W32_0;
      k1 += PHILOX_W32_1;
    }
  }

  /// The block of counter {stream low, stream high, draw, word3}: rng::philox_bits.
  WARPSIM_HD r123::Philox4x32::ctr_type operator()(std::uint64_t stream, std::uint32_t draw, std::uint32_t word3 = 0) const {
    std::uint32_t c0 = static_cast<std::uint32_t>(stream), c1 = static_cast<std::uint32_t>(stream >> 32), c2 = draw, c3 = word3;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int r = 0; r < kRounds; ++r) {
      const std::uint64_t p0 = static_cast<std::uint64_t>(PHILOX_M4x32_0) * c0;  // mul.wide.u32
      const std::uint64_t p1 = static_cast<std::uint64_t>(PHILOX_M4x32_1) * c2;
      const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
      const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
      c0 = hi1 ^ c1 ^ key0_[r];
      c1 = lo1;
      c2 = hi0 ^ c3 ^ key1_[r];
      c3 = lo0;
    }
    return {{c0, c1, c2, c3}};
  }

 private:
  std::uint32_t key0_[kRounds], key1_[kRounds];
};

}  // namespace warpsim::gpu::detail

