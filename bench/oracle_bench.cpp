// Throughput of the oracle on the host: weights per second through each
// algorithm on the warp model (tracing off), against a plain scalar C++ loop
// that computes the same draws (the model's overhead). One warp of W = 32
// lanes draws from 32 rows of K weights per iteration.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "oracle/butterfly_draw.hpp"
#include "oracle/prefix_draw.hpp"
#include "oracle/reference.hpp"

using namespace warpsim;

namespace {

constexpr int kW = 32;

struct Workload {
  int k;
  std::vector<float> weights;
  sim::GlobalMemory mem;
  oracle::WeightMatrix<float> matrix;
  sim::Reg<float> u{"u"};

  explicit Workload(int k_) : k(k_), weights(static_cast<std::size_t>(kW * k_)) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    for (auto& x : weights) x = dist(rng);
    matrix = oracle::upload_matrix<float>(mem, weights, kW, k);
    for (int l = 0; l < kW; ++l) u[l] = static_cast<float>(rng() >> 8) * 0x1p-24f;
  }
};

void report(benchmark::State& state, int k) {
  state.SetItemsProcessed(state.iterations() * kW * k);  // weights
  state.counters["weights/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * kW * k, benchmark::Counter::kIsRate);
}

void BM_Butterfly(benchmark::State& state) {
  Workload w(static_cast<int>(state.range(0)));
  const auto variant = state.range(1) ? oracle::ButterflyVariant::AddSub : oracle::ButterflyVariant::Standard;
  for (auto _ : state) {
    sim::Warp warp({.width = kW});
    auto d = oracle::butterfly_draw(warp, w.mem, w.matrix, 0, w.u, variant);
    benchmark::DoNotOptimize(d);
  }
  report(state, w.k);
  state.SetLabel(oracle::variant_name(variant));
}
BENCHMARK(BM_Butterfly)->Args({32, 1})->Args({128, 1})->Args({1024, 1})->Args({1024, 0});

void BM_TransposedRegisters(benchmark::State& state) {
  Workload w(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    sim::Warp warp({.width = kW});
    auto d = oracle::transposed_draw(warp, w.mem, w.matrix, 0, w.u, oracle::SearchKind::Binary, oracle::TransposeBy::Registers);
    benchmark::DoNotOptimize(d);
  }
  report(state, w.k);
}
BENCHMARK(BM_TransposedRegisters)->Arg(1024);

void BM_Baseline(benchmark::State& state) {
  Workload w(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    sim::Warp warp({.width = kW});
    auto d = oracle::baseline_draw(warp, w.mem, w.matrix, 0, w.u, oracle::SearchKind::Binary);
    benchmark::DoNotOptimize(d);
  }
  report(state, w.k);
}
BENCHMARK(BM_Baseline)->Arg(1024);

// The same draws with no model: per row, running sums and the search.
void BM_ScalarReference(benchmark::State& state) {
  Workload w(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    for (int r = 0; r < kW; ++r) {
      const std::span<const float> row(w.weights.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(w.k), static_cast<std::size_t>(w.k));
      benchmark::DoNotOptimize(oracle::reference_draw(row, w.u[r]));
    }
  }
  report(state, w.k);
}
BENCHMARK(BM_ScalarReference)->Arg(32)->Arg(128)->Arg(1024);

}  // namespace

BENCHMARK_MAIN();
