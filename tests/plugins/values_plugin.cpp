// A plugin of values (ABI version 3, draw_values): exponential variates by
// the inverse CDF, -ln(1 - u) / rate, u from a splitmix of (seed, draw), in
// host memory, fp32 and fp64. One sampler right and three wrong in one way
// each, for `warpsim validate --plugin ... --law exponential:RATE`:
//   exponential         right
//   exponential-stuck   ignores first_draw (every call starts the stream again)
//   exponential-biased  draws at 1.05 times the rate asked
//   exponential-nan     writes NaN as value 7 of the stream
// and the right sampler writing 16-bit values only, rounded to nearest:
//   exponential-bf16, exponential-f16
// and one that makes its bf16 values by dropping a float's low 16 bits
// (rounding toward zero, a common shortcut):
//   exponential-bf16-chopped
#include <warpsim/plugin.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

enum Kind { Right, Stuck, Biased, Nan, Chopped };

// float -> bfloat16 bits: to nearest, ties to even (or toward zero: chopped)
std::uint16_t bf16_bits(float f, bool chopped) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  if (!chopped) b += 0x7fffu + ((b >> 16) & 1u);
  return static_cast<std::uint16_t>(b >> 16);
}

template <Kind kKind>
int values(void*, const double* params, std::int64_t count, std::int64_t draws, std::uint64_t seed, std::uint64_t first, warpsim_dtype dtype,
           void* out) {
  if (count != 1 || !(params[0] > 0)) return WARPSIM_ERROR;
  const double rate = kKind == Biased ? 1.05 * params[0] : params[0];
  for (std::int64_t i = 0; i < draws; ++i) {
    const std::uint64_t at = (kKind == Stuck ? 0 : first) + static_cast<std::uint64_t>(i);
    std::uint64_t z = seed * 0x9e3779b97f4a7c15ULL + at + 0x632be59bd9b4e019ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    const double u = static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;  // [0, 1)
    double v = -std::log1p(-u) / rate;
    if (kKind == Nan && at == 7) v = std::numeric_limits<double>::quiet_NaN();
    if (dtype == WARPSIM_F32) {
      static_cast<float*>(out)[i] = static_cast<float>(v);
    } else if (dtype == WARPSIM_F64) {
      static_cast<double*>(out)[i] = v;
    } else if (dtype == WARPSIM_BF16) {
      static_cast<std::uint16_t*>(out)[i] = bf16_bits(static_cast<float>(v), kKind == Chopped);
    } else {
      const _Float16 h = static_cast<_Float16>(v);  // to nearest (GCC's _Float16)
      std::memcpy(static_cast<std::uint16_t*>(out) + i, &h, 2);
    }
  }
  return WARPSIM_OK;
}

const char* error() { return "exponential: one parameter, the rate, > 0"; }

constexpr std::uint32_t kTypes = WARPSIM_DTYPE_BIT(WARPSIM_F32) | WARPSIM_DTYPE_BIT(WARPSIM_F64);
const warpsim_sampler samplers[] = {
    {"exponential", "inverse CDF of a splitmix uniform", WARPSIM_HOST_MEMORY, 0, 0, nullptr, nullptr, nullptr, nullptr},
    {"exponential-stuck", "ignores first_draw", WARPSIM_HOST_MEMORY, 0, 0, nullptr, nullptr, nullptr, nullptr},
    {"exponential-biased", "1.05 times the rate", WARPSIM_HOST_MEMORY, 0, 0, nullptr, nullptr, nullptr, nullptr},
    {"exponential-nan", "NaN at value 7", WARPSIM_HOST_MEMORY, 0, 0, nullptr, nullptr, nullptr, nullptr},
    {"exponential-bf16", "bf16 values only", WARPSIM_HOST_MEMORY, 0, 0, nullptr, nullptr, nullptr, nullptr},
    {"exponential-f16", "fp16 values only", WARPSIM_HOST_MEMORY, 0, 0, nullptr, nullptr, nullptr, nullptr},
    {"exponential-bf16-chopped", "bf16 by dropping a float's low half", WARPSIM_HOST_MEMORY, 0, 0, nullptr, nullptr, nullptr, nullptr},
};
const warpsim_sampler_v3 v3[] = {
    {nullptr, values<Right>, "exponential", kTypes, {0, 0, 0}},
    {nullptr, values<Stuck>, "exponential", kTypes, {0, 0, 0}},
    {nullptr, values<Biased>, "exponential", kTypes, {0, 0, 0}},
    {nullptr, values<Nan>, "exponential", WARPSIM_DTYPE_BIT(WARPSIM_F32), {0, 0, 0}},
    {nullptr, values<Right>, "exponential", WARPSIM_DTYPE_BIT(WARPSIM_BF16), {0, 0, 0}},
    {nullptr, values<Right>, "exponential", WARPSIM_DTYPE_BIT(WARPSIM_F16), {0, 0, 0}},
    {nullptr, values<Chopped>, "exponential", WARPSIM_DTYPE_BIT(WARPSIM_BF16), {0, 0, 0}},
};
const warpsim_plugin plugin = {3, 7, samplers, error, v3};

}  // namespace

extern "C" WARPSIM_PLUGIN_EXPORT const warpsim_plugin* warpsim_plugin_entry(void) { return &plugin; }
