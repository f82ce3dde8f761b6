// The GPU kernels against the oracle, bit for bit: the butterfly tables they
// build and the indices they draw, for the same uniforms, on every family of
// weights; plus a statistical check of the GPU's draws against the weights.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/matrix_sampler.hpp"
#include "oracle/butterfly_table.hpp"
#include "device_array.hpp"
#include "properties/gpu_kernels.hpp"
#include "properties/properties.hpp"
#include "require_gpu.hpp"
#include "stats/goodness_of_fit.hpp"

using namespace warpsim;

namespace {

using gpu_test::DeviceArray;

constexpr gpu::MatrixAlgorithm kAlgorithms[] = {gpu::MatrixAlgorithm::Baseline, gpu::MatrixAlgorithm::TransposedRegisters,
                                                gpu::MatrixAlgorithm::ButterflyStandard, gpu::MatrixAlgorithm::ButterflyAddSub};

// m rows of k weights of one family from properties/generators.hpp, deterministic in `seed`.
template <class T>
std::vector<T> weights(properties::WeightFamily f, int m, int k, std::uint64_t seed) {
  return properties::sample(properties::gen_matrix<T>(f, m, k, seed), seed).weights;
}

// Returns the number of rows where GPU and oracle differ (and reports the first few).
// `offset` elements before the matrix in device memory (1: not 16-byte aligned).
template <class T>
int compare(const std::vector<T>& w, int m, int k, std::uint64_t seed, gpu::MatrixAlgorithm algo, const gpu::MatrixTuning& tuning = {},
            int offset = 0) {
  std::vector<T> padded(static_cast<std::size_t>(offset), T(7));
  padded.insert(padded.end(), w.begin(), w.end());
  DeviceArray<T> dw(padded);
  DeviceArray<int> dz(static_cast<std::size_t>(m));
  gpu::MatrixSampler<T> sampler;
  sampler.set_tuning(tuning);
  sampler.draw(dw.p + offset, m, k, seed, algo, dz.p);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  const auto gpu_z = dz.download();
  const auto& name = properties::name_of(algo);
  const auto oracle_z = properties::find_algorithm(name).oracle.draw(properties::Matrix<T>{m, k, w}, seed);
  int bad = 0;
  for (int r = 0; r < m; ++r) {
    if (gpu_z[static_cast<std::size_t>(r)] != oracle_z[static_cast<std::size_t>(r)] && ++bad <= 3) {
      ADD_FAILURE() << name << " M " << m << " K " << k << " row " << r << ": GPU " << gpu_z[static_cast<std::size_t>(r)] << ", oracle "
                    << oracle_z[static_cast<std::size_t>(r)];
    }
  }
  return bad;
}

}  // namespace

TEST(GpuMatrix, DrawsEqualTheOracleUnderEveryTuningAndAlignment) {
  // Tunings change the launch (stages, warps per SM), unaligned matrices the
  // copy width: never a drawn index.
  WARPSIM_REQUIRE_GPU();
  const gpu::MatrixTuning tunings[] = {{1, 0, 4}, {2, 0, 0}, {2, 1, 2}, {1, 2, 8}};
  for (auto [m, k] : {std::pair{200, 32}, std::pair{97, 100}, std::pair{70, 128}, std::pair{33, 1024}, std::pair{40, 1100}}) {
    const auto wf = weights<float>(properties::WeightFamily::Uniform, m, k, 9);
    const auto wd = weights<double>(properties::WeightFamily::HugeRange, m, k, 10);
    for (const auto& t : tunings)
      for (int offset : {0, 1})
        for (auto algo : kAlgorithms) {
          EXPECT_EQ(compare(wf, m, k, 3000 + static_cast<std::uint64_t>(k), algo, t, offset), 0)
              << "fp32 stages " << t.stages << " cap " << t.max_warps_per_sm << " ring " << t.ring << " offset " << offset;
          EXPECT_EQ(compare(wd, m, k, 4000 + static_cast<std::uint64_t>(k), algo, t, offset), 0)
              << "fp64 stages " << t.stages << " cap " << t.max_warps_per_sm << " ring " << t.ring << " offset " << offset;
        }
  }
}

