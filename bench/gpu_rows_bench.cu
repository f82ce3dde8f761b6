// The (M, K) plane of issue 16 on the device: the sum-tree draw
// (gpu/sum_tree_sampler.hpp) at the issue's grid -- rows of 32K to 16M
// weights, batches of 1 to 4,096 -- and at M x K = 2^28 with K = 32, 128,
// 1,024 (with seed 000's butterfly add-subtract beside it there), fp32 and
// fp64, one draw a row and S draws a row. For each point: the median of
// >= 15 timed runs after warm-up (CUDA events), the read floor (the
// matrix's bytes over the copy bandwidth measured in the same run), the
// read + write floor (those bytes and the M x S 4-byte indices written: the
// bytes a draw must move), an empty kernel's launch measured the same way,
// and the target: 1.2 x the read + write floor where it is above 50 us,
// else 2 x (empty launch + that floor) (docs/perf/sum-tree.md, "Definitions": at
// fp32 K = 4 the indices are a quarter of the bytes read, and no draw that
// writes them comes within 1.2x of the read alone). One JSON object a line;
// bench/torch_rows_baselines.py measures PyTorch's methods on the same grid.
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/cuda_timing.cuh"
#include "gpu/cuda_check.hpp"
#include "gpu/detail/dependent_launch.cuh"
#include "gpu/matrix_sampler.hpp"
#include "gpu/sum_tree_sampler.hpp"

using namespace warpsim;

