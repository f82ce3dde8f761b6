// The token sampler (gpu/token_sampler.hpp) against the token law's
// definition (oracle/token/token_law.hpp), draw for draw: fp32, bf16 and
// fp16 logits; rows from 1 logit to 2^20 (a block a row, clusters of 2-8
// blocks, rows past the cluster's shared memory); per-row temperatures,
// truncations, seeds and offsets; ties at every threshold, one token holding
// all mass, all logits equal, -inf logits, greedy and extreme temperatures;
// NaN, +inf and refused parameters giving -1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "device_array.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/token_sampler.hpp"
#include "oracle/token/token_law.hpp"
#include "require_gpu.hpp"

using namespace warpsim;
using gpu_test::DeviceArray;
namespace tok = oracle::token;

namespace {

enum class Family { Normal, Ties, OneHolds, AllEqual, MinusInf, Wide };

struct Row {
  tok::Sampling s;
  std::uint64_t seed = 0, offset = 0;
};

// float logits of a family (each exactly representable in `type`).
std::vector<float> logits_of(Family f, std::int64_t k, gpu::LogitType type, std::mt19937_64& g) {
  std::vector<float> x(static_cast<std::size_t>(k));
  std::normal_distribution<float> normal(0, 3);
  for (auto& v : x) {
    switch (f) {
      case Family::Normal: v = normal(g); break;
      case Family::Ties: v = std::round(normal(g) * 2) / 2; break;  // few values: ties at every threshold
      case Family::OneHolds: v = 0; break;
      case Family::AllEqual: v = 1.25f; break;
      case Family::MinusInf: v = g() % 3 ? -INFINITY : normal(g); break;
      case Family::Wide: v = normal(g) * 15; break;
    }
  }
  if (f == Family::OneHolds) x[static_cast<std::size_t>(g() % static_cast<std::uint64_t>(k))] = 120;
  if (f == Family::MinusInf) x[static_cast<std::size_t>(g() % static_cast<std::uint64_t>(k))] = 0.5f;
  // to the type's values (round to nearest even through the 16-bit patterns)
  for (auto& v : x) {
    if (type == gpu::LogitType::BF16) {
      std::uint32_t b;
      std::memcpy(&b, &v, 4);
      if (std::isfinite(v)) b = (b + 0x7fff + ((b >> 16) & 1)) & 0xffff0000u;
      std::memcpy(&v, &b, 4);
    } else if (type == gpu::LogitType::F16 && std::isfinite(v)) {
      v = std::max(-60000.0f, std::min(60000.0f, v));
      if (std::fabs(v) < 0x1p-14f) v = std::ldexp(std::round(std::ldexp(v, 24)), -24);  // subnormal: multiples of 2^-24
      else v = std::ldexp(std::round(std::ldexp(v, 10 - std::ilogb(v))), std::ilogb(v) - 10);
    }
  }
  return x;
}

// Runs the sampler on M rows of K logits and compares every draw with the
// definition's; returns the mismatches (the first few printed).
int compare(const std::vector<float>& x, int m, std::int64_t k, gpu::LogitType type, const std::vector<Row>& rows, int draws) {
  std::vector<float> temp, top_p, min_p;
  std::vector<int> top_k;
  std::vector<std::uint64_t> seed, offset;
  for (const auto& r : rows) {
    temp.push_back(r.s.temperature), top_p.push_back(r.s.top_p), min_p.push_back(r.s.min_p);
    top_k.push_back(static_cast<int>(r.s.top_k)), seed.push_back(r.seed), offset.push_back(r.offset);
  }
  DeviceArray<float> dt(temp), dp(top_p), dmp(min_p);
  DeviceArray<int> dk(top_k);
  DeviceArray<std::uint64_t> ds(seed), doff(offset);
  gpu::TokenParams params;
  params.temperature = dt.p, params.top_k = dk.p, params.top_p = dp.p, params.min_p = dmp.p, params.seed = ds.p, params.offset = doff.p;
  DeviceArray<int> out(static_cast<std::size_t>(m) * static_cast<std::size_t>(draws));
  gpu::TokenSampler sampler;
  std::vector<int> got;
  if (type == gpu::LogitType::F32) {
    DeviceArray<float> dx(x);
    sampler.sample(dx.p, type, m, k, params, draws, out.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    got = out.download();
  } else {
    std::vector<std::uint16_t> bits(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) bits[i] = tok::logit_bits(x[i], type == gpu::LogitType::BF16 ? tok::LogitType::BF16 : tok::LogitType::F16);
    DeviceArray<std::uint16_t> dx(bits);
    sampler.sample(dx.p, type, m, k, params, draws, out.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    got = out.download();
  }
  int bad = 0;
  for (int r = 0; r < m; ++r) {
    const std::span<const float> row(x.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(k), static_cast<std::size_t>(k));
    std::vector<std::int64_t> want;
    try {
      want = tok::draw(row, rows[static_cast<std::size_t>(r)].s, rows[static_cast<std::size_t>(r)].seed,
                       rows[static_cast<std::size_t>(r)].offset, draws);
    } catch (const std::invalid_argument&) {
      want.assign(static_cast<std::size_t>(draws), -1);
    }
    for (int j = 0; j < draws; ++j) {
      const int g = got[static_cast<std::size_t>(r) * static_cast<std::size_t>(draws) + static_cast<std::size_t>(j)];
      if (g != want[static_cast<std::size_t>(j)] && ++bad <= 5)
        ADD_FAILURE() << "K " << k << " row " << r << " draw " << j << ": kernel " << g << ", definition " << want[static_cast<std::size_t>(j)]
                      << " (T " << rows[static_cast<std::size_t>(r)].s.temperature << ", top_k " << rows[static_cast<std::size_t>(r)].s.top_k
                      << ", top_p " << rows[static_cast<std::size_t>(r)].s.top_p << ", min_p " << rows[static_cast<std::size_t>(r)].s.min_p
                      << "; plan: " << gpu::TokenSampler::plan(m, k, type).describe() << ")";
    }
  }
  return bad;
}

// The samplings every test cycles through, row by row.
std::vector<tok::Sampling> samplings() {
  return {{},
          {.temperature = 0.7f},
          {.temperature = 0.7f, .top_k = 50},
          {.temperature = 0.7f, .top_p = 0.9f},
          {.temperature = 0.7f, .min_p = 0.05f},
          {.temperature = 0.7f, .top_k = 50, .top_p = 0.9f, .min_p = 0.05f},
          {.temperature = 1.3f, .top_k = 1},
          {.temperature = 0.0f},
          {.temperature = 1e-45f},
          {.temperature = 1e30f, .top_p = 0.5f},
          {.temperature = 1.0f, .top_k = 2, .top_p = 0.3f},
          {.temperature = 0.5f, .top_p = 1e-6f},
          {.temperature = 1.0f, .min_p = 1.0f},
          {.temperature = 2.0f, .top_k = 1000000}};
}

void run_case(gpu::LogitType type, std::int64_t k, int m, int draws, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const auto all = samplings();
  std::vector<float> x;
  std::vector<Row> rows;
  for (int r = 0; r < m; ++r) {
    const auto f = static_cast<Family>(r % 6);
    const auto row = logits_of(f, k, type, g);
    x.insert(x.end(), row.begin(), row.end());
    rows.push_back({all[static_cast<std::size_t>((r / 6 + r) % static_cast<int>(all.size()))], g(), g() % 1000});
  }
  EXPECT_EQ(compare(x, m, k, type, rows, draws), 0) << "K " << k << ", M " << m;
}

}  // namespace

TEST(TokenSampler, EveryDrawIsTheDefinitionsFp32) {
  WARPSIM_REQUIRE_GPU();
  for (std::int64_t k : {1, 2, 3, 31, 100, 1000, 4097, 32771}) run_case(gpu::LogitType::F32, k, 28, 16, 1000 + static_cast<std::uint64_t>(k));
}

TEST(TokenSampler, EveryDrawIsTheDefinitionsBf16AndFp16) {
  WARPSIM_REQUIRE_GPU();
  for (std::int64_t k : {1, 5, 1000, 32768, 50001}) {
    run_case(gpu::LogitType::BF16, k, 14, 8, 2000 + static_cast<std::uint64_t>(k));
    run_case(gpu::LogitType::F16, k, 14, 8, 3000 + static_cast<std::uint64_t>(k));
  }
}

// Few rows of vocabulary size: clusters of 2-8 blocks; past the cluster's
// shared memory (K = 2^20 fp32, 400,000), weights recomputed each pass.
TEST(TokenSampler, VocabularyRowsInClustersAndPastSharedMemory) {
  WARPSIM_REQUIRE_GPU();
  for (std::int64_t k : {131072, 152064, 262144}) run_case(gpu::LogitType::F32, k, 6, 32, 4000 + static_cast<std::uint64_t>(k));
  run_case(gpu::LogitType::BF16, 256000, 6, 8, 5000);
  run_case(gpu::LogitType::F32, 400000, 6, 8, 5001);
  run_case(gpu::LogitType::F32, 1 << 20, 6, 8, 5002);
}

TEST(TokenSampler, RefusedRowsGetMinusOneAndOthersAreUntouched) {
  WARPSIM_REQUIRE_GPU();
  const std::int64_t k = 64;
  std::vector<float> x(4 * k, 0.5f);
  x[3] = NAN;
  x[k + 7] = INFINITY;
  for (std::int64_t i = 0; i < k; ++i) x[static_cast<std::size_t>(2 * k + i)] = -INFINITY;
  std::vector<Row> rows(5);
  x.resize(5 * k, 0.25f);
  rows[3].s.top_p = 0;  // refused parameters
  rows[4].s.temperature = 0.9f;
  EXPECT_EQ(compare(x, 5, k, gpu::LogitType::F32, rows, 4), 0);
}

TEST(TokenSampler, TheSameRequestAndStepReplayTheNextStepDrawsAfresh) {
  WARPSIM_REQUIRE_GPU();
  std::mt19937_64 g(9);
  const std::int64_t k = 5000;
  const auto row = logits_of(Family::Normal, k, gpu::LogitType::F32, g);
  std::vector<float> x;
  for (int r = 0; r < 3; ++r) x.insert(x.end(), row.begin(), row.end());
  std::vector<Row> rows = {{{.temperature = 1.5f}, 77, 10}, {{.temperature = 1.5f}, 77, 10}, {{.temperature = 1.5f}, 77, 11}};
  EXPECT_EQ(compare(x, 3, k, gpu::LogitType::F32, rows, 64), 0);
  EXPECT_EQ(tok::draw(row, rows[0].s, 77, 10, 64), tok::draw(row, rows[1].s, 77, 10, 64));
  EXPECT_NE(tok::draw(row, rows[0].s, 77, 10, 64), tok::draw(row, rows[2].s, 77, 11, 64));
}

TEST(TokenSampler, RefusesShapesItCannotTake) {
  WARPSIM_REQUIRE_GPU();
  gpu::TokenSampler sampler;
  gpu::TokenParams p;
  DeviceArray<float> x(4);
  DeviceArray<int> out(4);
  EXPECT_THROW(sampler.sample(x.p, gpu::LogitType::F32, 0, 4, p, 1, out.p), std::invalid_argument);
  EXPECT_THROW(sampler.sample(x.p, gpu::LogitType::F32, 1, 0, p, 1, out.p), std::invalid_argument);
  EXPECT_THROW(sampler.sample(x.p, gpu::LogitType::F32, 1, (1 << 20) + 1, p, 1, out.p), std::invalid_argument);
  EXPECT_THROW(sampler.sample(x.p, gpu::LogitType::F32, 1, 4, p, 0, out.p), std::invalid_argument);
}

// One seed for the batch (TokenParams::seed null): row r is the request of
// rng::request_seed(seed_all, r).
TEST(TokenSampler, OneSeedIsTheBatchsARequestARow) {
  WARPSIM_REQUIRE_GPU();
  std::mt19937_64 g(12);
  const int m = 5;
  const std::int64_t k = 3000;
  std::vector<float> x;
  for (int r = 0; r < m; ++r) {
    const auto row = logits_of(Family::Normal, k, gpu::LogitType::F32, g);
    x.insert(x.end(), row.begin(), row.end());
  }
  DeviceArray<float> dx(x);
  DeviceArray<int> out(static_cast<std::size_t>(m) * 8);
  gpu::TokenParams p;
  p.temperature_all = 0.8f, p.top_p_all = 0.95f, p.seed_all = 100, p.offset_all = 4;
  gpu::TokenSampler().sample(dx.p, gpu::LogitType::F32, m, k, p, 8, out.p);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  const auto got = out.download();
  for (int r = 0; r < m; ++r) {
    const auto want = tok::draw(std::span<const float>(x.data() + r * k, static_cast<std::size_t>(k)), {.temperature = 0.8f, .top_p = 0.95f},
                                rng::request_seed(100, static_cast<std::uint64_t>(r)), 4, 8);
    for (int j = 0; j < 8; ++j) EXPECT_EQ(got[static_cast<std::size_t>(r * 8 + j)], want[static_cast<std::size_t>(j)]) << "row " << r << " draw " << j;
  }
}
