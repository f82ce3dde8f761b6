/* warpsim plugin ABI, version 3: how a shared library offers samplers to
 * `warpsim validate --plugin libmine.so`. Version 2 adds alias-table
 * builders (alias_build); version 3 adds, in a table beside the samplers
 * (warpsim_plugin.v3), S draws a row with each row's own seed and offset,
 * the values of continuous laws, and bf16 and fp16 weights. This warpsim
 * reads plugins of versions 1, 2 and 3.
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
 * Alias tables (version 2): a sampler that builds an alias table (seed 001,
 * Sec. 2.4) may offer its builder (alias_build, else NULL). warpsim hands it
 * one distribution of k weights at a time and checks the table it writes
 * before anything samples from it: row r keeps item r with probability
 * keep[r] and gives the rest to item alias[r], each row coming up with
 * probability 1/k; keep is stored as the builder says (keep_format: fp32 or
 * fp64 probabilities, or 64-bit thresholds t meaning t / 2^64). Each item's
 * implied probability must be its weight's share, within the format's
 * resolution, and an item of weight 0 must get nothing (docs/validate.md).
 * The sampler's draws are then checked as any sampler's, in law.
 *
 *   static int my_build(void* ctx, const void* w, warpsim_dtype dt, int64_t k, void* keep, int32_t* alias) { ...; return 0; }
 *   static const warpsim_alias_builder my_builder = {WARPSIM_KEEP_F32, my_build};
 *   ... {"mine", "alias table", WARPSIM_HOST_MEMORY, 0, WARPSIM_DTYPE_BIT(WARPSIM_F32), my_draw_rows, my_draw_many, &my_builder, NULL}
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

#define WARPSIM_PLUGIN_ABI_VERSION 3u

#if defined(_WIN32)
#define WARPSIM_PLUGIN_EXPORT __declspec(dllexport)
#else
#define WARPSIM_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

enum { WARPSIM_OK = 0, WARPSIM_ERROR = 1, WARPSIM_FAULT = 2 };

/* The weights' (and version 3's values') element type. BF16 and F16 (version
 * 3): the 16-bit patterns of bfloat16 and IEEE binary16, as uint16_t. */
typedef enum warpsim_dtype { WARPSIM_F32 = 0, WARPSIM_F64 = 1, WARPSIM_BF16 = 2, WARPSIM_F16 = 3 } warpsim_dtype;
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

/* Version 2: how a table stores each row's keep. */
typedef enum warpsim_keep_format {
  WARPSIM_KEEP_F32 = 0, /* float, a probability in [0, 1] */
  WARPSIM_KEEP_F64 = 1, /* double, a probability in [0, 1] */
  WARPSIM_KEEP_U64 = 2  /* uint64_t t: keep t / 2^64 (a 64-bit uniform below t keeps the item) */
} warpsim_keep_format;

/* The alias table of k weights: keep (k values of keep_format) and alias (k
 * indices) in the sampler's memory. */
typedef int (*warpsim_build_alias_fn)(void* context, const void* weights, warpsim_dtype dtype, int64_t k, void* keep, int32_t* alias);

typedef struct warpsim_alias_builder {
  uint32_t keep_format; /* warpsim_keep_format */
  warpsim_build_alias_fn build;
} warpsim_alias_builder;

typedef struct warpsim_sampler {
  const char* name;         /* unique within the plugin: [A-Za-z0-9_.-]+ */
  const char* description;  /* one line, or NULL */
  uint32_t memory;          /* warpsim_memory */
  uint32_t flags;           /* WARPSIM_REPLAYABLE | WARPSIM_ADDS_IN_ORDER */
  uint32_t dtypes;          /* the weights it takes: WARPSIM_DTYPE_BIT of fp32, fp64 (and, version 3, bf16, fp16) */
  warpsim_draw_rows_fn draw_rows;  /* required (version 3: NULL for a sampler of values only) */
  warpsim_draw_many_fn draw_many;  /* optional (NULL: warpsim calls draw_rows on copies of the row) */
  const warpsim_alias_builder* alias_build; /* version 2: the sampler's alias-table builder, or NULL (version 1: NULL) */
  void* context;            /* passed back to every call */
} warpsim_sampler;

