// The standard normal's ziggurat (Marsaglia and Tsang, "The ziggurat method
// for generating random variables", J. Stat. Softw. 5(8), 2000), 256 layers,
// with the layer and the abscissa taken from disjoint bits (Doornik, "An
// improved ziggurat method", 2005): the tables that the gamma variates of
// the oracle (oracle/rejection/gamma.hpp) and of the kernels (gpu/gamma.cu)
// share, as they share rng/philox_uniform.hpp -- the mapping from a block's
// bits to a normal. The tests of each layer (the fast test, the wedge, the
// tail) are written on each side; only these numbers are common, built once
// on the host by this one function, so the two sides hold the same bits.
//
// With f(x) = exp(-x^2 / 2), r = 3.6541528853610088 and v = 4.92867323399e-3
// (each layer's area), x[1] = r, x[i+1] = f^-1(f(x[i]) + v / x[i]), x[0] = v /
// f(r) (the base layer: the rectangle [0, x[0]] x [0, f(r)], the tail beyond
// r included), x[256] = 0. A draw picks layer i (8 bits) and m, its
// abscissa's bits: U = (m + 1/2) 2^-bits, x = U x[i], accepted at once when
// x < x[i+1], i.e. when m < fast[i] (an integer test, no rounding). Else,
// in the base layer, the tail r + a (a = -log(U1) / r, accepted if -2 log(U2)
// > a^2); in layer i >= 1 the wedge: y = f(x[i]) + U2 (f(x[i+1]) - f(x[i])),
// accepted if y < f(x). A draw not accepted is rejected (the caller draws
// again with fresh bits). fast[i] counts the m with (m + 1/2) 2^-bits below
// x[i+1] / x[i] (that ratio in double); the abscissae and f values are x[i]
// and f(x[i]) rounded to R.
//
// Accuracy: the tables are built in double; the fast region of layer i ends
// at fast[i] 2^-bits x[i], within one unit of U of x[i+1] -- the law moved by
// at most 2^-bits of a layer's width, 2^-23 in float, 2^-53 in double.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace warpsim::rng {

inline constexpr int kZigguratLayers = 256;
inline constexpr double kZigguratR = 3.6541528853610088;
inline constexpr double kZigguratArea = 4.92867323399e-3;

/// The tables for abscissae of `bits` bits: 23 for float, 53 for double.
template <class R>
struct ZigguratTables {
  using Bits = std::conditional_t<sizeof(R) == 4, std::uint32_t, std::uint64_t>;
  static constexpr int kBits = sizeof(R) == 4 ? 23 : 53;
  Bits fast[kZigguratLayers];        // m < fast[i]: accepted at once
  R x[kZigguratLayers];              // x[i] rounded to R: the layer's width (x[0] the base's)
  R f[kZigguratLayers + 1];          // f(x[i]) for i >= 1 (f[256] = 1); f[0] = f(r)
};

/// The tables, built in double (deterministic: the same on every call and
/// for every caller; glibc's exp, log and sqrt).
template <class R>
ZigguratTables<R> make_ziggurat_tables() {
  constexpr int n = kZigguratLayers;
  double x[n + 1];
  auto f = [](double t) { return std::exp(-0.5 * t * t); };
  x[0] = kZigguratArea / f(kZigguratR);
  x[1] = kZigguratR;
  for (int i = 1; i < n - 1; ++i) x[i + 1] = std::sqrt(-2.0 * std::log(kZigguratArea / x[i] + f(x[i])));
  x[n] = 0;
  ZigguratTables<R> t{};
  const double scale = std::ldexp(1.0, ZigguratTables<R>::kBits);
  for (int i = 0; i < n; ++i) {
    // the m with (m + 1/2) 2^-bits < x[i+1] / x[i]
    const double limit = std::ceil(x[i + 1] / x[i] * scale - 0.5);
    t.fast[i] = static_cast<typename ZigguratTables<R>::Bits>(limit < 0 ? 0 : limit);
    t.x[i] = static_cast<R>(x[i]);
    t.f[i] = static_cast<R>(i == 0 ? f(kZigguratR) : f(x[i]));
  }
  t.f[n] = 1;
  return t;
}

}  // namespace warpsim::rng
