// Plugins that are wrong in one way each (BROKEN names which), for the tests
// of what `warpsim validate --plugin` does with them: exit 2 and a message
// naming the file or symbol, or (a sampler's wrong draws) exit 1.
#include <warpsim/plugin.h>

#include <cstdint>
#include <cstdlib>

#define NO_ENTRY 1
#define WRONG_ABI 2
#define NULL_TABLE 3
#define NO_SAMPLERS 4
#define RETURNS_ERROR 5
#define CRASHES 6
#define OUT_OF_RANGE 7
#define BAD_NAME 8
#define NO_DRAW 9
#define BAD_KEEP_FORMAT 10
#define ALIAS_IN_V1 11
#define V3_BAD_LAW 12
#define V3_RESERVED 13
#define V3_ROWS_IGNORE_OFFSETS 14
#define V3_VALUES_ONLY 15
#define V3_RIGHT 16
#define V3_ROWS_BIASED 17

namespace {

int row_draws(void*, const void* weights, warpsim_dtype, std::int64_t rows, std::int64_t cols, std::int64_t s, const std::uint64_t* seeds,
              const std::uint64_t* offsets, std::int32_t* out);

[[maybe_unused]] int draw_rows(void*, const void* w, warpsim_dtype d, std::int64_t rows, std::int64_t cols, std::uint64_t seed, std::int32_t* out) {
#if BROKEN == V3_RIGHT || BROKEN == V3_ROWS_IGNORE_OFFSETS || BROKEN == V3_ROWS_BIASED
  // one draw a row: row r's stream of the seed
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::uint64_t offset = static_cast<std::uint64_t>(r);
    row_draws(nullptr, static_cast<const float*>(w) + r * cols, d, 1, cols, 1, &seed, &offset, out + r);
  }
  return 0;
#elif BROKEN == RETURNS_ERROR
  (void)rows, (void)cols, (void)out;
  return 7;
#elif BROKEN == CRASHES
  volatile int* p = nullptr;
  *p = static_cast<int>(rows);
  (void)cols, (void)out;
  return 0;
#elif BROKEN == OUT_OF_RANGE
  for (std::int64_t r = 0; r < rows; ++r) out[r] = static_cast<std::int32_t>(cols);  // one past the end
  return 0;
#else
  for (std::int64_t r = 0; r < rows; ++r) out[r] = static_cast<std::int32_t>(cols - 1);
  return 0;
#endif
}

const char* error() { return "out of cheese"; }

// Version 3: S draws a row. Right, it draws draw j of row r from the row's
// stream at offsets[r] + j; V3_ROWS_IGNORE_OFFSETS draws every draw of a row
// from offsets[r] alone (one uniform a row: its S draws all the same);
// V3_ROWS_BIASED squares the uniform of every draw after a row's first (its
// one draw a row is right: only the law of S draws of one row is wrong).
int row_draws(void*, const void* weights, warpsim_dtype, std::int64_t rows, std::int64_t cols, std::int64_t s,
                               const std::uint64_t* seeds, const std::uint64_t* offsets, std::int32_t* out) {
  const float* w = static_cast<const float*>(weights);
  for (std::int64_t r = 0; r < rows; ++r) {
    double total = 0;
    for (std::int64_t i = 0; i < cols; ++i) total += w[r * cols + i];
    for (std::int64_t j = 0; j < s; ++j) {
#if BROKEN == V3_ROWS_IGNORE_OFFSETS
      const std::uint64_t counter = offsets[r];
#else
      const std::uint64_t counter = offsets[r] + static_cast<std::uint64_t>(j);
#endif
      // a splitmix of (seed, counter) as the uniform: enough for a test plugin
      std::uint64_t z = seeds[r] * 0x9e3779b97f4a7c15ULL + counter + 0x632be59bd9b4e019ULL;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      double unit = static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
#if BROKEN == V3_ROWS_BIASED
      if (j > 0) unit *= unit;
#endif
      const double u = unit * total;
      double run = 0;
      std::int64_t x = cols - 1;
      for (std::int64_t i = 0; i < cols; ++i) {
        run += w[r * cols + i];
        if (u < run && w[r * cols + i] > 0) { x = i; break; }
      }
      while (x > 0 && w[r * cols + x] == 0) --x;
      out[r * s + j] = static_cast<std::int32_t>(x);
    }
  }
  return 0;
}

