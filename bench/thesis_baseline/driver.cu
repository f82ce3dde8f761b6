// The thesis's own code as the baseline of bench/gpu_alias_bench.cu: this
// driver (warpsim's) is compiled with the sources of ByteHamster/alias-table-gpu
// (not part of warpsim; GPLv3; carried to the device and built there by
// build_and_run.sh) and times, as the thesis's evaluation does:
//   construction: the partial p-ary split and the chunked pack (its fastest
//     variant), 10^7 and 10^8 items, a shuffled power law of exponent 1 and
//     uniform weights, and the same with PSA+ (Variant::setPsaPlusIfSupported)
//     on uniform weights, where the issue quotes it (with the power law at
//     10^8 its PSA+ stops on "CUDA: invalid device ordinal" at
//     AliasTableSplitGpu.cu:415: docs/device-logs/2026-11-22/alias-thesis-psaplus/);
//     median of 10 builds after 2 warm-ups (its Timer: CUDA events)
//   sampling: its baseline sampler and its sectioned sampler with shared memory
//     (xorwow, draws not stored; section shares by a rounded normal deviate,
//     errata E13), 10^9 draws from tables of 10^6 / 10^7 / 10^8 items, as its
//     benchmarkSampling reports (GSamples/s).
//   plots (`driver plots`): the thesis's own experiment functions
//     (plots/PlotSampling.cuh), called with the arguments its plots/Plot.cuh
//     gives them: the samplers against the number of draws at 10^6 and 10^7
//     items (Figs. 5.7, 5.8), the best sampler over table size and draws
//     (Fig. 5.9), the section-size sweeps, and the group-size grid (Fig. 4.6).
//     Each prints its CSV after a line "# NAME" (Plot.cuh's file name).
//   rejection (Bringmann-Larsen, Sec. 5.3.2; `driver rejection`): its build
//     with the binary-search fill of A (an int a slot; the weights' sum on
//     the CPU, as its build() does), median of 10 after 2, and its
//     SamplerRejection (128 x 128 threads, xorwow, not stored), 10^9 draws,
//     median of 5, shuffled power law, 10^6 / 10^7 / 10^8 items.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "construction/aliasTable/buildMethod/AliasTableSplitGpu.cuh"
#include "sampling/aliasTable/SamplerGpuBasic.cuh"
#include "sampling/aliasTable/SamplerGpuSectionedShared.cuh"
#include "construction/rejectionSampling/RejectionSamplingBinarySearch.cuh"
#include "sampling/rejectionSampling/SamplerRejection.cuh"
#include "utils/Timer.cuh"
#include "plots/PlotSampling.cuh"

#include <cstring>
#include <iostream>

int rejection() {
  for (int n : {1000000, 10000000, 100000000}) {
    RejectionSamplingBinarySearch structure(n, weightDistributionPowerLaw1Shuffled);
    structure.preBuild();
    for (int i = 0; i < 2; ++i) structure.build();
    std::vector<float> times;
    for (int i = 0; i < 10; ++i) {
      Timer timer;
      timer.start();
      structure.build();
      timer.stop();
      times.push_back(timer.elapsedMillis());
    }
    std::sort(times.begin(), times.end());
    std::printf("{\"what\": \"thesis rejection construction\", \"variant\": \"%s\", \"n\": %d, \"weights\": \"power law 1, shuffled\", \"slots\": %d, \"ms\": %.4f}\n",
                structure.name().c_str(), n, structure.A.size, times[5]);
    std::fflush(stdout);
    SamplerRejection sampler(structure);
    sampler.benchmarkSampling(100000000);  // warm-up
    std::vector<double> rates;
    for (int i = 0; i < 5; ++i) rates.push_back(sampler.benchmarkSampling(1000000000));
    std::sort(rates.begin(), rates.end());
    std::printf("{\"what\": \"thesis rejection sampling\", \"n\": %d, \"draws\": 1000000000, \"stored\": false, \"gsamples_per_s\": %.3f}\n", n, rates[2]);
    std::fflush(stdout);
  }
  return 0;
}

