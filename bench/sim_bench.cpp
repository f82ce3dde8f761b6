// Cost of the warp model on the host: one simulated warp instruction of each
// kind, tracing off unless the name says otherwise. The oracle checks GPU
// output at scale through these, so their cost bounds its throughput.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "sim/warp.hpp"

using namespace warpsim::sim;

namespace {

void BM_ShflXor(benchmark::State& state) {
  const int w = static_cast<int>(state.range(0));
  Warp warp({.width = w});
  Reg<float> x("x", 1.5f), y("y");
  int mask = 1;
  for (auto _ : state) {
    warp.shfl_xor_sync(y, warp.lanes(), x, mask);
    mask = (mask * 2) & (w - 1);
    if (mask == 0) mask = 1;
    benchmark::DoNotOptimize(y);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["lanes"] = w;
}
BENCHMARK(BM_ShflXor)->Arg(16)->Arg(32)->Arg(64);

void BM_ShflPerLaneSource(benchmark::State& state) {
  Warp warp({.width = 32});
  Reg<double> x("x", 2.0), y("y");
  Reg<int> src("src");
  for (int l = 0; l < 32; ++l) src[l] = (l * 7) % 32;
  for (auto _ : state) {
    warp.shfl_sync(y, warp.lanes(), x, PerLane<int>(src));
    benchmark::DoNotOptimize(y);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ShflPerLaneSource);

void BM_ShflXorTraced(benchmark::State& state) {
  Warp warp({.width = 32, .trace = true});
  Reg<float> x("x", 1.5f), y("y");
  for (auto _ : state) {
    warp.shfl_xor_sync(y, warp.lanes(), x, 1);
    if (warp.trace().size() > 4096) warp.clear_trace();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ShflXorTraced);

// A warp-wide fp32 load: `coalesced` = lane k reads word k of one row;
// otherwise each lane reads from its own row, 4 KiB apart (Fig. 1a).
void BM_LoadGlobal(benchmark::State& state) {
  const bool coalesced = state.range(0) != 0;
  Warp warp({.width = 32});
  GlobalMemory mem;
  auto arr = mem.allocate<float>(32 * 1024);
  Reg<float> v("v");
  Reg<std::uint64_t> addr("addr");
  std::uint64_t row = 0;
  for (auto _ : state) {
    for (int l = 0; l < 32; ++l) {
      addr[l] = coalesced ? arr.at(row * 32 + static_cast<std::uint64_t>(l))
                          : arr.at(static_cast<std::uint64_t>(l) * 1024 + row);
    }
    warp.load_global(v, mem, PerLane<std::uint64_t>(addr));
    row = (row + 1) % 1024;
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(coalesced ? "coalesced" : "one row per lane");
}
BENCHMARK(BM_LoadGlobal)->Arg(1)->Arg(0);

void BM_LaneLocalAdd(benchmark::State& state) {
  Warp warp({.width = 32});
  Reg<float> x("x", 1.0f), y("y", 0.5f);
  for (auto _ : state) {
    warp.add(x, x, PerLane<float>(y));
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LaneLocalAdd);

void BM_Ballot(benchmark::State& state) {
  Warp warp({.width = 32});
  Reg<bool> p("p");
  for (int l = 0; l < 32; ++l) p[l] = l % 3 == 0;
  Reg<LaneMask> b("b");
  for (auto _ : state) {
    warp.ballot_sync(b, warp.lanes(), p);
    benchmark::DoNotOptimize(b);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Ballot);

}  // namespace

BENCHMARK_MAIN();
