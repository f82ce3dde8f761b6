// Two draws from one Philox block, exactly: the mapping the sectioned alias
// sampler uses (oracle/alias/sectioned.hpp and gpu/alias_sectioned.cu both
// call these, so a draw takes the same bits in both).
//
//   draw d of the streams from `base` takes half h = d & 1 of the Philox
//   block (seed, stream base + (d >> 1), 0): its words 2h and 2h + 1. If it
//   needs more bits (rarely), it takes the same half of the blocks (seed,
//   stream base + (d >> 1), j) for j = 1, 2, ..., two words at a time.
//
//   index_below(x, n, bits)  a uniform index in [0, n) from the 32-bit word
//                            x, exactly (Lemire's multiply-shift: x n >> 32,
//                            and where the low half of x n falls below
//                            2^32 mod n, which happens with probability
//                            below n / 2^32, another word instead)
//   bits_below(x, t, bits)   whether a 64-bit uniform is below t, its high
//                            word x: decided by x alone unless x equals t's
//                            high word (probability 2^-32), then by the next
//                            word against t's low word -- exactly t / 2^64
//
// So a draw costs half a Philox block, where the 128-bit mapping
// (philox_uniform.hpp, philox_bits128) costs a whole one, and its law is the
// same: each row exactly 1/n, each coin exactly t / 2^64.
#pragma once

#include <cstdint>

#include "rng/philox_uniform.hpp"

namespace warpsim::rng {

class HalfBlock {
 public:
  // Draw d's half of block (seed, base + (d >> 1), 0), from that block's
  // words (computed by the caller, once for both halves).
  WARPSIM_HOST_DEVICE HalfBlock(std::uint64_t seed, std::uint64_t base, std::uint64_t d, const r123::Philox4x32::ctr_type& block)
      : seed_(seed), stream_(base + (d >> 1)), half_(static_cast<std::uint32_t>(d & 1)) {
    word_[0] = block.v[2 * half_];
    word_[1] = block.v[2 * half_ + 1];
  }
  // Draw d computing its block itself.
  WARPSIM_HOST_DEVICE HalfBlock(std::uint64_t seed, std::uint64_t base, std::uint64_t d)
      : HalfBlock(seed, base, d, philox_bits(seed, base + (d >> 1), 0)) {}

  WARPSIM_HOST_DEVICE std::uint32_t first() const { return word_[0]; }
  WARPSIM_HOST_DEVICE std::uint32_t second() const { return word_[1]; }
  // The next extra word: block j's words 2h, 2h + 1, then block j + 1's.
  WARPSIM_HOST_DEVICE std::uint32_t next() {
    if (extra_ % 2 == 0) {
      const auto x = philox_bits(seed_, stream_, extra_ / 2 + 1);
      pending_ = x.v[2 * half_ + 1];
      ++extra_;
      return x.v[2 * half_];
    }
    ++extra_;
    return pending_;
  }

 private:
  std::uint64_t seed_, stream_;
  std::uint32_t half_;
  std::uint32_t word_[2];
  std::uint32_t extra_ = 0, pending_ = 0;
};

WARPSIM_HOST_DEVICE inline std::uint32_t index_below(std::uint32_t x, std::uint32_t n, HalfBlock& bits) {
  std::uint64_t m = static_cast<std::uint64_t>(x) * n;
  if (static_cast<std::uint32_t>(m) < n) {
    const std::uint32_t t = (0u - n) % n;  // 2^32 mod n
    while (static_cast<std::uint32_t>(m) < t) m = static_cast<std::uint64_t>(bits.next()) * n;
  }
  return static_cast<std::uint32_t>(m >> 32);
}

WARPSIM_HOST_DEVICE inline bool bits_below(std::uint32_t x, std::uint64_t t, HalfBlock& bits) {
  const auto high = static_cast<std::uint32_t>(t >> 32);
  if (x != high) return x < high;
  return bits.next() < static_cast<std::uint32_t>(t);
}

}  // namespace warpsim::rng
