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
// Gamma variates (gpu/gamma.hpp, Marsaglia-Tsang): 10^8 draws of shape 0.3,
// 2.5 and 30 (fp32 out), uncached and pre-cached, with the same counted
// run; and one whole uncollapsed LDA Gibbs iteration on the seed's Sec. 7
// corpus size (43,556 documents, 37,286 words, 3.07M tokens), K = 1,024,
// fp32: the z draw (butterfly add-subtract) and theta and phi.
// Median of 10 runs between CUDA events after 2 warm-ups; the floor of a
// sampling run writes 4 bytes a draw (reading the structure once) at the
// copy bandwidth measured in the same run. JSON lines.
//   ./bench_gpu_rejection [--quick]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_timing.cuh"
#include "gpu/alias_table.hpp"
#include "gpu/bringmann_larsen.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gamma.hpp"
#include "gpu/lda_sampler.hpp"
#include "oracle/lda_corpus.hpp"
#include "rejection_model.hpp"

namespace {

using namespace warpsim;
using bench::DeviceBuffer;

enum class Weights { power_law, uniform, equal };

const char* name(Weights w) {
  return w == Weights::power_law ? "power law 1, shuffled" : w == Weights::uniform ? "uniform" : "equal";
}

void fill(float* w, std::size_t n, Weights kind) {
  if (kind == Weights::power_law) bench::fill_power_law<float><<<1024, 256>>>(w, n);
  else if (kind == Weights::uniform) bench::fill_uniform<float><<<1024, 256>>>(w, n, 1, 0);
  else bench::fill_constant<float><<<1024, 256>>>(w, n, 1.0f);
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
  DeviceBuffer<gpu::RejectionCounts> counts(1);
  const double floor_ms = (static_cast<double>(draws) * 4 + static_cast<double>(n) * 12) / (bw * 1e6);
  for (const bool pre : {false, true}) {
    std::uint64_t seed = 1;
    const double ms = bench::median_ms([&] { gpu::bringmann_larsen_sample(words.p, thresholds.p, info, seed++, 0, draws, out.p, pre); }, reps, 2);
    WARPSIM_CUDA(cudaMemset(counts.p, 0, sizeof(gpu::RejectionCounts)));
    gpu::bringmann_larsen_sample(words.p, thresholds.p, info, 99, 0, draws, out.p, pre, counts.p);
    gpu::RejectionCounts c;
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

template <class T>
void gamma_run(double shape, std::uint64_t n, int reps, bool all_loops) {
  DeviceBuffer<T> s(n), out(n);
  bench::fill_constant<T><<<1024, 256>>>(s.p, n, static_cast<T>(shape));
  WARPSIM_CUDA_LAUNCH("fill shapes");
  DeviceBuffer<gpu::RejectionCounts> counts(1);
  for (const auto loop : {gpu::GammaLoop::lane, gpu::GammaLoop::warp_uncached, gpu::GammaLoop::warp_precached}) {
    if (loop != gpu::GammaLoop::lane && !all_loops) continue;
    const bool pre = loop == gpu::GammaLoop::warp_precached;
    std::uint64_t seed = 1;
    const double ms = bench::median_ms([&] { gpu::gamma_sample(s.p, n, seed++, 0, out.p, loop); }, reps, 2);
    WARPSIM_CUDA(cudaMemset(counts.p, 0, sizeof(gpu::RejectionCounts)));
    gpu::gamma_sample(s.p, n, 99, 0, out.p, loop, counts.p);
    gpu::RejectionCounts c;
    WARPSIM_CUDA(cudaMemcpy(&c, counts.p, sizeof c, cudaMemcpyDeviceToHost));
    const double p = 1 / c.attempts_per_draw();
    std::printf(
        "{\"what\": \"gamma\", \"method\": \"marsaglia-tsang, %s\", \"dtype\": \"%s\", \"shape\": %g, \"draws\": %llu, \"ms\": %.4f, "
        "\"gsamples_per_s\": %.2f, \"acceptance\": %.6f, \"iterations_per_call\": %.4f, \"model_iterations_per_call\": %.4f}\n",
        loop == gpu::GammaLoop::lane ? "lanes" : pre ? "pre-cached" : "uncached", sizeof(T) == 4 ? "f32" : "f64", shape,
        static_cast<unsigned long long>(n), ms, static_cast<double>(n) / (ms * 1e6), p, c.iterations_per_call(),
        loop == gpu::GammaLoop::lane ? 0.0 : bench::predicted_warp_iterations(pre, p));
    std::fflush(stdout);
  }
}

// One uncollapsed Gibbs iteration of seed 000's LDA at the seed's corpus
// size, in T: the z draw (gpu::LdaSampler, butterfly add-subtract, default
// tuning), then theta and phi given z (gpu::LdaTopicSampler: counts, gammas,
// phi's columns normalised), each timed alone and the two end to end as a
// chain runs them (each iteration's z from the theta and phi before it).
template <class T>
void lda_iteration(int k, int reps) {
  const auto corpus = oracle::make_lda_corpus({});
  const std::size_t nt = static_cast<std::size_t>(corpus.documents) * k, np = static_cast<std::size_t>(corpus.vocabulary) * k;
  DeviceBuffer<T> theta(nt), phi(np);
  bench::fill_uniform<T><<<2048, 256>>>(theta.p, nt, 5, 2);  // as bench_gpu_lda
  bench::fill_uniform<T><<<2048, 256>>>(phi.p, np, 5, 3);
  WARPSIM_CUDA_LAUNCH("fill theta and phi");
  auto up = [](const std::vector<int>& v) {
    auto b = std::make_unique<DeviceBuffer<int>>(v.size());
    WARPSIM_CUDA(cudaMemcpy(b->p, v.data(), v.size() * sizeof(int), cudaMemcpyHostToDevice));
    return b;
  };
  auto offsets = up(corpus.offsets), words = up(corpus.words);
  DeviceBuffer<int> z(corpus.words.size());
  gpu::LdaSampler<T> zs;
  gpu::LdaTopicSampler<T> topics;
  auto draw_z = [&] { zs.draw(theta.p, phi.p, offsets->p, words->p, corpus.documents, k, 1, gpu::MatrixAlgorithm::ButterflyAddSub, z.p); };
  const double z_ms = bench::median_ms(draw_z, reps, 2);
  DeviceBuffer<gpu::RejectionCounts> counts(1);
  std::uint64_t seed = 2;
  const double ms = bench::median_ms(
      [&] { topics.draw(z.p, offsets->p, words->p, corpus.documents, corpus.vocabulary, k, 0.1, 0.01, seed++, theta.p, phi.p); }, reps, 2);
  const double iteration_ms = bench::median_ms(
      [&] {
        draw_z();
        topics.draw(z.p, offsets->p, words->p, corpus.documents, corpus.vocabulary, k, 0.1, 0.01, seed++, theta.p, phi.p);
      },
      reps, 2);
  WARPSIM_CUDA(cudaMemset(counts.p, 0, sizeof(gpu::RejectionCounts)));
  topics.draw(z.p, offsets->p, words->p, corpus.documents, corpus.vocabulary, k, 0.1, 0.01, 99, theta.p, phi.p, gpu::GammaLoop::lane, counts.p);
  gpu::RejectionCounts c;
  WARPSIM_CUDA(cudaMemcpy(&c, counts.p, sizeof c, cudaMemcpyDeviceToHost));
  std::printf(
      "{\"what\": \"lda gibbs iteration\", \"documents\": %d, \"vocabulary\": %d, \"tokens\": %zu, \"k\": %d, \"dtype\": \"%s\", "
      "\"alpha\": 0.1, \"beta\": 0.01, \"z_ms\": %.4f, \"theta_phi_ms\": %.4f, \"iteration_ms\": %.4f, \"gammas\": %llu, "
      "\"acceptance\": %.6f}\n",
      corpus.documents, corpus.vocabulary, corpus.words.size(), k, sizeof(T) == 4 ? "f32" : "f64", z_ms, ms, iteration_ms,
      static_cast<unsigned long long>(c.draws), 1 / c.attempts_per_draw());
  std::fflush(stdout);
}

// The corpus for bench/torch_lda_gibbs.py: offsets.i32 and words.i32, raw
// little-endian int32.
void dump_corpus(const std::string& dir) {
  const auto corpus = oracle::make_lda_corpus({});
  auto write = [&](const std::string& name, const std::vector<int>& v) {
    std::FILE* f = std::fopen((dir + "/" + name).c_str(), "wb");
    if (!f || std::fwrite(v.data(), sizeof(int), v.size(), f) != v.size()) throw std::runtime_error("cannot write " + dir + "/" + name);
    std::fclose(f);
  };
  write("offsets.i32", corpus.offsets);
  write("words.i32", corpus.words);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("rejection sampling on the device: Bringmann-Larsen uncached and pre-cached, beside the alias table");
  bool quick = false;
  app.add_flag("--quick", quick, "10^6 and 10^7 only, 10^8 draws");
  bool gamma_only = false;
  app.add_flag("--gamma", gamma_only, "the gamma variates and the LDA iteration only");
  bool grid = false;
  app.add_flag("--gamma-grid", grid, "gamma at shapes 0.01 to 10^4 in fp32 and fp64 (the lane loop), then the LDA iteration in both");
  bool no_lda = false;
  app.add_flag("--no-lda", no_lda, "with --gamma-grid: the gamma variates only, not the LDA iteration");
  bool profile_lda = false;
  app.add_flag("--profile-lda", profile_lda, "one LDA theta and phi draw in fp32, then fp64, after a warm-up (for ncu), and exit");
  double profile_shape = 0;
  app.add_option("--profile-shape", profile_shape, "one gamma_sample call of 10^8 at this shape in fp32, then fp64 (for ncu), and exit");
  std::string dump;
  app.add_option("--dump-corpus", dump, "write the LDA corpus (offsets.i32, words.i32) to this folder and exit");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!dump.empty()) {
      dump_corpus(dump);
      return 0;
    }
    if (profile_lda) {
      lda_iteration<float>(1024, 1);
      lda_iteration<double>(1024, 1);
      return 0;
    }
    if (profile_shape > 0) {
      gamma_run<float>(profile_shape, 100'000'000, 1, false);
      gamma_run<double>(profile_shape, 100'000'000, 1, false);
      return 0;
    }
    const double bw = bench::copy_bandwidth_gbs();
    cudaDeviceProp prop{};
    WARPSIM_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("{\"what\": \"device\", \"name\": \"%s\", \"copy_bandwidth_gbs\": %.0f}\n", prop.name, bw);
    if (grid) {
      for (const double shape : {0.01, 0.1, 0.3, 1.0, 2.5, 30.0, 1e4}) {
        gamma_run<float>(shape, 100'000'000, 10, false);
        gamma_run<double>(shape, 100'000'000, 10, false);
      }
      if (no_lda) return 0;
      lda_iteration<float>(1024, 10);
      lda_iteration<double>(1024, 10);
      return 0;
    }
    std::vector<std::size_t> sizes = {1'000'000, 10'000'000};
    if (!quick) sizes.push_back(100'000'000);
    const std::uint64_t draws = quick ? 100'000'000 : 1'000'000'000;
    if (!gamma_only) {
      for (const std::size_t n : sizes)
        for (const Weights kind : {Weights::power_law, Weights::uniform, Weights::equal}) run(n, kind, draws, bw, 10);
    }
    for (const double shape : {0.3, 2.5, 30.0}) gamma_run<float>(shape, quick ? 10'000'000 : 100'000'000, 10, true);
    lda_iteration<float>(1024, 5);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_rejection: %s\n", e.what());
    return 2;
  }
  return 0;
}
