// A device-memory sampler whose kernel writes through a null pointer: the
// launch returns, the fault is pending. warpsim must report it as the
// plugin's CUDA error (exit 2), not as its own.
#include <warpsim/plugin.h>

#include <cstdint>

namespace {

// The pointer comes from the host, so the compiler cannot see it is null
// (a store through a literal null may be removed as undefined).
__global__ void faulty(std::int32_t* out, std::int64_t rows, volatile std::int32_t* bad) {
  if (threadIdx.x == 0 && blockIdx.x == 0) bad[rows] = 1;  // an illegal address
  if (threadIdx.x < rows) out[threadIdx.x] = 0;
}

int draw_rows(void*, const void*, warpsim_dtype, std::int64_t rows, std::int64_t, std::uint64_t, std::int32_t* out) {
  faulty<<<1, 32>>>(out, rows, nullptr);
  return WARPSIM_OK;  // the launch itself succeeded
}

const warpsim_sampler samplers[] = {
    {"faulty", "writes through a null pointer on the device", WARPSIM_DEVICE_MEMORY, 0, WARPSIM_DTYPE_BIT(WARPSIM_F32), draw_rows, nullptr,
     nullptr, nullptr},
};
const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION, 1, samplers, nullptr, nullptr};

}  // namespace

extern "C" WARPSIM_PLUGIN_EXPORT const warpsim_plugin* warpsim_plugin_entry(void) { return &plugin; }
