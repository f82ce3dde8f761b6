// The token sampler (gpu/token_sampler.hpp) on the issue's grid: M = 1 ..
// 1,024 rows of K = 32,768 .. 262,144 logits (fp32 and bf16), temperature
// 0.7 and each truncation (top-k 50, top-p 0.9, min-p 0.05, all three) or
// none, one draw a row. Median of 20 timed runs after 3 warm-ups (CUDA
// events, bench/cuda_timing.cuh), the floor (the logits' bytes over the copy
// bandwidth measured in the same run). Logits: normal, sd 3, from the shared
// Philox mapping (Box-Muller). One JSON object a line; bench/torch_token_baselines.py
// times PyTorch's reference on the same grid.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/cuda_timing.cuh"
#include "gpu/cuda_check.hpp"
#include "gpu/token_sampler.hpp"

using namespace warpsim;

namespace {

template <class T>
__global__ void fill_logits(T* x, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double u1 = rng::uniform<double>(seed, i, 0), u2 = rng::uniform<double>(seed, i, 1);
    const float v = static_cast<float>(3 * sqrt(-2 * log(1 - u1)) * cospi(2 * u2));
    if constexpr (sizeof(T) == 4) x[i] = v;
    else x[i] = static_cast<T>(__float_as_uint(v) >> 16);  // bf16 by truncation
  }
}

struct Mode {
  const char* name;
  int top_k;
  float top_p, min_p;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_gpu_token: the token sampler on the (M, K) grid"};
  std::vector<int> ms = {1, 8, 64, 128, 256, 1024};
  std::vector<long long> ks = {32768, 131072, 152064, 262144};
  std::vector<std::string> dtypes = {"fp32", "bf16"};
  app.add_option("--m", ms, "rows")->delimiter(',');
  app.add_option("--k", ks, "logits a row")->delimiter(',');
  app.add_option("--dtype", dtypes, "fp32, bf16")->delimiter(',');
  std::string only;
  int cluster = 0;
  app.add_option("--cluster", cluster, "blocks a row (1, 2, 4, 8, 16; 0: the plan's)");
  app.add_option("--mode", only, "only this mode (temperature, top-k 50, top-p 0.9, min-p 0.05, all three)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  const Mode modes[] = {{"temperature", 0, 1.0f, 0.0f},
                        {"top-k 50", 50, 1.0f, 0.0f},
                        {"top-p 0.9", 0, 0.9f, 0.0f},
                        {"min-p 0.05", 0, 1.0f, 0.05f},
                        {"all three", 50, 0.9f, 0.05f}};
  try {
    const double bandwidth = bench::copy_bandwidth_gbs();
    cudaDeviceProp prop{};
    WARPSIM_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("{\"device\": \"%s\", \"copy_bandwidth_GBps\": %.0f}\n", prop.name, bandwidth);
    const int mmax = *std::max_element(ms.begin(), ms.end());
    const long long kmax = *std::max_element(ks.begin(), ks.end());
    bench::DeviceBuffer<float> x(static_cast<std::size_t>(mmax) * static_cast<std::size_t>(kmax));
    bench::DeviceBuffer<int> out(static_cast<std::size_t>(mmax));
    gpu::TokenSampler sampler;
    for (const auto& dt : dtypes) {
      const bool bf16 = dt == "bf16";
      const gpu::LogitType type = bf16 ? gpu::LogitType::BF16 : gpu::LogitType::F32;
      for (long long k : ks) {
        for (int m : ms) {
          const std::size_t n = static_cast<std::size_t>(m) * static_cast<std::size_t>(k);
          if (bf16) fill_logits<<<1024, 256>>>(reinterpret_cast<std::uint16_t*>(x.p), n, 7);
          else fill_logits<<<1024, 256>>>(x.p, n, 7);
          WARPSIM_CUDA(cudaDeviceSynchronize());
          const double bytes = static_cast<double>(n) * (bf16 ? 2 : 4);
          const double floor_ms = bytes / (bandwidth * 1e6);
          for (const auto& mode : modes) {
            if (!only.empty() && only != mode.name) continue;
            gpu::TokenParams p;
            p.temperature_all = 0.7f, p.top_k_all = mode.top_k, p.top_p_all = mode.top_p, p.min_p_all = mode.min_p, p.seed_all = 11;
            std::uint64_t step = 0;
            const double t = bench::median_ms(
                [&] {
                  p.offset_all = step++;
                  sampler.sample(x.p, type, m, k, p, 1, out.p, nullptr, gpu::TokenPlan{cluster});
                },
                20, 3);
            std::printf("{\"what\": \"warpsim\", \"dtype\": \"%s\", \"mode\": \"%s\", \"M\": %d, \"K\": %lld, \"ms\": %.4f, \"floor_ms\": %.4f, "
                        "\"x_floor\": %.2f, \"plan\": \"%s\"}\n",
                        dt.c_str(), mode.name, m, k, t, floor_ms, t / floor_ms, gpu::TokenSampler::plan(m, k, type, gpu::TokenPlan{cluster}).describe().c_str());
            std::fflush(stdout);
          }
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_token: %s\n", e.what());
    return 1;
  }
  return 0;
}