namespace {

__global__ void empty_kernel() {}

struct Point {
  int m;
  std::int64_t k;
  int draws;
};

// The forced layouts a run times beside the plan's (--forced): by name.
struct Forced {
  bool block = true, segmented = true, lanes = true, thread = true, warp = true;
  bool takes(gpu::SumTreePlan::Layout layout) const {
    using L = gpu::SumTreePlan::Layout;
    switch (layout) {
      case L::BlockPerRow: return block;
      case L::Segmented: return segmented;
      case L::LanesPerRow: return lanes;
      case L::ThreadPerRow: return thread;
      case L::WarpPerRow: return warp;
      default: return true;
    }
  }
};

template <class T>
void run(const char* dtype, const std::vector<Point>& grid, double bandwidth_gbs, double empty_ms, bool seed_kernels, const Forced& forced_only,
         const std::vector<int>& row_blocks) {
  std::size_t most = 0;
  for (const auto& p : grid) most = std::max(most, static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.k));
  bench::DeviceBuffer<T> w(most);
  bench::fill_uniform<T><<<4096, 256>>>(w.p, most, 42, 1);
  WARPSIM_CUDA(cudaGetLastError());
  WARPSIM_CUDA(cudaDeviceSynchronize());
  gpu::SumTreeSampler<T> sampler;
  gpu::MatrixSampler<T> seed000;
  int sms = 0;
  WARPSIM_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (const auto& p : grid) {
    const double bytes = static_cast<double>(p.m) * static_cast<double>(p.k) * sizeof(T);
    const double floor_ms = bytes / (bandwidth_gbs * 1e6);
    const double written = 4.0 * static_cast<double>(p.m) * static_cast<double>(p.draws);  // (the draws' indices)
    const double rw_floor_ms = (bytes + written) / (bandwidth_gbs * 1e6);
    const double target_ms = rw_floor_ms > 0.05 ? 1.2 * rw_floor_ms : 2 * (empty_ms + rw_floor_ms);
    bench::DeviceBuffer<int> out(static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.draws));
    std::uint64_t seed = 1;
    const double ms = bench::median_ms([&] { sampler.draw(w.p, p.m, p.k, seed++, p.draws, out.p); }, 15, 3);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    std::printf(
        "{\"dtype\": \"%s\", \"what\": \"sum-tree\", \"M\": %d, \"K\": %lld, \"S\": %d, \"plan\": \"%s\", \"ms\": %.4f, \"floor_ms\": %.4f, "
        "\"x_floor\": %.2f, \"rw_floor_ms\": %.6f, \"target_ms\": %.6f}\n",
        dtype, p.m, static_cast<long long>(p.k), p.draws, gpu::SumTreeSampler<T>::plan(p.m, p.k, {}, p.draws).describe().c_str(), ms, floor_ms, ms / floor_ms,
        rw_floor_ms, target_ms);
    std::fflush(stdout);
    using L = gpu::SumTreePlan::Layout;
    using P = gpu::SumTreePlan::SecondPass;
    const std::int64_t g = static_cast<std::int64_t>(16 / sizeof(T)) * 1024;  // a segment's weights
    // Every layout that holds K: a block a row with rows kept in shared
    // memory and not, the segmented one (its row's last warp drawing, or
    // a second kernel, or a row's cluster), each with draws walked a lane
    // a draw and by the warp (the second kernel walking with the plan's
    // blocks a row, and with one where S > 1; or a warp a row), and the
    // short rows' layouts.
    std::vector<gpu::SumTreePlan> layouts = {{L::BlockPerRow, 0, 1, P::Auto, 0}, {L::BlockPerRow, 0, 1, P::Auto, 1}, {L::BlockPerRow, 0, 0, P::Auto, 0},
                                        {L::BlockPerRow, 0, 0, P::Auto, 1}, {L::Segmented, 0, -1, P::LastWarp},      {L::Segmented, 0, -1, P::LastWarp, 0}, {L::Segmented, 0, -1, P::RowPass, 0},
                                        {L::Segmented, 0, -1, P::RowPass, 1},   {L::Segmented, 0, -1, P::RowPass, 1, 1}, {L::Segmented, 0, -1, P::WarpRowPass},
                                        {L::Segmented, 0, -1, P::ResidentPass},      {L::Segmented, 1, -1, P::ResidentPass},      {L::Segmented, 0, -1, P::ClusterPass},
                                        {L::LanesPerRow},
                                        {L::ThreadPerRow},             {L::WarpPerRow}};
    // Many draws a row: the second kernel a lane a draw, a round of 256
    // draws a block (each of its 8 warps one round of 32).
    if (p.draws >= 512) layouts.insert(layouts.begin() + 13, {L::Segmented, 0, -1, P::RowPass, 0, (p.draws + 255) / 256});  // (before the short rows' layouts)
    for (const auto& forced : layouts) {
      const auto layout = forced.layout;
      if (!forced_only.takes(layout)) continue;
      if (p.k > 32 * g && layout != L::Segmented) continue;
      const bool long_rows = layout == L::BlockPerRow || layout == L::Segmented;
      // (a block a row or a warp a segment at short rows: only with S draws
      // a row; a warp a segment, whose second kernel spreads a row's draws
      // over blocks, only where there are more draws than rows)
      if (long_rows && p.k <= gpu::SumTreeSampler<T>::lanes_per_row_max_k() &&
          (p.draws == 1 || (layout == L::Segmented && p.draws <= p.m)))
        continue;
      if (layout == L::BlockPerRow && forced.keep_rows == 1 && p.k > 8 * g) continue;
      if (layout == L::Segmented && forced.second_pass == P::LastWarp && p.k > 32 * g) continue;
      if (layout == L::Segmented && forced.second_pass == P::LastWarp && forced.warp_walk == 0 && p.draws > 4) continue;  // (the last warp walks at most 4)
      if (layout == L::Segmented && forced.second_pass == P::WarpRowPass && (p.k > 256 * g || p.draws > 4)) continue;  // (a warp a row's rows and draws)
      // (the resident pass: up to 512 segments and 64 draws, its grid at most 4 warps a multiprocessor here)
      if (layout == L::Segmented && forced.second_pass == P::ResidentPass &&
          (p.k > 512 * g || p.draws > 64 || static_cast<std::int64_t>(p.m) * ((p.k + g - 1) / g) > 4LL * sms))
        continue;
      // (its one-warp blocks asked: only where its own choice is not one warp already)
      if (layout == L::Segmented && forced.second_pass == P::ResidentPass && forced.warps_per_block == 1 &&
          gpu::SumTreeSampler<T>::plan(p.m, p.k, {L::Segmented, 0, -1, P::ResidentPass}, p.draws).warps_per_block == 1)
        continue;
      if (layout == L::Segmented && forced.second_pass == P::ClusterPass && p.k > 64 * g) continue;  // (a row's cluster: up to 64 segments)
      if (forced.row_blocks == 1 && p.draws == 1) continue;  // (the plan's already)
      if (!long_rows && p.k > g) break;
      if (layout == L::LanesPerRow && p.k > gpu::SumTreeSampler<T>::lanes_per_row_max_k()) continue;
      if (layout == L::ThreadPerRow && p.k > gpu::SumTreeSampler<T>::thread_per_row_max_k()) continue;
      const double f = bench::median_ms([&] { sampler.draw(w.p, p.m, p.k, seed++, p.draws, out.p, nullptr, forced); }, 15, 3);
      WARPSIM_CUDA(cudaDeviceSynchronize());
      std::printf("{\"dtype\": \"%s\", \"what\": \"sum-tree forced\", \"M\": %d, \"K\": %lld, \"S\": %d, \"plan\": \"%s\", \"ms\": %.4f, \"x_floor\": %.2f}\n",
                  dtype, p.m, static_cast<long long>(p.k), p.draws, gpu::SumTreeSampler<T>::plan(p.m, p.k, forced, p.draws).describe().c_str(), f,
                  f / floor_ms);
      std::fflush(stdout);
    }
    // --row-blocks: a block a row (rows not kept, a lane a draw) with each
    // of these blocks a row, where it holds the row and has that many draws.
    for (const int rb : row_blocks) {
      if (p.draws < 2 || rb > p.draws || p.k > 32 * g) continue;
      const gpu::SumTreePlan forced{L::BlockPerRow, 0, 0, P::Auto, 0, rb};
      const double f = bench::median_ms([&] { sampler.draw(w.p, p.m, p.k, seed++, p.draws, out.p, nullptr, forced); }, 15, 3);
      WARPSIM_CUDA(cudaDeviceSynchronize());
      std::printf("{\"dtype\": \"%s\", \"what\": \"sum-tree row-blocks\", \"M\": %d, \"K\": %lld, \"S\": %d, \"row_blocks\": %d, "
                  "\"plan\": \"%s\", \"ms\": %.4f, \"x_floor\": %.2f}\n",
                  dtype, p.m, static_cast<long long>(p.k), p.draws, rb, gpu::SumTreeSampler<T>::plan(p.m, p.k, forced, p.draws).describe().c_str(), f,
                  f / floor_ms);
      std::fflush(stdout);
    }
    if (seed_kernels && p.draws == 1 && p.k <= 1024) {
      const double b = bench::median_ms(
          [&] { seed000.draw(w.p, p.m, static_cast<int>(p.k), seed++, gpu::MatrixAlgorithm::ButterflyAddSub, out.p); }, 15, 3);
      WARPSIM_CUDA(cudaDeviceSynchronize());
      std::printf(
          "{\"dtype\": \"%s\", \"what\": \"butterfly-addsub\", \"M\": %d, \"K\": %lld, \"S\": 1, \"ms\": %.4f, \"floor_ms\": %.4f, \"x_floor\": "
          "%.2f}\n",
          dtype, p.m, static_cast<long long>(p.k), b, floor_ms, b / floor_ms);
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The sum-tree draw across the (M, K) plane (issue 16)"};
  bool only_fp32 = false, only_fp64 = false;
  app.add_flag("--fp32", only_fp32, "fp32 only");
  app.add_flag("--fp64", only_fp64, "fp64 only")->excludes("--fp32");
  std::vector<std::string> only;
  app.add_option("--point", only, "only these points, M:K:S (repeatable; e.g. for a profiler)");
  std::vector<std::string> forced_names;
  app.add_option("--forced", forced_names, "only these forced layouts beside the plan's (block, segmented, lanes, thread, warp; none: the plan's alone)")
      ->check(CLI::IsMember({"block", "segmented", "lanes", "thread", "warp", "none"}))
      ->delimiter(',');
  std::vector<int> row_blocks;
  app.add_option("--row-blocks", row_blocks, "also a block a row with each of these blocks a row (S draws only; e.g. 1,2,4,99)")
      ->check(CLI::PositiveNumber)
      ->delimiter(',');
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // (prints the help, or the error)
    return code == 0 ? 0 : 2;      // bad flags: 2, as the CLI's
  }
  Forced forced_only;
  if (!forced_names.empty()) {
    const auto has = [&](const char* name) { return std::find(forced_names.begin(), forced_names.end(), name) != forced_names.end(); };
    forced_only = {has("block"), has("segmented"), has("lanes"), has("thread"), has("warp")};
  }
  std::vector<Point> picked;
  for (const auto& text : only) {
    Point p{};
    long long k = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "%d:%lld:%d%c", &p.m, &k, &p.draws, &tail) != 3 || p.m < 1 || k < 1 || p.draws < 1) {
      std::fprintf(stderr, "bench_gpu_rows: --point wants M:K:S with each >= 1 (got '%s')\n", text.c_str());
      return 2;
    }
    p.k = k;
    picked.push_back(p);
  }
  try {
    const double bandwidth = bench::copy_bandwidth_gbs();
    const double empty_ms = bench::median_ms(
        [] {
          empty_kernel<<<1, 32>>>();
          WARPSIM_CUDA(cudaGetLastError());
        },
        51, 5);
    // The same empty kernel by the two other launches the sum tree makes
    // (beside the targets' plain launch, which they do not change): a
    // cooperative grid of 32 blocks of 4 warps (the resident pass at fp32
    // K = 131,072) and a cluster of 8 blocks of 8 warps (a row's cluster).
    const double cooperative_ms = bench::median_ms(
        [] { gpu::detail::launch_cooperative(empty_kernel, dim3(32), dim3(128), 0, nullptr); }, 51, 5);
    const double cluster_ms = bench::median_ms(
        [] { gpu::detail::launch_clustered(8, empty_kernel, dim3(8), dim3(256), 0, nullptr); }, 51, 5);
    cudaDeviceProp prop{};
    WARPSIM_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("{\"device\": \"%s\", \"copy_bandwidth_GBps\": %.0f, \"empty_launch_ms\": %.4f, \"cooperative_launch_ms\": %.4f, "
                "\"cluster_launch_ms\": %.4f}\n",
                prop.name, bandwidth, empty_ms, cooperative_ms, cluster_ms);
    // The issue's grid, S draws a row at three of its points, M x K = 2^28
    // at short rows, and series for the picture (M = 1, 64, 1,024 against K).
    std::vector<Point> grid = {{1, 131072, 1},   {64, 131072, 1},   {256, 131072, 1}, {1024, 131072, 1}, {4096, 32768, 1},
                               {32, 1048576, 1}, {1, 16777216, 1},  {1, 4096, 1},     {64, 4096, 1},     {1, 131072, 64},
                               {256, 131072, 64}, {1024, 32768, 16}, {1 << 23, 32, 1}, {1 << 21, 128, 1}, {1 << 20, 256, 1},
                               {1 << 19, 512, 1}, {1 << 18, 1024, 1}, {1 << 16, 4096, 1}, {1 << 26, 4, 1},  {1 << 24, 16, 1},
                               {1 << 22, 64, 1},  {1 << 20, 256, 8}, {1 << 18, 1000, 1}};
    for (int m : {1, 64, 1024})
      for (std::int64_t k : {4096LL, 32768LL, 131072LL, 1048576LL}) {
        bool have = false;
        for (const auto& p : grid) have |= p.m == m && p.k == k && p.draws == 1;
        if (!have) grid.push_back({m, k, 1});
      }
    if (!picked.empty()) grid = picked;
    if (!only_fp64) run<float>("fp32", grid, bandwidth, empty_ms, true, forced_only, row_blocks);
    if (!only_fp32) run<double>("fp64", grid, bandwidth, empty_ms, true, forced_only, row_blocks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_rows: %s\n", e.what());
    return 2;
  }
  return 0;
}
