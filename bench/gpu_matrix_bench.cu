// Matrix workload on the device: M x K weights with M*K = 2^28 (1 GiB fp32,
// 2 GiB fp64), K = 32, 128, 1024. For each: the read-once roof (the matrix's
// bytes over the bandwidth of a device-to-device copy measured in the same
// run) and every kernel's median time over >= 10 timed runs after warm-up,
// with CUDA events. Prints one JSON object per line. With --sweep, also
// every tuning of the warp-cooperative kernels (gpu::MatrixTuning), one
// line each ("what": "sweep").
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "properties/gpu_kernels.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/matrix_sampler.hpp"
#include "bench/cuda_timing.cuh"
#include "rng/philox_uniform.hpp"

using namespace warpsim;
using bench::fill_uniform;

namespace {

// The tunings worth timing at this K: the stages while rows fit in shared
// memory, the ring past it; caps on warps per SM for both.
std::vector<gpu::MatrixTuning> tunings(int k) {
  std::vector<gpu::MatrixTuning> out;
  for (int cap : {0, 8, 16}) {
    if (k < 1024) {
      for (int stages : {1, 2}) out.push_back({stages, cap, 4});
    } else {
      for (int ring : {0, 2, 4, 8}) out.push_back({1, cap, ring});
    }
  }
  return out;
}

template <class T>
void run(const char* dtype, bool table, bool sweep) {
  const std::size_t n = std::size_t{1} << 28;
  T *w = nullptr, *copy = nullptr;
  int* z = nullptr;
  WARPSIM_CUDA(cudaMalloc(&w, n * sizeof(T)));
  WARPSIM_CUDA(cudaMalloc(&copy, n * sizeof(T)));
  fill_uniform<T><<<4096, 256>>>(w, n, 42, 1);
  WARPSIM_CUDA(cudaGetLastError());
  WARPSIM_CUDA(cudaDeviceSynchronize());
  const double bytes = static_cast<double>(n * sizeof(T));
  const double copy_ms = bench::median_ms([&] { WARPSIM_CUDA(cudaMemcpyAsync(copy, w, n * sizeof(T), cudaMemcpyDeviceToDevice)); }, 15, 3);
  WARPSIM_CUDA(cudaFree(copy));
  const double bandwidth = 2 * bytes / (copy_ms * 1e-3);  // read + write
  const double roof_ms = bytes / bandwidth * 1e3;
  std::printf("{\"dtype\": \"%s\", \"what\": \"copy\", \"ms\": %.4f, \"bandwidth_TBps\": %.3f, \"roof_ms\": %.4f}\n", dtype, copy_ms,
              bandwidth * 1e-12, roof_ms);
  gpu::MatrixSampler<T> sampler;
  for (int k : {32, 128, 1024}) {
    const int m = static_cast<int>(n / static_cast<std::size_t>(k));
    WARPSIM_CUDA(cudaMalloc(&z, static_cast<std::size_t>(m) * sizeof(int)));
    for (auto algo : {gpu::MatrixAlgorithm::Baseline, gpu::MatrixAlgorithm::TransposedRegisters, gpu::MatrixAlgorithm::ButterflyStandard,
                      gpu::MatrixAlgorithm::ButterflyAddSub}) {
      if (!table) break;
      std::uint64_t seed = 1;
      const double ms = bench::median_ms([&] { sampler.draw(w, m, k, seed++, algo, z); }, 15, 3);
      WARPSIM_CUDA(cudaDeviceSynchronize());
      std::printf("{\"dtype\": \"%s\", \"what\": \"%s\", \"K\": %d, \"M\": %d, \"ms\": %.4f, \"roof_ms\": %.4f, \"x_roof\": %.2f}\n", dtype,
                  properties::name_of(algo).c_str(), k, m, ms, roof_ms, ms / roof_ms);
      std::fflush(stdout);
    }
    for (auto algo : {gpu::MatrixAlgorithm::TransposedRegisters, gpu::MatrixAlgorithm::ButterflyStandard, gpu::MatrixAlgorithm::ButterflyAddSub}) {
      if (!sweep) break;
      for (const auto& t : tunings(k)) {
        gpu::MatrixSampler<T> tuned;
        tuned.set_tuning(t);
        std::uint64_t seed = 1;
        const double ms = bench::median_ms([&] { tuned.draw(w, m, k, seed++, algo, z); }, 15, 3);
        WARPSIM_CUDA(cudaDeviceSynchronize());
        std::printf("{\"dtype\": \"%s\", \"what\": \"sweep\", \"algorithm\": \"%s\", \"K\": %d, \"stages\": %d, \"max_warps_per_sm\": %d, "
                    "\"ring\": %d, \"ms\": %.4f, \"x_roof\": %.2f}\n",
                    dtype, properties::name_of(algo).c_str(), k, t.stages, t.max_warps_per_sm, t.ring, ms, ms / roof_ms);
        std::fflush(stdout);
      }
    }
    WARPSIM_CUDA(cudaFree(z));
  }
  WARPSIM_CUDA(cudaFree(w));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Matrix workload on the device: the read-once roof and every kernel's median time, as JSON lines"};
  bool sweep = false, no_table = false;
  app.add_flag("--sweep", sweep, "also time every tuning (gpu::MatrixTuning) of the warp-cooperative kernels");
  app.add_flag("--no-table", no_table, "skip the default-tuning table (with --sweep: the sweep alone)");
  CLI11_PARSE(app, argc, argv);
  try {
    cudaDeviceProp p{};
    WARPSIM_CUDA(cudaGetDeviceProperties(&p, 0));
    std::printf("{\"device\": \"%s\", \"sms\": %d, \"l2_MB\": %.1f}\n", p.name, p.multiProcessorCount, p.l2CacheSize / 1048576.0);
    run<float>("fp32", !no_table, sweep);
    run<double>("fp64", !no_table, sweep);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_matrix_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