[[maybe_unused]] int values(void*, const double*, std::int64_t, std::int64_t, std::uint64_t, std::uint64_t, warpsim_dtype, void*) { return 0; }

[[maybe_unused]] int build(void*, const void*, warpsim_dtype, std::int64_t, void*, std::int32_t*) { return WARPSIM_OK; }
[[maybe_unused]] const warpsim_alias_builder builder = {7, build};  // no such keep format
[[maybe_unused]] const warpsim_alias_builder good_builder = {WARPSIM_KEEP_F32, build};

const warpsim_sampler samplers[] = {
#if BROKEN == BAD_NAME
    {"has space", nullptr, WARPSIM_HOST_MEMORY, 0, WARPSIM_DTYPE_BIT(WARPSIM_F32), draw_rows, nullptr, nullptr, nullptr},
#elif BROKEN == NO_DRAW
    {"broken", nullptr, WARPSIM_HOST_MEMORY, 0, WARPSIM_DTYPE_BIT(WARPSIM_F32), nullptr, nullptr, nullptr, nullptr},
#elif BROKEN == BAD_KEEP_FORMAT
    {"broken", nullptr, WARPSIM_HOST_MEMORY, 0, WARPSIM_DTYPE_BIT(WARPSIM_F32), draw_rows, nullptr, &builder, nullptr},
#elif BROKEN == ALIAS_IN_V1
    {"broken", nullptr, WARPSIM_HOST_MEMORY, 0, WARPSIM_DTYPE_BIT(WARPSIM_F32), draw_rows, nullptr, &good_builder, nullptr},
#elif BROKEN == V3_VALUES_ONLY
    {"broken", nullptr, WARPSIM_HOST_MEMORY, 0, 0, nullptr, nullptr, nullptr, nullptr},
#else
    {"broken", nullptr, WARPSIM_HOST_MEMORY, 0, WARPSIM_DTYPE_BIT(WARPSIM_F32), draw_rows, nullptr, nullptr, nullptr},
#endif
};

#if BROKEN == V3_BAD_LAW
const warpsim_sampler_v3 v3[] = {{nullptr, values, "cauchy", WARPSIM_DTYPE_BIT(WARPSIM_F32), {0, 0, 0}}};
#elif BROKEN == V3_RESERVED
const warpsim_sampler_v3 v3[] = {{row_draws, nullptr, nullptr, 0, {0, 1, 0}}};
#elif BROKEN == V3_VALUES_ONLY
const warpsim_sampler_v3 v3[] = {{nullptr, values, "gamma", WARPSIM_DTYPE_BIT(WARPSIM_F32), {0, 0, 0}}};
#else
[[maybe_unused]] const warpsim_sampler_v3 v3[] = {{row_draws, nullptr, nullptr, 0, {0, 0, 0}}};
#endif

#if BROKEN == WRONG_ABI
const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION + 1, 1, samplers, error, nullptr};
#elif BROKEN == V3_BAD_LAW || BROKEN == V3_RESERVED || BROKEN == V3_ROWS_IGNORE_OFFSETS || BROKEN == V3_VALUES_ONLY || BROKEN == V3_RIGHT || \
    BROKEN == V3_ROWS_BIASED
const warpsim_plugin plugin = {3, 1, samplers, error, v3};
#elif BROKEN == NO_SAMPLERS
const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION, 0, samplers, error, nullptr};
#elif BROKEN == ALIAS_IN_V1
const warpsim_plugin plugin = {1, 1, samplers, error, nullptr};
#else
const warpsim_plugin plugin = {2, 1, samplers, error, nullptr};  // versions 1 and 2 keep loading
#endif

}  // namespace

#if BROKEN != NO_ENTRY
extern "C" WARPSIM_PLUGIN_EXPORT const warpsim_plugin* warpsim_plugin_entry(void) {
#if BROKEN == NULL_TABLE
  return nullptr;
#else
  return &plugin;
#endif
}
#else
extern "C" WARPSIM_PLUGIN_EXPORT const warpsim_plugin* warpsim_plugin_entrypoint_misspelt(void) { return &plugin; }
#endif
