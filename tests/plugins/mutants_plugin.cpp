// A plugin that offers the seeded-bug catalogue through the C ABI: the
// correct warp-per-row sampler ("warp-per-row") and each mutant
// ("mutant.<name>"), in their host forms on the warp model, and (CUDA
// builds) their CUDA forms ("cuda.<name>"). The tests run `warpsim validate
// --plugin` on each: the correct one must pass, every mutant must fail.
// The model's detection of undefined behaviour (a read past the row, a race)
// comes back as WARPSIM_FAULT: the sampler's failure, as a checker's is.
#include <warpsim/plugin.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "properties/mutants.hpp"

namespace {

thread_local std::string last_error;

struct Entry {
  std::string name;
  warpsim::properties::Sampler sampler;
};

std::deque<Entry>& entries() {
  static std::deque<Entry> list;
  return list;
}

template <class T>
int draw(const warpsim::properties::Sampler& s, const void* weights, std::int64_t rows, std::int64_t cols, std::uint64_t seed, std::int32_t* out) {
  warpsim::properties::Matrix<T> m{static_cast<int>(rows), static_cast<int>(cols), {}};
  const T* w = static_cast<const T*>(weights);
  m.weights.assign(w, w + rows * cols);
  try {
    const auto idx = s.draw(m, seed);
    for (std::int64_t r = 0; r < rows; ++r) out[r] = idx[static_cast<std::size_t>(r)];
    return WARPSIM_OK;
  } catch (const std::exception& e) {
    last_error = e.what();
    return WARPSIM_FAULT;
  }
}

int draw_rows(void* ctx, const void* weights, warpsim_dtype dtype, std::int64_t rows, std::int64_t cols, std::uint64_t seed, std::int32_t* out) {
  const auto& s = static_cast<const Entry*>(ctx)->sampler;
  return dtype == WARPSIM_F32 ? draw<float>(s, weights, rows, cols, seed, out) : draw<double>(s, weights, rows, cols, seed, out);
}

const char* error() { return last_error.c_str(); }

std::vector<warpsim_sampler> make_table() {
  using namespace warpsim::properties;
  auto add = [](std::string name, Sampler s) { entries().push_back({std::move(name), std::move(s)}); };
  add("warp-per-row", host_mutant(Mutation::None));
  for (const auto& m : mutants()) add("mutant." + m.name, host_mutant(m.mutation));
  if (cuda_mutant(Mutation::None).unavailable().empty()) {
    add("cuda.warp-per-row", cuda_mutant(Mutation::None));
    for (const auto& m : mutants())
      if (m.kernel_bug) add("cuda." + m.name, cuda_mutant(m.mutation));
  }
  std::vector<warpsim_sampler> table;
  for (auto& e : entries()) {
    table.push_back({e.name.c_str(), nullptr, WARPSIM_HOST_MEMORY, WARPSIM_REPLAYABLE | WARPSIM_ADDS_IN_ORDER,
                     WARPSIM_DTYPE_BIT(WARPSIM_F32) | WARPSIM_DTYPE_BIT(WARPSIM_F64), draw_rows, nullptr, nullptr, &e});
  }
  return table;
}

}  // namespace

extern "C" WARPSIM_PLUGIN_EXPORT const warpsim_plugin* warpsim_plugin_entry(void) {
  static const std::vector<warpsim_sampler> table = make_table();
  static const warpsim_plugin plugin = {WARPSIM_PLUGIN_ABI_VERSION, static_cast<std::uint32_t>(table.size()), table.data(), error, nullptr};
  return &plugin;
}
