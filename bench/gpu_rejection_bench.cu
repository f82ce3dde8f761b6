// Rejection sampling on the device: Bringmann-Larsen (gpu/bringmann_larsen.hpp)
// with seed 004's uncached and pre-cached warp loops (gpu/warp_rejection.cuh),
// beside the alias table of the same weights (gpu/alias_table.hpp).
//
// For N = 10^6 / 10^7 / 10^8 items (a shuffled power law of exponent 1,
// uniform fractions in [0, 1), and equal weights, where the acceptance is
// exactly 1/2: errata E23), fp32:
//   construction  Bringmann-Larsen's build and the alias table's (PSA), ms
//   sampling      10^9 draws, every draw stored (u32), GSamples/s, uncached
//                 and pre-cached, and the alias table's baseline sampler
//   iterations    a counted run: warp iterations a call and attempts a draw,
//                 set beside seed 004's exact E[L_32] (uncached) and the
//                 pre-cached steady state (oracle/rejection/loop_model.hpp)
//                 for the measured acceptance N / M
// Median of 10 runs between CUDA events after 2 warm-ups; the floor of a
// sampling run writes 4 bytes a draw (reading the structure once) at the
// copy bandwidth measured in the same run. JSON lines.
//   ./bench_gpu_rejection [--quick]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "cuda_timing.cuh"
#include "gpu/alias_table.hpp"
#include "gpu/bringmann_larsen.hpp"
#include "gpu/cuda_check.hpp"
#include "rejection_model.hpp"

