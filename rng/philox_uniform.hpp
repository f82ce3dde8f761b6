// The random-number mapping that the GPU kernels and the oracle share, so the
// oracle can replay any GPU draw: this is the one header both include.
//
//   (seed, stream, draw) -> Philox4x32-10 (Random123), key = seed,
//                           counter = {stream low 32 bits, stream high 32 bits, draw, 0}
//                           (the fourth word is not 0 only for rng/binomial.hpp's own uniforms)
//   float:  u = (x0 >> 8) * 2^-24                       -- 24 bits, u in [0, 1 - 2^-24]
//   double: u = (((x0 << 32) | x1) >> 11) * 2^-53       -- 53 bits, u in [0, 1 - 2^-53]
//   128 bits (alias tables): hi = (x0 << 32) | x1, lo = (x2 << 32) | x3
//
// `stream` is the distribution's row in the matrix workload and the token's
// index in the LDA workload; `draw` numbers successive draws from one stream.
//
//   request_seed(s, r)  row r's seed in a batch given one seed s (the token
//                       sampler's requests): SplitMix64's output r + 1 from s
// Both conversions are exact (every such u is representable), and u < 1, so
// u' = total * u stays below the total in round-to-nearest.
#pragma once

#include <Random123/philox.h>

#include <cstdint>

#if defined(__CUDACC__)
#define WARPSIM_HOST_DEVICE __host__ __device__
#else
#define WARPSIM_HOST_DEVICE
#endif

namespace warpsim::rng {

// Row r's seed in a batch given one seed s: SplitMix64's output r + 1 from
// state s (Steele, Lea and Flood's finaliser of s + (r + 1) gamma, gamma the
// golden ratio's 64 bits). A bijection of s + (r + 1) gamma, so batches with
// seeds s and s + c share a row's seed only where c is a multiple of gamma
// of at least the rows' distance -- never for nearby seeds, where s + r
// would make row r + 1 of seed s row r of seed s + 1 (a batch's draws
// repeating the next batch's).
WARPSIM_HOST_DEVICE inline std::uint64_t request_seed(std::uint64_t seed, std::uint64_t row) {
  std::uint64_t z = seed + (row + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

WARPSIM_HOST_DEVICE inline r123::Philox4x32::ctr_type philox_bits(std::uint64_t seed, std::uint64_t stream, std::uint32_t draw,
                                                                   std::uint32_t word3 = 0) {
  r123::Philox4x32 philox;
  const r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32), draw, word3}};
  const r123::Philox4x32::key_type key = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  return philox(ctr, key);
}

// The block's 128 bits as one unsigned integer, most significant word first.
struct Bits128 {
  std::uint64_t hi = 0, lo = 0;
};

WARPSIM_HOST_DEVICE inline Bits128 philox_bits128(std::uint64_t seed, std::uint64_t stream, std::uint32_t draw = 0) {
  const auto x = philox_bits(seed, stream, draw);
  return {(static_cast<std::uint64_t>(x.v[0]) << 32) | x.v[1], (static_cast<std::uint64_t>(x.v[2]) << 32) | x.v[3]};
}

// A block's uniform (the float and double rules above), for callers that
// make the block themselves (gpu/detail/philox_keyed.hpp: the same bits).
template <class T>
WARPSIM_HOST_DEVICE inline T uniform_of(const r123::Philox4x32::ctr_type& x);

template <>
WARPSIM_HOST_DEVICE inline float uniform_of<float>(const r123::Philox4x32::ctr_type& x) {
  return static_cast<float>(x.v[0] >> 8) * 0x1p-24f;
}

template <>
WARPSIM_HOST_DEVICE inline double uniform_of<double>(const r123::Philox4x32::ctr_type& x) {
  const std::uint64_t bits = ((static_cast<std::uint64_t>(x.v[0]) << 32) | x.v[1]) >> 11;
  return static_cast<double>(bits) * 0x1p-53;
}

// word3: the counter's fourth word, 0 but for rng/binomial.hpp's own uniforms.
template <class T>
WARPSIM_HOST_DEVICE inline T uniform(std::uint64_t seed, std::uint64_t stream, std::uint32_t draw = 0, std::uint32_t word3 = 0) {
  return uniform_of<T>(philox_bits(seed, stream, draw, word3));
}

}  // namespace warpsim::rng
