// Cost of the statistical tests on the host, at the sizes a GPU sampler's
// validation produces (millions of categories, many distributions).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "stats/stats.hpp"

namespace {

struct Counts {
  std::vector<double> observed, probabilities;
  explicit Counts(std::size_t k) : observed(k), probabilities(k, 1.0 / static_cast<double>(k)) {
    std::mt19937_64 rng(1);
    std::poisson_distribution<int> pois(10.0);
    for (auto& o : observed) o = pois(rng);
  }
};

void BM_ChiSquare(benchmark::State& state) {
  Counts c(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(warpsim::stats::chi_square_test(c.observed, c.probabilities));
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetLabel("categories/s");
}
BENCHMARK(BM_ChiSquare)->Arg(1 << 10)->Arg(1 << 20)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

void BM_GTest(benchmark::State& state) {
  Counts c(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(warpsim::stats::g_test(c.observed, c.probabilities));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_GTest)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

void BM_KsDiscreteExact(benchmark::State& state) {
  // K = 32 categories (one warp's distribution), n draws.
  // A sample drawn from the null, so D is typical (about 1/sqrt(n)).
  std::vector<double> p(32, 1.0 / 32), o(32, 0.0);
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int> pick(0, 31);
  for (long i = 0; i < state.range(0); ++i) o[static_cast<std::size_t>(pick(rng))] += 1;
  for (auto _ : state) benchmark::DoNotOptimize(warpsim::stats::ks_discrete_test(o, p));
}
BENCHMARK(BM_KsDiscreteExact)->Arg(1024)->Arg(32768)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