namespace {

using namespace warpsim;
using bench::DeviceBuffer;

__global__ void fill_equal(float* w, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    w[i] = 1;
}

enum class Weights { power_law, uniform, equal };

const char* name(Weights w) {
  return w == Weights::power_law ? "power law 1, shuffled" : w == Weights::uniform ? "uniform" : "equal";
}

void fill(float* w, std::size_t n, Weights kind) {
  if (kind == Weights::power_law) bench::fill_power_law<float><<<1024, 256>>>(w, n);
  else if (kind == Weights::uniform) bench::fill_uniform<float><<<1024, 256>>>(w, n, 1, 0);
  else fill_equal<<<1024, 256>>>(w, n);
  WARPSIM_CUDA_LAUNCH("fill weights");
}

void run(std::size_t n, Weights kind, std::uint64_t draws, double bw, int reps) {
  const char* weights = name(kind);
  DeviceBuffer<float> w(n);
  fill(w.p, n, kind);
  DeviceBuffer<gpu::BringmannLarsenWord> words(gpu::bringmann_larsen_words(n));
  DeviceBuffer<std::uint64_t> thresholds(n);
  gpu::BringmannLarsenBuilder<float> builder;
  gpu::BringmannLarsenInfo info;
  const double build_ms = bench::median_ms([&] { info = builder.build(w.p, n, words.p, thresholds.p); }, reps, 2);
  DeviceBuffer<gpu::AliasRow> rows(n);
  gpu::AliasTableBuilder<float> alias_builder;
  gpu::AliasTableInfo alias_info;
  const double alias_build_ms = bench::median_ms([&] { alias_info = alias_builder.build(w.p, n, rows.p); }, reps, 2);
  const double build_bytes = static_cast<double>(n) * (4 + 8) + static_cast<double>(info.slots) / 64 * 16;  // read the weights, write the structure
  std::printf(
      "{\"what\": \"construction\", \"n\": %zu, \"weights\": \"%s\", \"slots\": %llu, \"acceptance\": %.6f, \"bringmann_larsen_ms\": %.4f, "
      "\"floor_ms\": %.4f, \"alias_psa_ms\": %.4f, \"bandwidth_gbs\": %.0f}\n",
      n, weights, static_cast<unsigned long long>(info.slots), info.acceptance(), build_ms, build_bytes / (bw * 1e6), alias_build_ms, bw);
  std::fflush(stdout);

  DeviceBuffer<std::uint32_t> out(draws);
  DeviceBuffer<gpu::BringmannLarsenCounts> counts(1);
  const double floor_ms = (static_cast<double>(draws) * 4 + static_cast<double>(n) * 12) / (bw * 1e6);
  for (const bool pre : {false, true}) {
    std::uint64_t seed = 1;
    const double ms = bench::median_ms([&] { gpu::bringmann_larsen_sample(words.p, thresholds.p, info, seed++, 0, draws, out.p, pre); }, reps, 2);
    WARPSIM_CUDA(cudaMemset(counts.p, 0, sizeof(gpu::BringmannLarsenCounts)));
    gpu::bringmann_larsen_sample(words.p, thresholds.p, info, 99, 0, draws, out.p, pre, counts.p);
    gpu::BringmannLarsenCounts c;
    WARPSIM_CUDA(cudaMemcpy(&c, counts.p, sizeof c, cudaMemcpyDeviceToHost));
    const double iterations = static_cast<double>(c.warp_iterations) / static_cast<double>(c.warp_calls);
    const double model = bench::predicted_warp_iterations(pre, info.acceptance());
    std::printf(
        "{\"what\": \"sampling\", \"method\": \"bringmann-larsen, %s\", \"n\": %zu, \"weights\": \"%s\", \"draws\": %llu, \"stored\": true, "
        "\"ms\": %.4f, \"gsamples_per_s\": %.2f, \"ns_per_draw\": %.5f, \"floor_ms\": %.4f, \"x_floor\": %.1f, \"acceptance\": %.6f, "
        "\"attempts_per_draw\": %.4f, \"warp_calls\": %llu, \"iterations_per_call\": %.4f, \"model_iterations_per_call\": %.4f}\n",
        pre ? "pre-cached" : "uncached", n, weights, static_cast<unsigned long long>(draws), ms, static_cast<double>(draws) / (ms * 1e6),
        ms * 1e6 / static_cast<double>(draws), floor_ms, ms / floor_ms, info.acceptance(), static_cast<double>(c.attempts) / static_cast<double>(c.draws),
        c.warp_calls, iterations, model);
    std::fflush(stdout);
  }
  std::uint64_t seed = 1;
  const double ms = bench::median_ms([&] { gpu::alias_sample(rows.p, alias_info, seed++, 0, draws, out.p); }, reps, 2);
  std::printf(
      "{\"what\": \"sampling\", \"method\": \"alias table, baseline\", \"n\": %zu, \"weights\": \"%s\", \"draws\": %llu, \"stored\": true, "
      "\"ms\": %.4f, \"gsamples_per_s\": %.2f, \"floor_ms\": %.4f, \"x_floor\": %.1f}\n",
      n, weights, static_cast<unsigned long long>(draws), ms, static_cast<double>(draws) / (ms * 1e6), floor_ms, ms / floor_ms);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("rejection sampling on the device: Bringmann-Larsen uncached and pre-cached, beside the alias table");
  bool quick = false;
  app.add_flag("--quick", quick, "10^6 and 10^7 only, 10^8 draws");
  CLI11_PARSE(app, argc, argv);
  try {
    const double bw = bench::copy_bandwidth_gbs();
    cudaDeviceProp prop{};
    WARPSIM_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("{\"what\": \"device\", \"name\": \"%s\", \"copy_bandwidth_gbs\": %.0f}\n", prop.name, bw);
    std::vector<std::size_t> sizes = {1'000'000, 10'000'000};
    if (!quick) sizes.push_back(100'000'000);
    const std::uint64_t draws = quick ? 100'000'000 : 1'000'000'000;
    for (const std::size_t n : sizes)
      for (const Weights kind : {Weights::power_law, Weights::uniform, Weights::equal}) run(n, kind, draws, bw, 10);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_rejection: %s\n", e.what());
    return 2;
  }
  return 0;
}
