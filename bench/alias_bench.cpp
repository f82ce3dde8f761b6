// Alias-table construction on the host (oracle/alias/): items per second of
// each construction in exact units, beside a sweep in double precision (the
// thesis's arithmetic, order-dependent) -- what exactness costs.
//   ./bench_alias --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <vector>

#include "oracle/alias/psa_plus.hpp"
#include "oracle/alias/psa_warp.hpp"
#include "oracle/alias/sweep.hpp"
#include "oracle/alias/vose.hpp"
#include "oracle/alias/walker.hpp"

namespace {

using namespace warpsim::oracle::alias;

// A shuffled power law (exponent 1), as the thesis's evaluation uses.
std::vector<double> power_law(std::size_t n) {
  std::vector<double> w(n);
  std::uint64_t s = 42;
  for (std::size_t i = 0; i < n; ++i) w[i] = 1.0 / static_cast<double>(i + 1);
  for (std::size_t i = n; i > 1; --i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(w[i - 1], w[(s >> 33) % i]);
  }
  return w;
}

// The sweep in doubles: threshold and alias per row, the thesis's form.
void double_sweep(const std::vector<double>& w, std::vector<double>& keep, std::vector<std::uint32_t>& alias) {
  const std::size_t n = w.size();
  double total = 0;
  for (double x : w) total += x;
  const double bucket = total / static_cast<double>(n);
  std::size_t i = 0, j = 0;
  auto next_light = [&](std::size_t k) { while (k < n && w[k] > bucket) ++k; return k; };
  auto next_heavy = [&](std::size_t k) { while (k < n && w[k] <= bucket) ++k; return k; };
  i = next_light(0);
  j = next_heavy(0);
  double rest = j < n ? w[j] : 0;
  while (j < n) {
    if (rest > bucket && i < n) {
      keep[i] = w[i];
      alias[i] = static_cast<std::uint32_t>(j);
      rest -= bucket - w[i];
      i = next_light(i + 1);
    } else {
      const std::size_t next = next_heavy(j + 1);
      if (next == n) break;
      keep[j] = rest;
      alias[j] = static_cast<std::uint32_t>(next);
      rest = w[next] - (bucket - rest);
      j = next;
    }
  }
}

template <class Build>
void run(benchmark::State& state, Build build) {
  const auto w = power_law(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    const auto u = to_units<double>(w);
    auto t = build(u);
    benchmark::DoNotOptimize(t.keep.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Sweep(benchmark::State& s) { run(s, [](const Units& u) { return sweep(u); }); }
void BM_Vose(benchmark::State& s) { run(s, [](const Units& u) { return vose(u); }); }
void BM_Psa64(benchmark::State& s) { run(s, [](const Units& u) { return psa(u, 64); }); }
void BM_PsaPlus(benchmark::State& s) { run(s, [](const Units& u) { return psa_plus(u, 1024, 64); }); }
void BM_Walker(benchmark::State& s) { run(s, [](const Units& u) { return walker(u); }); }
// On the warp model (the oracle the kernels equal): every warp instruction
// executed lane by lane and costed (sectors, banks), one host thread.
void BM_ModelPsa(benchmark::State& s) { run(s, [](const Units& u) { return psa_on_model(u).table; }); }
void BM_ModelPsaGlobalBinary(benchmark::State& s) {
  run(s, [](const Units& u) {
    ModelConfig c;
    c.split = SplitMethod::Binary;
    c.pack = PackMethod::Global;
    return psa_on_model(u, c).table;
  });
}
void BM_ModelPsaPlus(benchmark::State& s) {
  run(s, [](const Units& u) {
    ModelConfig c;
    c.psa_plus_group = 1024;
    return psa_on_model(u, c).table;
  });
}
void BM_UnitsOnly(benchmark::State& state) {
  const auto w = power_law(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(to_units<double>(w).total);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
void BM_DoubleSweep(benchmark::State& state) {
  const auto w = power_law(static_cast<std::size_t>(state.range(0)));
  std::vector<double> keep(w.size());
  std::vector<std::uint32_t> alias(w.size());
  for (auto _ : state) {
    double_sweep(w, keep, alias);
    benchmark::DoNotOptimize(keep.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK(BM_UnitsOnly)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DoubleSweep)->Arg(1 << 20)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sweep)->Arg(1 << 20)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Vose)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Psa64)->Arg(1 << 20)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PsaPlus)->Arg(1 << 20)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Walker)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ModelPsa)->Arg(1 << 16)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ModelPsaGlobalBinary)->Arg(1 << 16)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ModelPsaPlus)->Arg(1 << 16)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
