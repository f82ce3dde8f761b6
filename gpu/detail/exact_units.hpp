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

// The same for fp32 weights by float multiplications: w 2^-e in float is
// exact (a power of two times 24 significant bits; e at least ilogb(w) -
// 63, so below 2^64, and a product too small to be normal floors to 0 as
// the true one does), and the conversion to an integer truncates, which
// floors for w >= 0. 2^-e (up to 2^212: e >= ilogb(largest) - 63 for fp32
// weights as small as 2^-149) is a product of two floats, FloatScale. Two
// multiplications and one conversion where units_of takes about twenty
// integer instructions; and one conversion where going through a double
// took two (float to double and double to integer: the conversion pipe's
// quarter rate is what the build's passes over the weights wait on).
struct FloatScale {
  float first, second;  // 2^min(k, 127) and 2^(k - min(k, 127)), k = -e
};
WARPSIM_HD inline FloatScale float_scale(int e) {
  const int k = -e, first = k < 127 ? k : 127;
  auto power = [](int p) {  // 2^p, a normal float (p in [-126, 127])
    const std::uint32_t bits = static_cast<std::uint32_t>(p + 127) << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  };
  return {power(first), power(k - first)};
}
WARPSIM_HD inline std::uint64_t units_of_float(float w, FloatScale scale) {
#if defined(__CUDA_ARCH__)
  return __float2ull_rz(__fmul_rn(__fmul_rn(w, scale.first), scale.second));
#else
  const volatile float scaled = w * scale.first;  // (each product rounded as a float, as on the device)
  return static_cast<std::uint64_t>(scaled * scale.second);
#endif
}

}  // namespace warpsim::gpu::detail