int plots() {
  auto run = [](const char* name, auto&& f) {
    std::printf("# %s\n", name);
    std::fflush(stdout);
    f();
    std::cout << std::flush;
  };
  run("samplesPerSecondSamplerMethodMax1e6.csv", [] { PlotSampling::plotSamplingSpeedSamplerMethod(1e6, 5e8, 1e7); });
  run("samplesPerSecondSamplerMethodMax1e7.csv", [] { PlotSampling::plotSamplingSpeedSamplerMethod(1e7, 8e8, 1e7); });
  run("samplesPerSecondMethodHeatmap.csv", [] { PlotSampling::plotSamplingSpeedMethodHeatmap(); });
  run("samplesPerSecondItemsPerSection1e6.csv", [] { PlotSampling::plotSamplingSpeedSectionedItemsPerSection(1e6, 12000); });
  run("samplesPerSecondItemsPerSection1e7.csv", [] { PlotSampling::plotSamplingSpeedSectionedItemsPerSection(1e7, 6000); });
  run("samplesPerSecondGroupSizeXorWow.csv", [] { PlotSampling::plotSamplerGroupSize<XorWowPrng>(1024); });
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "rejection") == 0) return rejection();
  if (argc > 1 && std::strcmp(argv[1], "plots") == 0) return plots();
  const WeightDistribution dists[] = {weightDistributionPowerLaw1Shuffled, weightDistributionUniform};
  for (int n : {10000000, 100000000}) {
    for (WeightDistribution dist : dists) for (bool plus : {false, true}) {
      if (plus && dist != weightDistributionUniform) continue;
      Variant variant(splitVariantParySearch, packVariantChunkedShared, false);
      variant.setPsaPlusIfSupported(plus);
      AliasTableSplitGpu<ArrayOfStructs> table(n, variant, NUMBER_THREADS_AUTO, dist);
      table.preBuild();
      for (int i = 0; i < 2; ++i) table.build();
      std::vector<float> times;
      for (int i = 0; i < 10; ++i) {
        Timer timer;
        timer.start();
        table.build();
        timer.stop();
        times.push_back(timer.elapsedMillis());
      }
      table.postBuild();
      std::sort(times.begin(), times.end());
      std::printf("{\"what\": \"thesis construction\", \"variant\": \"%s\", \"psa_plus\": %s, \"n\": %d, \"weights\": \"%s\", \"ms\": %.4f}\n",
                  table.name().c_str(), variant.psaPlus ? "true" : "false", n, dist == weightDistributionUniform ? "uniform" : "power law 1, shuffled", times[5]);
      std::fflush(stdout);
    }
  }
  for (int n : {1000000, 10000000, 100000000}) {
    Variant variant(splitVariantParySearch, packVariantChunkedShared, false);
    AliasTableSplitGpu<ArrayOfStructs> table(n, variant, NUMBER_THREADS_AUTO, weightDistributionPowerLaw1Shuffled);
    table.fullBuild();
    SamplerGpuBasic<ArrayOfStructs> sampler(table);
    sampler.benchmarkSampling(100000000);  // warm-up
    std::vector<double> rates;
    for (int i = 0; i < 5; ++i) rates.push_back(sampler.benchmarkSampling(1000000000));
    std::sort(rates.begin(), rates.end());
    std::printf("{\"what\": \"thesis sampling\", \"n\": %d, \"draws\": 1000000000, \"stored\": false, \"gsamples_per_s\": %.2f}\n", n, rates[2]);
    std::fflush(stdout);
    SamplerGpuSectionedShared sectioned(table);
    sectioned.benchmarkSampling(100000000);  // warm-up
    rates.clear();
    for (int i = 0; i < 5; ++i) rates.push_back(sectioned.benchmarkSampling(1000000000));
    std::sort(rates.begin(), rates.end());
    std::printf("{\"what\": \"thesis sectioned sampling\", \"sampler\": \"%s\", \"n\": %d, \"draws\": 1000000000, \"stored\": false, "
                "\"gsamples_per_s\": %.2f}\n",
                sectioned.name().c_str(), n, rates[2]);
    std::fflush(stdout);
  }
  return 0;
}