TEST(GpuMatrix, ButterflyTablesEqualTheOraclesBitForBit) {
  WARPSIM_REQUIRE_GPU();
  const int m = 70, k = 45;  // 3 warps (the last partial), a remnant of 13, one block
  for (bool addsub : {false, true}) {
    const auto w = weights<float>(properties::WeightFamily::Uniform, m, k, addsub ? 6 : 7);
    DeviceArray<float> dw(w);
    const int warps = (m + 31) / 32;
    DeviceArray<float> dt(static_cast<std::size_t>(warps) * 1024);
    gpu::MatrixSampler<float> sampler;
    sampler.butterfly_tables(dw.p, m, k, addsub, dt.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    const auto tables = dt.download();
    for (int q = 0; q < warps; ++q) {
      sim::RegArray<float> a("a", 32);
      for (int reg = 0; reg < 32; ++reg)
        for (int lane = 0; lane < 32; ++lane) {
          const int row = std::min(q * 32 + reg, m - 1);
          a[reg][lane] = w[static_cast<std::size_t>(row * k + k % 32 + lane)];
        }
      sim::Warp warp({.width = 32});
      oracle::butterfly_build(warp, a, addsub ? oracle::ButterflyVariant::AddSub : oracle::ButterflyVariant::Standard);
      for (int reg = 0; reg < 32; ++reg)
        for (int lane = 0; lane < 32; ++lane) {
          const float g = tables[static_cast<std::size_t>((q * 32 + reg) * 32 + lane)];
          ASSERT_EQ(std::memcmp(&g, &a[reg][lane], sizeof g), 0) << "warp " << q << " reg " << reg << " lane " << lane;
        }
    }
  }
}

TEST(GpuMatrix, DrawsFollowTheWeightsChiSquare) {
  // 2^18 rows, every row the same K = 100 weights: the histogram of the GPU's
  // draws must fit the weights (alpha = 0.001, fixed seed: deterministic; a
  // correct sampler fails with probability 0.001 over seeds).
  WARPSIM_REQUIRE_GPU();
  const int m = 1 << 18, k = 100;
  std::vector<float> row(k);
  std::mt19937_64 rng(8);
  for (auto& x : row) x = static_cast<float>(rng() % 50);
  row[3] = 0;
  std::vector<float> w;
  w.reserve(static_cast<std::size_t>(m) * k);
  for (int r = 0; r < m; ++r) w.insert(w.end(), row.begin(), row.end());
  double total = 0;
  for (float x : row) total += x;
  std::vector<double> p(k);
  for (int i = 0; i < k; ++i) p[static_cast<std::size_t>(i)] = row[static_cast<std::size_t>(i)] / total;
  DeviceArray<float> dw(w);
  DeviceArray<int> dz(static_cast<std::size_t>(m));
  gpu::MatrixSampler<float> sampler;
  for (auto algo : kAlgorithms) {
    sampler.draw(dw.p, m, k, 77, algo, dz.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    std::vector<double> counts(k, 0.0);
    for (int z : dz.download()) counts[static_cast<std::size_t>(z)] += 1;
    stats::GofOptions o;
    o.alpha = 0.001;
    const auto r = stats::chi_square_test(counts, p, o);
    const auto& name = properties::name_of(algo);
    EXPECT_FALSE(r.reject) << name << ": p " << r.p_value;
    EXPECT_EQ(counts[3], 0) << "a zero weight is never drawn";
    RecordProperty(name + "_p_value", std::to_string(r.p_value));
    RecordProperty(name + "_detectable_tv", std::to_string(*r.detectable.total_variation));
    std::printf("%s: chi-square p = %.4f; a pass rules out total variation >= %.5f (power 0.9)\n", name.c_str(), r.p_value,
                *r.detectable.total_variation);
  }
}

TEST(GpuMatrix, RejectsBadArgumentsWithAMessage) {
  WARPSIM_REQUIRE_GPU();
  gpu::MatrixSampler<float> sampler;
  DeviceArray<int> dz(4);
  EXPECT_THROW(sampler.draw(nullptr, 4, 4, 1, gpu::MatrixAlgorithm::Baseline, dz.p), std::invalid_argument);
  DeviceArray<float> dw(std::vector<float>(16, 1.0f));
  EXPECT_THROW(sampler.draw(dw.p, 0, 4, 1, gpu::MatrixAlgorithm::Baseline, dz.p), std::invalid_argument);
  EXPECT_THROW(sampler.butterfly_tables(dw.p, 4, 4, false, dw.p), std::invalid_argument);
  EXPECT_THROW(sampler.set_tuning({3, 0, 4}), std::invalid_argument);
  EXPECT_THROW(sampler.set_tuning({1, -1, 4}), std::invalid_argument);
  EXPECT_THROW(sampler.set_tuning({1, 0, 3}), std::invalid_argument);
}
