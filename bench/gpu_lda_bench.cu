// One z-draw sweep of the LDA workload at the seed's sizes (synthetic corpus,
// oracle/lda_corpus.hpp), K from 16 to 1024 (or seed 000's grids), fp32 and fp64, every algorithm:
// median of 10 timed sweeps after warm-up (CUDA events). Prints one JSON
// object per line, with the bytes a sweep must move. With --sweep, also every
// tuning of the warp-cooperative kernels (gpu::LdaTuning) where it applies
// (the ring, tokens and block sums at K >= 256, the chunk at every K), one
// line each ("what": "sweep").
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "properties/gpu_kernels.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/lda_sampler.hpp"
#include "oracle/lda_corpus.hpp"
#include "bench/cuda_timing.cuh"
#include "rng/philox_uniform.hpp"

using namespace warpsim;
using bench::fill_uniform;

namespace {

// The K values of a run: powers of two from 16 (the default), or seed 000's
// grids (--seed-grid): Fig. 11's K = 4, 8, ..., 1024 and Fig. 12's every K
// from 480 to 544.
std::vector<int> k_values(bool seed_grid, int only_k) {
  if (only_k > 0) return {only_k};
  if (!seed_grid) return {16, 32, 64, 128, 256, 512, 1024};
  std::vector<int> ks;
  for (int k = 4; k <= 1024; k += 4) ks.push_back(k);
  for (int k = 480; k <= 544; ++k)
    if (k % 4 != 0) ks.push_back(k);
  std::sort(ks.begin(), ks.end());
  return ks;
}

template <class T>
void run(const oracle::LdaCorpus& c, const char* dtype, const int* offsets, const int* words, int* z, bool sweep, bool seed_grid, int only_k) {
  gpu::LdaSampler<T> sampler;
  const double tokens = static_cast<double>(c.words.size());
  // seed 000 averaged five runs of each point; the seed grid takes the median of 5 after 1 warm-up (the default: 10 after 2)
  const int runs = seed_grid ? 5 : 10, warm = seed_grid ? 1 : 2;
  for (int k : k_values(seed_grid, only_k)) {
    T *theta = nullptr, *phi = nullptr;
    const std::size_t nt = static_cast<std::size_t>(c.documents) * k, np = static_cast<std::size_t>(c.vocabulary) * k;
    WARPSIM_CUDA(cudaMalloc(&theta, nt * sizeof(T)));
    WARPSIM_CUDA(cudaMalloc(&phi, np * sizeof(T)));
    fill_uniform<T><<<2048, 256>>>(theta, nt, 5, 2);
    fill_uniform<T><<<2048, 256>>>(phi, np, 5, 3);
    WARPSIM_CUDA(cudaGetLastError());
    // Bytes: theta once, words and z once; phi gathered once per token (no
    // reuse) at most, or once in all (perfect reuse) at least.
    const double fixed = static_cast<double>(nt * sizeof(T)) + 8 * tokens;
    const double gather = tokens * k * sizeof(T), phi_once = static_cast<double>(np * sizeof(T));
    for (auto algo : {gpu::MatrixAlgorithm::Baseline, gpu::MatrixAlgorithm::TransposedRegisters, gpu::MatrixAlgorithm::ButterflyStandard,
                      gpu::MatrixAlgorithm::ButterflyAddSub}) {
      // the seed grid: seed 000's three (Alg. 1, Alg. 4 with the register transpose, Alg. 7), the baseline on Fig. 11's K only
      if (seed_grid && (algo == gpu::MatrixAlgorithm::ButterflyStandard || (algo == gpu::MatrixAlgorithm::Baseline && k % 4 != 0))) continue;
      std::uint64_t seed = 1;
      const double ms = bench::median_ms([&] { sampler.draw(theta, phi, offsets, words, c.documents, k, seed++, algo, z); }, runs, warm);
      WARPSIM_CUDA(cudaDeviceSynchronize());
      std::printf("{\"dtype\": \"%s\", \"K\": %d, \"what\": \"%s\", \"ms\": %.4f, \"bytes_min_MB\": %.1f, \"bytes_gather_MB\": %.1f, "
                  "\"GBps_if_gathered\": %.0f, \"ring\": %d, \"tokens\": %d, \"global_sums\": %s, \"chunk\": %d}\n",
                  dtype, k, properties::name_of(algo).c_str(), ms, (fixed + phi_once) / 1e6, (fixed + gather) / 1e6,
                  (fixed + gather) / (ms * 1e-3) / 1e9, sampler.tuning(algo).ring, sampler.tuning(algo).tokens,
                  sampler.tuning(algo).global_sums ? "true" : "false", sampler.tuning(algo).chunk);
      std::fflush(stdout);
    }
    // Below shared memory's limit only the chunk applies.
    for (auto algo : {gpu::MatrixAlgorithm::TransposedRegisters, gpu::MatrixAlgorithm::ButterflyStandard, gpu::MatrixAlgorithm::ButterflyAddSub}) {
      if (!sweep || k >= 256) break;
      for (const int chunk : {0, 1, 2, 4, 8, 16, 32}) {
        gpu::LdaSampler<T> tuned;
        tuned.set_tuning({2, 1, false, chunk});
        std::uint64_t seed = 1;
        const double ms = bench::median_ms([&] { tuned.draw(theta, phi, offsets, words, c.documents, k, seed++, algo, z); }, 10, 2);
        WARPSIM_CUDA(cudaDeviceSynchronize());
        std::printf("{\"dtype\": \"%s\", \"K\": %d, \"what\": \"sweep\", \"algorithm\": \"%s\", \"chunk\": %d, \"ms\": %.4f}\n", dtype, k,
                    properties::name_of(algo).c_str(), chunk, ms);
        std::fflush(stdout);
      }
    }
    for (auto algo : {gpu::MatrixAlgorithm::TransposedRegisters, gpu::MatrixAlgorithm::ButterflyStandard, gpu::MatrixAlgorithm::ButterflyAddSub}) {
      if (!sweep || k < 256) break;
      for (const gpu::LdaTuning tuning :
           {gpu::LdaTuning{0, 1}, gpu::LdaTuning{2, 1}, gpu::LdaTuning{3, 1}, gpu::LdaTuning{2, 2}, gpu::LdaTuning{3, 2}, gpu::LdaTuning{2, 4},
            gpu::LdaTuning{3, 4}, gpu::LdaTuning{2, 1, true}, gpu::LdaTuning{2, 2, true}, gpu::LdaTuning{3, 2, true},
            gpu::LdaTuning{2, 4, true}, gpu::LdaTuning{3, 4, true},
            // chunks of a group a warp at a time (LdaTuning::chunk; the ones above take whole groups)
            gpu::LdaTuning{2, 1, false, 2}, gpu::LdaTuning{2, 2, false, 2}, gpu::LdaTuning{2, 4, false, 2}, gpu::LdaTuning{2, 1, true, 2},
            gpu::LdaTuning{2, 2, true, 1}, gpu::LdaTuning{2, 2, true, 2}, gpu::LdaTuning{2, 2, true, 4}, gpu::LdaTuning{2, 2, true, 8},
            gpu::LdaTuning{3, 2, true, 2}, gpu::LdaTuning{2, 4, true, 1}, gpu::LdaTuning{2, 4, true, 2}, gpu::LdaTuning{2, 4, true, 4}}) {
        gpu::LdaSampler<T> tuned;
        tuned.set_tuning(tuning);
        std::uint64_t seed = 1;
        const double ms = bench::median_ms([&] { tuned.draw(theta, phi, offsets, words, c.documents, k, seed++, algo, z); }, 10, 2);
        WARPSIM_CUDA(cudaDeviceSynchronize());
        std::printf("{\"dtype\": \"%s\", \"K\": %d, \"what\": \"sweep\", \"algorithm\": \"%s\", \"ring\": %d, \"tokens\": %d, "
                    "\"global_sums\": %s, \"chunk\": %d, \"ms\": %.4f}\n",
                    dtype, k, properties::name_of(algo).c_str(), tuning.ring, tuning.tokens, tuning.global_sums ? "true" : "false",
                    tuning.chunk, ms);
        std::fflush(stdout);
      }
    }
    WARPSIM_CUDA(cudaFree(theta));
    WARPSIM_CUDA(cudaFree(phi));
  }
}


// A cooperative warp takes as many steps for a group of documents as its
// longest document has tokens (the master-index loop): their sum over the
// groups, and the most of one.
std::pair<long, int> warp_steps(const oracle::LdaCorpus& c) {
  long sum = 0;
  int most = 0;
  for (int q = 0; q * 32 < c.documents; ++q) {
    int steps = 0;
    for (int m = q * 32; m < std::min(c.documents, q * 32 + 32); ++m) steps = std::max(steps, c.offsets[m + 1] - c.offsets[m]);
    sum += steps;
    most = std::max(most, steps);
  }
  return {sum, most};
}

// How evenly the warps share a sweep (host arithmetic, no device): each
// group's sweeps of `tokens` master-index steps; the busiest of `warps`
// warps taking whole groups round robin (the seed's schedule), and taking
// contiguous runs of chunks of `chunk` sweeps (gpu/detail/lda_schedule.cuh).
void print_schedule(const oracle::LdaCorpus& c, int warps, int tokens, int chunk) {
  std::vector<long> round_robin(static_cast<std::size_t>(warps));
  std::vector<int> chunks;  // each chunk's sweeps, in group order
  long sweeps = 0;
  for (int q = 0; q * 32 < c.documents; ++q) {
    int steps = 0;
    for (int m = q * 32; m < std::min(c.documents, q * 32 + 32); ++m) steps = std::max(steps, c.offsets[m + 1] - c.offsets[m]);
    const int group = (steps + tokens - 1) / tokens;
    sweeps += group;
    round_robin[static_cast<std::size_t>(q % warps)] += group;
    for (int i = 0; i < group; i += chunk) chunks.push_back(std::min(chunk, group - i));
  }
  long busiest_chunks = 0;
  const long n = static_cast<long>(chunks.size());
  for (long w = 0; w < warps; ++w) {
    long sum = 0;
    for (long i = n * w / warps; i < n * (w + 1) / warps; ++i) sum += chunks[static_cast<std::size_t>(i)];
    busiest_chunks = std::max(busiest_chunks, sum);
  }
  std::printf("{\"schedule\": {\"warps\": %d, \"tokens\": %d, \"chunk\": %d, \"sweeps\": %ld, \"mean_sweeps_a_warp\": %.1f, "
              "\"busiest_whole_groups\": %ld, \"chunks\": %ld, \"busiest_chunks\": %ld}}\n",
              warps, tokens, chunk, sweeps, static_cast<double>(sweeps) / warps, *std::max_element(round_robin.begin(), round_robin.end()), n,
              busiest_chunks);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"LDA z-draw sweep on the device at the seed's sizes: every kernel's median time, as JSON lines"};
  bool sweep = false;
  app.add_flag("--sweep", sweep, "also time every tuning (gpu::LdaTuning) of the warp-cooperative kernels (the chunk alone below K = 256)");
  bool seed_grid = false;
  app.add_flag("--seed-grid", seed_grid, "seed 000's K grids (Fig. 11: 4 to 1024 by 4; Fig. 12: 480 to 544), baseline, transposed and add-subtract")
      ->excludes("--sweep");
  int only_k = 0;
  app.add_option("--k", only_k, "this K only")->check(CLI::Range(1, 1 << 16));
  int schedule_warps = 0;
  app.add_option("--schedule", schedule_warps,
                 "only print how evenly this many warps share a sweep of 2 tokens a step, whole groups or chunks of 2 (host arithmetic, no device)")
      ->check(CLI::Range(1, 1 << 20));
  CLI11_PARSE(app, argc, argv);
  try {
    const auto c = oracle::make_lda_corpus();
    if (schedule_warps) {
      print_schedule(c, schedule_warps, 2, 2);
      return 0;
    }
    const auto [steps, most] = warp_steps(c);
    std::printf("{\"corpus\": {\"documents\": %d, \"vocabulary\": %d, \"tokens\": %zu, \"longest\": %d, \"warp_steps\": %ld, "
                "\"longest_warp_steps\": %d}}\n",
                c.documents, c.vocabulary, c.words.size(), c.longest(), steps, most);
    int *offsets = nullptr, *words = nullptr, *z = nullptr;
    WARPSIM_CUDA(cudaMalloc(&offsets, c.offsets.size() * sizeof(int)));
    WARPSIM_CUDA(cudaMalloc(&words, c.words.size() * sizeof(int)));
    WARPSIM_CUDA(cudaMalloc(&z, c.words.size() * sizeof(int)));
    WARPSIM_CUDA(cudaMemcpy(offsets, c.offsets.data(), c.offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
    WARPSIM_CUDA(cudaMemcpy(words, c.words.data(), c.words.size() * sizeof(int), cudaMemcpyHostToDevice));
    run<float>(c, "fp32", offsets, words, z, sweep, seed_grid, only_k);
    run<double>(c, "fp64", offsets, words, z, sweep, seed_grid, only_k);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_lda_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
