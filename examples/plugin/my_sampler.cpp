// An example warpsim plugin (ABI version 3): one sampler on the host, and
// (built with CUDA) the same one on the device. Everything a plugin needs is
// here: the table, S draws a row with each row's seed and offset (version
// 3's table beside the samplers), the entry point, error reporting.
#include <warpsim/plugin.h>

#include <cstdint>
#include <string>

#include "my_sampler.hpp"

namespace {

thread_local std::string last_error;

template <class T>
int rows_host(const void* weights, std::int64_t rows, std::int64_t cols, std::uint64_t seed, std::int32_t* out) {
  const T* w = static_cast<const T*>(weights);
  for (std::int64_t r = 0; r < rows; ++r) {
    const T u = warpsim::rng::uniform<T>(seed, static_cast<std::uint64_t>(r));  // row r: stream r, draw 0
    out[r] = draw_one(w + r * cols, cols, u);
  }
  return 0;
}

int draw_rows(void*, const void* weights, warpsim_dtype dtype, std::int64_t rows, std::int64_t cols, std::uint64_t seed, std::int32_t* out) {
  if (cols < 1) {
    last_error = "a row needs at least one weight";
    return 1;
  }
  return dtype == WARPSIM_F32 ? rows_host<float>(weights, rows, cols, seed, out) : rows_host<double>(weights, rows, cols, seed, out);
}

template <class T>
int many_host(const void* weights, std::int64_t k, std::int64_t draws, std::uint64_t seed, std::uint64_t first, std::int32_t* out) {
  const T* w = static_cast<const T*>(weights);
  for (std::int64_t i = 0; i < draws; ++i) out[i] = draw_one(w, k, warpsim::rng::uniform<T>(seed, first + static_cast<std::uint64_t>(i)));
  return 0;
}

int draw_many(void*, const void* weights, warpsim_dtype dtype, std::int64_t k, std::int64_t draws, std::uint64_t seed, std::uint64_t first,
              std::int32_t* out) {
  return dtype == WARPSIM_F32 ? many_host<float>(weights, k, draws, seed, first, out) : many_host<double>(weights, k, draws, seed, first, out);
}

// S draws a row: draw j of row r from the row's own seed, at its offset + j
// (an LLM server's request seed and step).
template <class T>
int row_draws_host(const void* weights, std::int64_t rows, std::int64_t cols, std::int64_t s, const std::uint64_t* seeds, const std::uint64_t* offsets,
                   std::int32_t* out) {
  const T* w = static_cast<const T*>(weights);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < s; ++j) out[r * s + j] = draw_one(w + r * cols, cols, warpsim::rng::uniform<T>(seeds[r], offsets[r] + static_cast<std::uint64_t>(j)));
  return 0;
}

int draw_row_draws(void*, const void* weights, warpsim_dtype dtype, std::int64_t rows, std::int64_t cols, std::int64_t s, const std::uint64_t* seeds,
                   const std::uint64_t* offsets, std::int32_t* out) {
  return dtype == WARPSIM_F32 ? row_draws_host<float>(weights, rows, cols, s, seeds, offsets, out)
                              : row_draws_host<double>(weights, rows, cols, s, seeds, offsets, out);
}

const char* error_message() { return last_error.c_str(); }

}  // namespace

#if MY_SAMPLER_CUDA
int my_sampler_cuda_rows(void*, const void*, warpsim_dtype, std::int64_t, std::int64_t, std::uint64_t, std::int32_t*);
int my_sampler_cuda_many(void*, const void*, warpsim_dtype, std::int64_t, std::int64_t, std::uint64_t, std::uint64_t, std::int32_t*);
int my_sampler_cuda_row_draws(void*, const void*, warpsim_dtype, std::int64_t, std::int64_t, std::int64_t, const std::uint64_t*, const std::uint64_t*,
                              std::int32_t*);
const char* my_sampler_cuda_error();
#endif

namespace {

constexpr std::uint32_t kBoth = WARPSIM_DTYPE_BIT(WARPSIM_F32) | WARPSIM_DTYPE_BIT(WARPSIM_F64);

const warpsim_sampler kSamplers[] = {
    {"inverse-cdf", "inverse CDF in index order, a row at a time, on the host", WARPSIM_HOST_MEMORY,
     WARPSIM_REPLAYABLE | WARPSIM_ADDS_IN_ORDER, kBoth, draw_rows, draw_many, nullptr, nullptr},
#if MY_SAMPLER_CUDA
    {"inverse-cdf-cuda", "the same, a CUDA thread per row, on device memory", WARPSIM_DEVICE_MEMORY,
     WARPSIM_REPLAYABLE | WARPSIM_ADDS_IN_ORDER, kBoth, my_sampler_cuda_rows, my_sampler_cuda_many, nullptr, nullptr},
#endif
};

const char* any_error() {
#if MY_SAMPLER_CUDA
  if (*my_sampler_cuda_error()) return my_sampler_cuda_error();
#endif
  return error_message();
}

// Version 3: one entry a sampler, in the samplers' order.
const warpsim_sampler_v3 kV3[] = {
    {draw_row_draws, nullptr, nullptr, 0, {0, 0, 0}},
#if MY_SAMPLER_CUDA
    {my_sampler_cuda_row_draws, nullptr, nullptr, 0, {0, 0, 0}},
#endif
};

const warpsim_plugin kPlugin = {WARPSIM_PLUGIN_ABI_VERSION, sizeof kSamplers / sizeof kSamplers[0], kSamplers, any_error, kV3};

}  // namespace

extern "C" WARPSIM_PLUGIN_EXPORT const warpsim_plugin* warpsim_plugin_entry(void) { return &kPlugin; }
