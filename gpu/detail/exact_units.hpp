// A weight's units from its bits: floor(w / 2^e) for a finite w >= 0, by
// integer operations alone, the same on host and device.
//
// The alias build reads every weight five times (the check, S', U, the
// partition's tile totals and its rescan), and each read turns the weight
// into units. The oracle's definition (oracle/alias/units.hpp) is
// floor(ldexp(double(w), -e)); on the device that is a double conversion,
// a library ldexp and a double-to-integer conversion an item. Here the
// weight is split into its significand M and exponent E (w = M 2^E, exact,
// subnormals included), and floor(M 2^(E - e)) is a shift: left when
// E >= e, right (which floors, M being >= 0) otherwise, 0 once the right
// shift passes M's 64 bits. Equal to the oracle's for every finite w >= 0
// whose units fit in 64 bits, which every caller guarantees (e >= ilogb of
// the largest weight - 63); tests/property/alias_properties.cpp checks it.
#pragma once

#include <cstdint>
#include <cstring>

#include "gpu/detail/host_device.hpp"

namespace warpsim::gpu::detail {

// How an IEEE binary format stores its finite values.
template <class T>
struct Ieee;
template <>
struct Ieee<float> {
  using Bits = std::uint32_t;
  static constexpr int kMantissa = 23, kBias = 127, kExponentMask = 0xff;
};
template <>
struct Ieee<double> {
  using Bits = std::uint64_t;
  static constexpr int kMantissa = 52, kBias = 1023, kExponentMask = 0x7ff;
};

// floor(w / 2^e) for finite w >= 0 (the sign bit is ignored: -0 gives 0),
// when the result is below 2^64.
template <class T>
WARPSIM_HD inline std::uint64_t units_of(T w, int e) {
  using F = Ieee<T>;
  typename F::Bits b;
  std::memcpy(&b, &w, sizeof b);
  const int biased = static_cast<int>(b >> F::kMantissa) & F::kExponentMask;
  std::uint64_t m = static_cast<std::uint64_t>(b) & ((std::uint64_t{1} << F::kMantissa) - 1);
  // w = m 2^(biased - bias - mantissa) with the hidden bit; subnormals
  // (biased 0) have the exponent of biased 1 and no hidden bit.
  if (biased != 0) m |= std::uint64_t{1} << F::kMantissa;
  const int s = (biased != 0 ? biased : 1) - F::kBias - F::kMantissa - e;  // units = floor(m 2^s)
  if (s >= 0) return s >= 64 ? 0 : m << s;  // (m = 0 there: a nonzero m fits only for s < 64 - kMantissa)
  return -s >= 64 ? 0 : m >> -s;
}

// The same for fp32 weights through the double unit: double(w) 2^-e is
// exact (24 significant bits times a power of two, for every e an fp32
// weight's units use: 2^-e within [2^-99, 2^212]) and the conversion
// truncates, which floors for w >= 0. Three instructions where units_of
// takes about twenty (both shift directions and their range checks), and
// on the conversion and FP64 pipes, not the integer one the passes are
// bound by. pow2 = 2^-e, exactly; the result must be below 2^64.
WARPSIM_HD inline std::uint64_t units_of_float(float w, double pow2) {
#if defined(__CUDA_ARCH__)
  return __double2ull_rz(__dmul_rn(static_cast<double>(w), pow2));
#else
  return static_cast<std::uint64_t>(static_cast<double>(w) * pow2);
#endif
}

}  // namespace warpsim::gpu::detail
