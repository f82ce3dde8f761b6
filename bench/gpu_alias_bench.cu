// Alias tables on the device (gpu/alias_table.hpp): construction of tables
// of 10^6 / 10^7 / 10^8 items (a shuffled power law of exponent 1, and
// uniform weights; fp32 and fp64) and sampling 10^9 draws, every draw stored,
// from tables of 10^6 / 10^7 / 10^8 items. The median of 10 runs between
// CUDA events after 2 warm-ups. Each line, JSON, states the bytes the work
// must move at least and the time that takes at the copy bandwidth measured
// in the same run (cudaMemcpy device to device, bytes read and written).
//   ./bench_gpu_alias [--quick]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cuda_timing.cuh"
#include "gpu/alias_table.hpp"
#include "gpu/cuda_check.hpp"

namespace {

using namespace warpsim;

using bench::copy_bandwidth_gbs;
using bench::DeviceBuffer;
using bench::fill_power_law;

template <class T>
void fill(T* w, std::size_t n, bool power) {
  if (power) fill_power_law<T><<<1024, 256>>>(w, n);
  else bench::fill_uniform<T><<<1024, 256>>>(w, n, 1, 0);
  WARPSIM_CUDA_LAUNCH("fill weights");
}

std::size_t g_items_per_section = 0;  // 0: the builder's default
bool g_global_pack = false;           // the pack reads l and h from global memory
int g_pack_chunk = 0;                 // the chunked pack's windows (0: the shared pack)
bool g_binary = false;                // the binary-search split instead of the partial p-ary one
bool g_no_merge = false;              // not the merge pack (the shared pack, sections of 64 items)
bool g_plain_launch = false;          // AliasBuildConfig::dependent_launch = false
bool g_graph = false;                 // every construction as a replayed graph (AliasBuildConfig::graph)
bool g_explicit_lights = false;       // the merge pack with l written out (AliasBuildConfig::implicit_lights = false)

template <class T>
void construction(std::size_t n, bool power, double bw, int reps, std::size_t psa_plus_group = 0, bool graph = false) {
  DeviceBuffer<T> w(n);
  DeviceBuffer<gpu::AliasRow> rows(n);
  fill(w.p, n, power);
  gpu::AliasTableBuilder<T> builder;
  gpu::AliasTableInfo info;
  gpu::AliasBuildConfig config;
  if (g_items_per_section > 0) config.sections = std::max<std::size_t>(1, n / g_items_per_section);
  config.psa_plus_group = psa_plus_group;
  config.shared_pack = !g_global_pack;
  config.pack_chunk = g_pack_chunk;
  config.pary_split = !g_binary;
  config.merge_pack = !g_no_merge;
  config.implicit_lights = !g_explicit_lights;
  config.dependent_launch = !g_plain_launch;
  config.graph = graph || g_graph;
  const double ms = bench::median_ms([&] { info = builder.build(w.p, n, rows.p, config); }, reps, 2);
  const double bytes = static_cast<double>(n) * (sizeof(T) + sizeof(gpu::AliasRow));  // read the weights, write the rows
  const double floor_ms = bytes / (bw * 1e6);
  // The issue's floor (issue 14): 24 bytes an item, as for fp32 weights and 8-byte rows.
  const double issue_floor_ms = 24.0 * static_cast<double>(n) / (bw * 1e6);
  const std::string method = std::string(psa_plus_group ? "psa+" : "psa") + (config.graph ? ", graph" : "") + (g_plain_launch ? ", plain launches" : "") + (g_explicit_lights && !psa_plus_group ? ", l written" : "");
  std::printf(
      "{\"what\": \"construction\", \"method\": \"%s\", \"dtype\": \"%s\", \"n\": %zu, \"weights\": \"%s\", \"ms\": %.4f, "
      "\"floor_ms\": %.4f, \"x_floor\": %.2f, \"x_issue_floor\": %.2f, \"lights\": %zu, \"heavies\": %zu, \"sections\": %zu, "
      "\"bandwidth_gbs\": %.0f}\n",
      method.c_str(), sizeof(T) == 4 ? "f32" : "f64", n,
      power ? "power law 1, shuffled" : "uniform", ms, floor_ms, ms / floor_ms, ms / issue_floor_ms, info.lights, info.heavies, info.sections, bw);
  std::fflush(stdout);
}

// method: "baseline" (a draw a thread, rows from global memory), "sectioned"
// (sections of 2,048 rows in shared memory; draws grouped by section),
// "sectioned-shuffled" (the same, then a radix sort into a random order).
void sampling(std::size_t n, std::uint64_t draws, double bw, int reps, const std::string& method = "baseline") {
  DeviceBuffer<float> w(n);
  DeviceBuffer<gpu::AliasRow> rows(n);
  DeviceBuffer<std::uint32_t> out(draws);
  fill(w.p, n, true);
  gpu::AliasTableBuilder<float> builder;
  const auto info = builder.build(w.p, n, rows.p);
  std::uint64_t seed = 1;
  gpu::AliasSectionedSampler sectioned;
  const double ms = bench::median_ms(
      [&] {
        if (method == "baseline") gpu::alias_sample(rows.p, info, seed++, 0, draws, out.p);
        else sectioned.sample(rows.p, info, seed++, 0, draws, out.p, method == "sectioned-shuffled");
      },
      reps, 2);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  // At least: every draw's index written (4 bytes); the rows are read once at least.
  const double bytes = static_cast<double>(draws) * 4 + static_cast<double>(n) * 16;
  const double floor_ms = bytes / (bw * 1e6);
  std::printf(
      "{\"what\": \"sampling\", \"method\": \"%s\", \"n\": %zu, \"draws\": %llu, \"stored\": true, \"ms\": %.4f, \"gsamples_per_s\": %.1f, "
      "\"floor_ms\": %.4f, \"x_floor\": %.2f, \"bandwidth_gbs\": %.0f}\n",
      method.c_str(), n, static_cast<unsigned long long>(draws), ms, static_cast<double>(draws) / (ms * 1e6), floor_ms, ms / floor_ms, bw);
  std::fflush(stdout);
}

// Seed 001's sampling experiments on warpsim's samplers, at the thesis's own
// grids (its plots/Plot.cuh, uniform weights, draws not needed afterwards but
// stored, as every warpsim draw is): Figs. 5.7 and 5.8 (throughput against the
// number of draws, tables of 10^6 and 10^7 items), Fig. 5.9 (the faster
// method over table size and draws) and the section-size sweep (a table of
// 10^6 items, sections of 64 to 3,072 rows). Median of 3 after 1 warm-up.
void seed_grid() {
  auto table = [](std::size_t n, DeviceBuffer<gpu::AliasRow>& rows) {
    DeviceBuffer<float> w(n);
    fill(w.p, n, false);
    gpu::AliasTableBuilder<float> builder;
    const auto info = builder.build(w.p, n, rows.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    return info;
  };
  DeviceBuffer<std::uint32_t> out(800'000'000);
  std::uint64_t seed = 1;
  auto rate = [&](const gpu::AliasRow* rows, const gpu::AliasTableInfo& info, std::uint64_t draws, gpu::AliasSectionedSampler* sectioned) {
    const double ms = bench::median_ms(
        [&] {
          if (sectioned) sectioned->sample(rows, info, seed++, 0, draws, out.p);
          else gpu::alias_sample(rows, info, seed++, 0, draws, out.p);
        },
        3, 1);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    return static_cast<double>(draws) / (ms * 1e6);
  };
  gpu::AliasSectionedSampler sectioned;
  // Both samplers on one table over a range of draws, a line each.
  auto both = [&](const char* what, std::size_t n, std::uint64_t most, std::uint64_t step) {
    DeviceBuffer<gpu::AliasRow> rows(n);
    const auto info = table(n, rows);
    for (std::uint64_t draws = 100'000; draws <= most; draws += step) {
      const double baseline = rate(rows.p, info, draws, nullptr), by_sections = rate(rows.p, info, draws, &sectioned);
      std::printf("{\"what\": \"%s\", \"n\": %zu, \"draws\": %llu, \"baseline_gs\": %.3f, \"sectioned_gs\": %.3f}\n", what, n,
                  static_cast<unsigned long long>(draws), baseline, by_sections);
    }
    std::fflush(stdout);
  };
  both("grid curve", 1'000'000, 500'000'000, 10'000'000);
  both("grid curve", 10'000'000, 800'000'000, 10'000'000);
  for (std::size_t n = 10'000; n <= 6'000'000; n += 80'000) both("grid heatmap", n, 30'000'000, 800'000);
  {
    const std::size_t n = 1'000'000;
    DeviceBuffer<gpu::AliasRow> rows(n);
    const auto info = table(n, rows);
    for (const std::uint64_t draws : {std::uint64_t{1'000'000}, std::uint64_t{10'000'000}}) {
      for (std::size_t section = 64; section <= gpu::kAliasMaxSectionRows; section += 64) {
        gpu::AliasSectionedSampler by_size(section);
        std::printf("{\"what\": \"grid section size\", \"n\": %zu, \"draws\": %llu, \"section_rows\": %zu, \"sectioned_gs\": %.3f}\n", n,
                    static_cast<unsigned long long>(draws), section, rate(rows.p, info, draws, &by_size));
      }
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("alias tables on the device: construction and sampling");
  bool quick = false;
  std::size_t once = 0;
  app.add_flag("--quick", quick, "10^6 and 10^7 only, 10^8 draws");
  bool construction_only = false;
  app.add_flag("--construction", construction_only, "the construction table only (PSA and PSA+, fp32 and fp64)");
  bool sampling_only = false;
  app.add_flag("--sampling", sampling_only, "the sampling table only (baseline and sectioned, 10^9 draws stored)")->excludes("--construction");
  app.add_option("--items-per-section", g_items_per_section, "construction: PSA sections of this many items (default: the builder's)");
  app.add_flag("--global-pack", g_global_pack, "construction: the pack reads l and h from global memory (AliasBuildConfig::shared_pack = false)");
  app.add_flag("--binary-split", g_binary, "construction: a thread a split, binary search (not the partial p-ary split)");
  app.add_flag("--no-merge-pack", g_no_merge, "construction: the shared pack of sections of 64 items, not the merge pack");
  app.add_flag("--explicit-lights", g_explicit_lights, "construction: every PSA build with l and its prefix sums written out and read back");
  app.add_flag("--plain-launch", g_plain_launch, "construction: plain launches, not programmatic dependent ones (AliasBuildConfig::dependent_launch = false)");
  app.add_flag("--graph", g_graph, "construction: every build captured once as a CUDA graph and replayed (AliasBuildConfig::graph)");
  app.add_option("--pack-chunk", g_pack_chunk, "construction: the chunked pack with windows of 8 or 16 items");
  app.add_option("--once", once, "one fp32 build of N power-law items and 10^8 draws from it, untimed (for a profiler)");
  bool grid = false;
  app.add_flag("--seed-grid", grid, "seed 001's sampling experiments at the thesis's grids (Figs. 5.7-5.9, the section-size sweep)");
  CLI11_PARSE(app, argc, argv);
  try {
    if (once > 0) {
      DeviceBuffer<float> w(once);
      DeviceBuffer<gpu::AliasRow> rows(once);
      DeviceBuffer<std::uint32_t> out(100'000'000);
      fill(w.p, once, true);
      gpu::AliasTableBuilder<float> builder;
      gpu::AliasBuildConfig config;
      config.implicit_lights = !g_explicit_lights;
      config.dependent_launch = !g_plain_launch;
      const auto info = builder.build(w.p, once, rows.p, config);
      gpu::alias_sample(rows.p, info, 1, 0, 100'000'000, out.p);
      WARPSIM_CUDA(cudaDeviceSynchronize());
      return 0;
    }
    if (grid) {
      cudaDeviceProp prop{};
      WARPSIM_CUDA(cudaGetDeviceProperties(&prop, 0));
      std::printf("{\"what\": \"device\", \"name\": \"%s\"}\n", prop.name);
      seed_grid();
      return 0;
    }
    const double bw = copy_bandwidth_gbs();
    cudaDeviceProp prop{};
    WARPSIM_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("{\"what\": \"device\", \"name\": \"%s\", \"copy_bandwidth_gbs\": %.0f}\n", prop.name, bw);
    std::vector<std::size_t> sizes = {1'000'000, 10'000'000};
    if (!quick) sizes.push_back(100'000'000);
    if (g_items_per_section > 0 || g_global_pack || g_pack_chunk > 0 || g_binary || g_no_merge || g_plain_launch || g_graph) {  // a construction sweep point only
      for (const std::size_t n : sizes) construction<float>(n, true, bw, 10);
      return 0;
    }
    for (const std::size_t n : sampling_only ? std::vector<std::size_t>{} : sizes) {
      for (const bool power : {true, false}) {
        construction<float>(n, power, bw, 10);
        construction<double>(n, power, bw, 10);
        construction<float>(n, power, bw, 10, 1024);  // PSA+, groups of 1,024 items
      }
    }
    for (const std::size_t n : sampling_only ? std::vector<std::size_t>{} : std::vector<std::size_t>{100'000, 1'000'000}) {  // rebuilt from the same buffers: launches, or a graph
      construction<float>(n, true, bw, 10);
      construction<float>(n, true, bw, 10, 0, true);
    }
    if (construction_only) return 0;
    const std::uint64_t draws = quick ? 100'000'000 : 1'000'000'000;
    for (const std::size_t n : {std::size_t{100'000}}) {
      sampling(n, draws, bw, 10);
      sampling(n, draws, bw, 10, "sectioned");
    }
    for (const std::size_t n : sizes) {
      sampling(n, draws, bw, 10);
      sampling(n, draws, bw, 10, "sectioned");
    }
    if (!sampling_only) sampling(10'000'000, draws, bw, 3, "sectioned-shuffled");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_alias: %s\n", e.what());
    return 2;
  }
  return 0;
}