/* Version 3: S draws a row, each row with its own seed and offset (what an
 * LLM server passes: a request's seed, and its step as the offset). Draw j
 * of row r goes to indices[r * draws_a_row + j]; a replayable sampler draws
 * it with u = warpsim::rng::uniform<T>(seeds[r], offsets[r] + j), so the
 * same request and step replay the same draws and the next step draws
 * afresh. seeds and offsets (rows of each) are in host memory; weights and
 * indices where the sampler's memory says. warpsim checks S draws a row as
 * it checks its own sum tree's (each draw of every row in range, of positive
 * weight, the one index of a row of one positive weight; the same seeds give
 * the same draws) and their law through S draws of one row. */
typedef int (*warpsim_draw_row_draws_fn)(void* context, const void* weights, warpsim_dtype dtype, int64_t rows, int64_t cols,
                                         int64_t draws_a_row, const uint64_t* seeds, const uint64_t* offsets, int32_t* indices);

/* Version 3: values of a continuous law (gamma variates for Dirichlet and
 * LDA, normals, exponentials): `draws` values, value i the (first_draw +
 * i)-th of the seed's stream, of the law the sampler names (law, below) with
 * these parameters (e.g. gamma: shape, scale), written as value_dtype, in
 * the sampler's memory. `warpsim validate --plugin LIB --sampler NAME
 * --law LAW:PARAMETERS` checks that the same seed gives the same values, that
 * a call from first_draw continues the stream, and the values' law, in the
 * widest value type the sampler writes (fp64, fp32, bf16, fp16). For the law
 * "dirichlet" (params: the K concentrations) a draw is a vector: `draws`
 * vectors of K values each, vector i the (first_draw + i)-th. */
typedef int (*warpsim_draw_values_fn)(void* context, const double* params, int64_t param_count, int64_t draws, uint64_t seed,
                                      uint64_t first_draw, warpsim_dtype value_dtype, void* values);

/* Version 3: what a sampler offers beyond version 2, one entry a sampler,
 * in the samplers' order. A sampler of indices needs draw_rows (version 1);
 * a sampler of values only may leave draw_rows NULL and give draw_values. */
typedef struct warpsim_sampler_v3 {
  warpsim_draw_row_draws_fn draw_row_draws; /* or NULL */
  warpsim_draw_values_fn draw_values;       /* or NULL */
  const char* law;       /* with draw_values: "uniform", "normal", "exponential", "gamma", "beta", "truncated-normal", "dirichlet"; else NULL */
  uint32_t value_dtypes; /* with draw_values: WARPSIM_DTYPE_BIT of the value types it writes (fp32, fp64, bf16, fp16); else 0 */
  uint32_t reserved[3];  /* 0 */
} warpsim_sampler_v3;

typedef struct warpsim_plugin {
  uint32_t abi_version;     /* WARPSIM_PLUGIN_ABI_VERSION the plugin was built with */
  uint32_t sampler_count;
  const warpsim_sampler* samplers;
  const char* (*last_error)(void); /* the last failing call's message, or NULL */
  /* Version 3 (read only where abi_version is 3): sampler_count entries beside
   * the samplers, or NULL. Versions 1 and 2 end before this field. */
  const warpsim_sampler_v3* v3;
} warpsim_plugin;

/* The one symbol a plugin exports. */
typedef const warpsim_plugin* (*warpsim_plugin_entry_fn)(void);
#define WARPSIM_PLUGIN_ENTRY_SYMBOL "warpsim_plugin_entry"

#ifdef __cplusplus
}
#endif

#endif /* WARPSIM_PLUGIN_H */
