// A plugin that takes control of the process in every way it can, for the
// tests of `warpsim validate --plugin`'s worker (cli/validate/sandbox.hpp):
// each sampler ends or stalls the process inside draw_rows; the environment
// variable WARPSIM_HOSTILE_CONSTRUCTOR ("exit0") makes loading it end the
// process from a static constructor.
#include <warpsim/plugin.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace {

struct Constructor {
  Constructor() {
    const char* how = std::getenv("WARPSIM_HOSTILE_CONSTRUCTOR");
    if (how && std::strcmp(how, "exit0") == 0) std::exit(0);
  }
} constructor;

#define HOSTILE(name, body)                                                                                                                   \
  int name(void*, const void*, warpsim_dtype, std::int64_t rows, std::int64_t cols, std::uint64_t, std::int32_t* out) {                     \
    for (std::int64_t r = 0; r < rows; ++r) out[r] = static_cast<std::int32_t>(cols - 1);                                                     \
    body;                                                                                                                                     \
    return 0;                                                                                                                                 \
  }

HOSTILE(exit0, std::exit(0))
HOSTILE(exit3, std::exit(3))
HOSTILE(underscore_exit, ::_exit(4))
HOSTILE(sigkill, ::raise(SIGKILL))
HOSTILE(spin, for (volatile std::uint64_t i = 0;; i = i + 1) {})
HOSTILE(sleeps, ::sleep(100000))

constexpr std::uint32_t kBoth = WARPSIM_DTYPE_BIT(WARPSIM_F32) | WARPSIM_DTYPE_BIT(WARPSIM_F64);
const warpsim_sampler samplers[] = {
    {"exit0", "calls exit(0) in draw_rows", WARPSIM_HOST_MEMORY, 0, kBoth, exit0, nullptr, nullptr, nullptr},
    {"exit3", "calls exit(3) in draw_rows", WARPSIM_HOST_MEMORY, 0, kBoth, exit3, nullptr, nullptr, nullptr},
    {"underscore-exit", "calls _exit(4) in draw_rows", WARPSIM_HOST_MEMORY, 0, kBoth, underscore_exit, nullptr, nullptr, nullptr},
    {"sigkill", "raises SIGKILL in draw_rows", WARPSIM_HOST_MEMORY, 0, kBoth, sigkill, nullptr, nullptr, nullptr},
    {"spin", "spins forever in draw_rows", WARPSIM_HOST_MEMORY, 0, kBoth, spin, nullptr, nullptr, nullptr},
    {"sleep", "sleeps for a day in draw_rows", WARPSIM_HOST_MEMORY, 0, kBoth, sleeps, nullptr, nullptr, nullptr},
};
const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION, sizeof samplers / sizeof samplers[0], samplers, nullptr, nullptr};

}  // namespace

extern "C" WARPSIM_PLUGIN_EXPORT const warpsim_plugin* warpsim_plugin_entry(void) { return &plugin; }
