/* warpsim plugin ABI, version 1: how a shared library offers samplers to
 * `warpsim validate --plugin libmine.so`.
 *
 * A plugin exports one C symbol, warpsim_plugin_entry, returning a table of
 * samplers. warpsim checks the table's ABI version before it calls anything
 * else, then generates inputs itself, draws through the table, and checks
 * the properties of properties/ (docs/validate.md).
 *
 *   #include <warpsim/plugin.h>
 *   static int my_draw_rows(void* ctx, const void* w, warpsim_dtype dt, int64_t rows, int64_t cols,
 *                           uint64_t seed, int32_t* out) { ...; return 0; }
 *   static const warpsim_sampler samplers[] = {
 *     {"mine", "inverse CDF, a thread per row", WARPSIM_HOST_MEMORY, WARPSIM_REPLAYABLE,
 *      WARPSIM_DTYPE_BIT(WARPSIM_F32) | WARPSIM_DTYPE_BIT(WARPSIM_F64), my_draw_rows, NULL, NULL, NULL}};
 *   static const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION, 1, samplers, NULL};
 *   WARPSIM_PLUGIN_EXPORT const warpsim_plugin* warpsim_plugin_entry(void) { return &plugin; }
 *
 * Memory: a sampler declares where its weights and indices live. HOST: warpsim
 * passes host pointers. DEVICE: CUDA device pointers (cudaMalloc'd by warpsim
 * on the current device); the sampler may launch asynchronously on the legacy
 * default stream, and warpsim synchronises and checks for CUDA errors after
 * each call, reporting them as the plugin's.
 *
 * Weights: rows x cols, row-major, fp32 or fp64 as `dtype` says, every weight
 * finite and >= 0, every row with a positive total. Indices: int32, one per
 * row (draw_rows) or one per draw (draw_many), each in [0, cols).
 *
 * Replayable samplers (flag WARPSIM_REPLAYABLE) use warpsim's Philox mapping
 * (rng/philox_uniform.hpp, installed with the package): draw_rows draws row r
 * with u = warpsim::rng::uniform<T>(seed, r, 0); draw_many draws draw i with
 * u = uniform<T>(seed, first_draw + i, 0) -- the same as draw_rows on copies
 * of the one row. warpsim then checks every index against the scalar
 * definition (and its rounding bound), not only in law. Others are checked in
 * law only, and must still give the same indices for the same seed.
 *
 * Return WARPSIM_OK (0) on success. WARPSIM_FAULT: the sampler caught itself
 * doing something undefined (a bounds or race checker fired) -- a failure of
 * the sampler, reported as one (exit 1). Anything else is an error (bad
 * input, out of memory): last_error() (if given) says what, and warpsim
 * reports it, naming the plugin and sampler, and exits 2.
 */
#ifndef WARPSIM_PLUGIN_H
#define WARPSIM_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WARPSIM_PLUGIN_ABI_VERSION 1u

#if defined(_WIN32)
#define WARPSIM_PLUGIN_EXPORT __declspec(dllexport)
#else
#define WARPSIM_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

enum { WARPSIM_OK = 0, WARPSIM_ERROR = 1, WARPSIM_FAULT = 2 };

typedef enum warpsim_dtype { WARPSIM_F32 = 0, WARPSIM_F64 = 1 } warpsim_dtype;
#define WARPSIM_DTYPE_BIT(d) (1u << (d))

typedef enum warpsim_memory { WARPSIM_HOST_MEMORY = 1, WARPSIM_DEVICE_MEMORY = 2 } warpsim_memory;

enum {
  WARPSIM_REPLAYABLE = 1u << 0,    /* uses warpsim's Philox mapping: checked draw by draw */
  WARPSIM_ADDS_IN_ORDER = 1u << 1  /* adds each row's weights in index order: equals the scalar definition exactly */
};

/* One index per row of a rows x cols matrix. */
typedef int (*warpsim_draw_rows_fn)(void* context, const void* weights, warpsim_dtype dtype, int64_t rows, int64_t cols,
                                    uint64_t seed, int32_t* indices);
/* `draws` indices from one distribution of k weights; draw i is the
 * (first_draw + i)-th of the seed's stream (warpsim asks in chunks). */
typedef int (*warpsim_draw_many_fn)(void* context, const void* weights, warpsim_dtype dtype, int64_t k, int64_t draws, uint64_t seed,
                                    uint64_t first_draw, int32_t* indices);

typedef struct warpsim_sampler {
  const char* name;         /* unique within the plugin: [A-Za-z0-9_.-]+ */
  const char* description;  /* one line, or NULL */
  uint32_t memory;          /* warpsim_memory */
  uint32_t flags;           /* WARPSIM_REPLAYABLE | WARPSIM_ADDS_IN_ORDER */
  uint32_t dtypes;          /* WARPSIM_DTYPE_BIT(WARPSIM_F32) | WARPSIM_DTYPE_BIT(WARPSIM_F64) */
  warpsim_draw_rows_fn draw_rows;  /* required */
  warpsim_draw_many_fn draw_many;  /* optional (NULL: warpsim calls draw_rows on copies of the row) */
  void* reserved;           /* alias-table builds (ABI version 2); NULL in version 1 */
  void* context;            /* passed back to every call */
} warpsim_sampler;

typedef struct warpsim_plugin {
  uint32_t abi_version;     /* WARPSIM_PLUGIN_ABI_VERSION the plugin was built with */
  uint32_t sampler_count;
  const warpsim_sampler* samplers;
  const char* (*last_error)(void); /* the last failing call's message, or NULL */
} warpsim_plugin;

/* The one symbol a plugin exports. */
typedef const warpsim_plugin* (*warpsim_plugin_entry_fn)(void);
#define WARPSIM_PLUGIN_ENTRY_SYMBOL "warpsim_plugin_entry"

#ifdef __cplusplus
}
#endif

#endif /* WARPSIM_PLUGIN_H */
