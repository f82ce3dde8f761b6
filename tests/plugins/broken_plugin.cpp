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

namespace {

[[maybe_unused]] int draw_rows(void*, const void*, warpsim_dtype, std::int64_t rows, std::int64_t cols, std::uint64_t, std::int32_t* out) {
#if BROKEN == RETURNS_ERROR
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
#else
    {"broken", nullptr, WARPSIM_HOST_MEMORY, 0, WARPSIM_DTYPE_BIT(WARPSIM_F32), draw_rows, nullptr, nullptr, nullptr},
#endif
};

#if BROKEN == WRONG_ABI
const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION + 1, 1, samplers, error};
#elif BROKEN == NO_SAMPLERS
const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION, 0, samplers, error};
#elif BROKEN == ALIAS_IN_V1
const warpsim_plugin plugin = {1, 1, samplers, error};
#else
const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION, 1, samplers, error};
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
