// Alias tables on the GPU against the oracle (oracle/alias/), bit for bit:
// the table every build writes (every weight family, fp32 and fp64, any
// number of sections and block size) and the index of every draw; the
// draws' law by chi-square; bad weights refused with the oracle's message.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <algorithm>
#include <random>
#include <vector>

#include "device_array.hpp"
#include "gpu/alias_table.hpp"
#include "gpu/cuda_check.hpp"
#include "oracle/alias/psa_plus.hpp"
#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/sectioned.hpp"
#include "oracle/alias/sweep.hpp"
#include "properties/generators.hpp"
#include "properties/rc_checks.hpp"
#include "require_gpu.hpp"
#include "rng/half_block.hpp"
#include "../alias_test_weights.hpp"
#include "stats/goodness_of_fit.hpp"

using namespace warpsim;

namespace {

using gpu_test::DeviceArray;

// The GPU's table for w, downloaded, as the oracle's Table (keep decoded from
// the threshold), and the raw thresholds.
template <class T>
oracle::alias::Table gpu_table(const std::vector<T>& w, const gpu::AliasBuildConfig& config, gpu::AliasTableInfo* info_out = nullptr,
                               std::vector<std::uint64_t>* thresholds = nullptr) {
  DeviceArray<T> dw(w);
  DeviceArray<gpu::AliasRow> rows(w.size());
  gpu::AliasTableBuilder<T> builder;
  const auto info = builder.build(dw.p, w.size(), rows.p, config);
  const auto got = rows.download();
  oracle::alias::Table t{info.capacity, info.exponent, std::vector<std::uint64_t>(w.size()), std::vector<std::uint32_t>(w.size())};
  for (std::size_t k = 0; k < w.size(); ++k) {
    t.keep[k] = oracle::alias::keep_of_threshold(got[k].threshold, info.capacity);  // exact (table.hpp)
    t.alias[k] = got[k].alias;
    if (thresholds) thresholds->push_back(got[k].threshold);
  }
  if (info_out) *info_out = info;
  return t;
}

// The GPU's table equals the oracle's: PSA's is the sweep's for any number
// of sections (oracle/alias/psa.hpp); PSA+'s is psa_plus(u, G, ..., 32
// lanes)'s, for any number of sections too.
template <class T>
void build_equals_the_oracle(const std::vector<T>& w, const gpu::AliasBuildConfig& config) {
  const auto u = oracle::alias::to_units<T>(w);
  const auto want = config.psa_plus_group ? oracle::alias::psa_plus(u, config.psa_plus_group, 7, {}, nullptr, nullptr, 32) : oracle::alias::sweep(u);
  gpu::AliasTableInfo info;
  std::vector<std::uint64_t> thresholds;
  const auto got = gpu_table(w, config, &info, &thresholds);
  RC_ASSERT(info.exponent == u.exponent);
  for (std::size_t k = 0; k < w.size(); ++k) RC_ASSERT(thresholds[k] == oracle::alias::threshold(want.keep[k], u.total));
  RC_ASSERT(got.capacity == u.total);
  RC_ASSERT(got.keep == want.keep);
  for (std::size_t k = 0; k < w.size(); ++k) RC_ASSERT(got.alias[k] == oracle::alias::sampled_alias(want, k));
}

// A table built on the device from host weights: the weights, the rows and
// what the build says.
template <class T>
struct BuiltTable {
  DeviceArray<T> weights;
  DeviceArray<gpu::AliasRow> rows;
  gpu::AliasTableInfo info;
  explicit BuiltTable(const std::vector<T>& w) : weights(w), rows(w.size()) {
    gpu::AliasTableBuilder<T> builder;
    info = builder.build(weights.p, w.size(), rows.p);
  }
};

// The chi-square of per-item counts against the units' law u_i / U
// (alpha 1e-6: a false alarm once in a million runs).
stats::TestResult counts_against_units(const std::vector<unsigned long long>& c, const oracle::alias::Units& u) {
  std::vector<double> observed(c.begin(), c.end()), p(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) p[i] = static_cast<double>(u.units[i]) / static_cast<double>(u.total);
  stats::GofOptions opt;
  opt.alpha = 1e-6;
  return stats::chi_square_test(observed, p, opt);
}

rc::Gen<gpu::AliasBuildConfig> gen_config() {
  return rc::gen::exec([] {
    gpu::AliasBuildConfig c;
    c.sections = *rc::gen::element<std::size_t>(0, 1, 2, 7, 100, 100000);
    c.threads_per_block = *rc::gen::element(32, 128, 256, 1024);
    c.shared_pack = *rc::gen::arbitrary<bool>();
    c.merge_pack = *rc::gen::element(true, true, false);
    c.implicit_lights = *rc::gen::arbitrary<bool>();
    c.pack_chunk = *rc::gen::element(0, 0, 8, 16);
    c.pary_split = *rc::gen::arbitrary<bool>();
    c.dependent_launch = *rc::gen::arbitrary<bool>();
    // PSA (0) or PSA+ with groups of 1 to 1,024 items.
    c.psa_plus_group = *rc::gen::element<std::size_t>(0, 0, 0, 1, 2, 31, 32, 33, 100, 512, 1024);
    return c;
  });
}

TEST(GpuAlias, BuildEqualsTheOracleOnEveryFamily) {
  WARPSIM_REQUIRE_GPU();
  for (const bool fp64 : {false, true}) {
    const auto result = rc::check(fp64 ? "fp64" : "fp32", [fp64] {
      const auto family = *properties::gen_family();
      const int n = *rc::gen::inRange(1, 5000);
      const auto config = *gen_config();
      if (fp64) build_equals_the_oracle(*properties::gen_weights<double>(family, n), config);
      else build_equals_the_oracle(*properties::gen_weights<float>(family, n), config);
    });
    EXPECT_TRUE(result);
  }
}

TEST(GpuAlias, PsaPlusEqualsTheOracleAtAMillionItems) {
  WARPSIM_REQUIRE_GPU();
  const std::size_t n = 1'000'000;
  for (const auto& w : {test::uniform_weights<float>(n, 5), test::shuffled_power_law<float>(n, 7919)}) {
    const auto u = oracle::alias::to_units<float>(w);
    const auto want = oracle::alias::psa_plus(u, 1024, 1, {}, nullptr, nullptr, 32);
    gpu::AliasBuildConfig config;
    config.psa_plus_group = 1024;
    gpu::AliasTableInfo info;
    const auto got = gpu_table(w, config, &info);
    EXPECT_EQ(got.keep, want.keep);
    bool same = true;
    for (std::size_t k = 0; k < n && same; ++k) same = got.alias[k] == oracle::alias::sampled_alias(want, k);
    EXPECT_TRUE(same);
    std::cout << "PSA+ (groups of 1,024), 10^6 items: " << n - info.lights - info.heavies << " rows packed greedily, " << info.lights + info.heavies
              << " left to PSA\n";
  }
  gpu::AliasBuildConfig too_big;
  too_big.psa_plus_group = 1025;
  const std::vector<float> w(10, 1.0f);
  EXPECT_THROW(gpu_table(w, too_big), std::invalid_argument);
}

// A build replayed as a CUDA graph: new weights in the same buffer give
// their own table (the graph reads them afresh), another n or buffer is
// captured again, and a bad weight is still refused.
TEST(GpuAlias, GraphReplaysBuildTheOraclesTable) {
  WARPSIM_REQUIRE_GPU();
  gpu::AliasBuildConfig config;
  config.graph = true;
  gpu::AliasTableBuilder<float> builder;
  for (const std::size_t n : {std::size_t{5000}, std::size_t{5000}, std::size_t{777}}) {
    for (const bool plus : {false, true}) {
      config.psa_plus_group = plus ? 1024 : 0;
      for (int round = 0; round < 3; ++round) {
        const auto w = test::uniform_weights<float>(n, 100 * n + static_cast<std::uint64_t>(round));
        DeviceArray<float> dw(w);
        DeviceArray<gpu::AliasRow> rows(n);
        builder.build(dw.p, n, rows.p, config);
        const auto u = oracle::alias::to_units<float>(w);
        const auto want = plus ? oracle::alias::psa_plus(u, 1024, 1, {}, nullptr, nullptr, 32) : oracle::alias::sweep(u);
        const auto got = rows.download();
        bool same = true;
        for (std::size_t k = 0; k < n && same; ++k) {
          same = got[k].threshold == oracle::alias::threshold(want.keep[k], u.total) && got[k].alias == oracle::alias::sampled_alias(want, k);
        }
        EXPECT_TRUE(same) << "n " << n << (plus ? " PSA+" : " PSA") << " round " << round;
      }
    }
  }
  // The same buffers again, the weights now bad: refused by the replay.
  std::vector<float> w = test::uniform_weights<float>(777, 1);
  DeviceArray<float> dw(w);
  DeviceArray<gpu::AliasRow> rows(777);
  config.psa_plus_group = 0;
  builder.build(dw.p, 777, rows.p, config);
  w[3] = std::numeric_limits<float>::quiet_NaN();
  WARPSIM_CUDA(cudaMemcpy(dw.p, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
  EXPECT_THROW(builder.build(dw.p, 777, rows.p, config), std::invalid_argument);
}

// Weights on the host (pageable memory) build the same table as on the
// device; bad host weights are refused with the same message.
TEST(GpuAlias, HostWeightsBuildTheSameTable) {
  WARPSIM_REQUIRE_GPU();
  const auto w = test::shuffled_power_law<float>(100000, 7);
  DeviceArray<gpu::AliasRow> rows(w.size());
  gpu::AliasTableBuilder<float> builder;
  const auto info = builder.build(w.data(), w.size(), rows.p);
  const auto u = oracle::alias::to_units<float>(w);
  const auto want = oracle::alias::sweep(u);
  EXPECT_EQ(info.capacity, u.total);
  const auto got = rows.download();
  for (std::size_t k = 0; k < w.size(); ++k) {
    ASSERT_EQ(got[k].threshold, oracle::alias::threshold(want.keep[k], u.total)) << k;
    ASSERT_EQ(got[k].alias, oracle::alias::sampled_alias(want, k)) << k;
  }
  std::vector<float> bad = w;
  bad[77] = -1;
  try {
    builder.build(bad.data(), bad.size(), rows.p);
    ADD_FAILURE() << "a negative host weight was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "weight 77 is negative");
  }
}

// -0 is a weight of 0 (the check passes it): its sign bit must not make it
// the largest weight.
TEST(GpuAlias, NegativeZeroIsAWeightOfZero) {
  WARPSIM_REQUIRE_GPU();
  for (const auto& w : {std::vector<float>{-0.0f, 1, 2, -0.0f}, std::vector<float>{3, -0.0f}}) {
    const auto u = oracle::alias::to_units<float>(w);
    gpu::AliasTableInfo info;
    const auto got = gpu_table(w, {}, &info);
    EXPECT_EQ(info.exponent, u.exponent);
    EXPECT_EQ(got.keep, oracle::alias::sweep(u).keep);
  }
}

// The unit at the ends of each format's range: U comes from fine_sum's
// candidate sums where the doubles' approximate sum can be trusted (fp32
// anywhere, fp64 down to a largest weight of 2^-900), from total_units'
// own pass below that (subnormal weights included); and with S' straddling
// a power of two (2^k items of weight 1 and one more), where the two
// candidate shifts differ.
TEST(GpuAlias, BuildEqualsTheOracleAtTheEndsOfTheRange) {
  WARPSIM_REQUIRE_GPU();
  const auto base = test::shuffled_power_law<double>(3000, 17);
  for (const int e : {-1074, -1060, -1000, -950, -901, -899, -500, 0, 500, 960}) {
    std::vector<double> w(base.size());
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::ldexp(base[i] / base[0], e);  // the largest 2^e (some subnormal)
    const auto u = oracle::alias::to_units<double>(w);
    gpu::AliasTableInfo info;
    const auto got = gpu_table(w, {}, &info);
    EXPECT_EQ(info.exponent, u.exponent) << "2^" << e;
    EXPECT_EQ(got.capacity, u.total) << "2^" << e;
    EXPECT_EQ(got.keep, oracle::alias::sweep(u).keep) << "2^" << e;
  }
  for (const int e : {-149, -140, -126, 0, 100, 127}) {
    std::vector<float> w(3000);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::ldexp(static_cast<float>(base[i] / base[0]), e);
    const auto u = oracle::alias::to_units<float>(w);
    const auto got = gpu_table(w, {});
    EXPECT_EQ(got.capacity, u.total) << "2^" << e;
    EXPECT_EQ(got.keep, oracle::alias::sweep(u).keep) << "2^" << e;
  }
  for (const std::size_t n : {std::size_t{4096}, std::size_t{4097}, std::size_t{4095}}) {
    const std::vector<float> w(n, 1.0f);
    const auto u = oracle::alias::to_units<float>(w);
    gpu::AliasTableInfo info;
    const auto got = gpu_table(w, {}, &info);
    EXPECT_EQ(info.exponent, u.exponent) << n;
    EXPECT_EQ(got.capacity, u.total) << n;
  }
}

// Where the lights lie far apart: long runs of heavies (weight 1) between
// rare lights (weight 0 or a little), so that one light's bucket is filled
// over thousands of heavy steps, many sections hold heavies alone, and the
// merge pack that finds l again from the weights must start from a chunk's
// start, not from the directory's light (ImplicitLists::locate); then
// lights in runs, and every 32nd item light.
TEST(GpuAlias, BuildEqualsTheOracleWhereHeaviesRunLong) {
  WARPSIM_REQUIRE_GPU();
  for (const std::size_t period : {std::size_t{2001}, std::size_t{300}, std::size_t{32}}) {
    const std::size_t n = 200'003;
    std::vector<float> w(n, 1.0f);
    for (std::size_t i = period / 2; i < n; i += period) w[i] = (i / period) % 3 == 0 ? 0.0f : 0.25f;
    const auto u = oracle::alias::to_units<float>(w);
    const auto want = oracle::alias::sweep(u);
    // l implicit (a warp a split; with sections of 16 items, a warp 32
    // splits), and l written.
    for (const int mode : {0, 1, 2}) {
      gpu::AliasBuildConfig config;
      config.implicit_lights = mode < 2;
      config.sections = mode == 1 ? n / 16 : 0;
      gpu::AliasTableInfo info;
      const auto got = gpu_table(w, config, &info);
      bool same = got.keep == want.keep;
      for (std::size_t k = 0; k < n && same; ++k) same = got.alias[k] == oracle::alias::sampled_alias(want, k);
      EXPECT_TRUE(same) << "a light every " << period << " items, mode " << mode;
      EXPECT_EQ(info.lights, (n - period / 2 + period - 1) / period) << period;
    }
  }
}

// Where many items sit at the line between light and heavy (heavy iff
// u > floor(U / N)): equal weights (every item on the line, so light and
// exactly full), and 1 and 1/2 in equal numbers with 50,007 items at their
// mean 3/4 or within 2^-22 of it, shuffled (those just above it heavy by a
// few units, those on it full, those below it light).
TEST(GpuAlias, BuildEqualsTheOracleWhereItemsSitAtTheLine) {
  WARPSIM_REQUIRE_GPU();
  const std::size_t n = 300'007;
  std::vector<float> equal(n, 0.75f), near;
  for (std::size_t i = 0; i < 125'000; ++i) near.insert(near.end(), {1.0f, 0.5f});
  for (std::size_t i = 0; i < 50'007; ++i) near.push_back(0.75f * (i % 3 == 0 ? 1.0f : i % 3 == 1 ? 1.0f + 0x1p-22f : 1.0f - 0x1p-22f));
  std::shuffle(near.begin(), near.end(), std::mt19937_64(11));
  for (const auto* w : {&equal, &near}) {
    const auto u = oracle::alias::to_units<float>(*w);
    const auto want = oracle::alias::sweep(u);
    for (const bool implicit : {true, false}) {
      gpu::AliasBuildConfig config;
      config.implicit_lights = implicit;
      const auto got = gpu_table(*w, config);
      EXPECT_EQ(got.capacity, u.total);
      bool same = got.keep == want.keep;
      for (std::size_t k = 0; k < n && same; ++k) same = got.alias[k] == oracle::alias::sampled_alias(want, k);
      EXPECT_TRUE(same) << (w == &equal ? "equal" : "near") << (implicit ? ", l implicit" : "");
    }
  }
}

// Sizes users have: 10^6 items, uniform and a shuffled power law.
TEST(GpuAlias, BuildEqualsTheOracleAtAMillionItems) {
  WARPSIM_REQUIRE_GPU();
  const std::size_t n = 1'000'000;
  const auto uniform = test::uniform_weights<float>(n, 5), power = test::shuffled_power_law<float>(n, 7919);
  for (const auto* w : {&uniform, &power}) {
    const auto u = oracle::alias::to_units<float>(*w);
    const auto want = oracle::alias::sweep(u);
    // The merge pack (sections of 1,024, 1,004 and 16 steps) and the shared
    // and global packs.
    // The merge pack with l found again from the weights or written out.
    for (const int pack : {0, 1, 2}) {
      const bool merge = pack < 2;
      for (std::size_t sections : {std::size_t{0}, std::size_t{997}, std::size_t{1'000'000 / 16}}) {
        gpu::AliasBuildConfig config;
        config.sections = sections;
        config.shared_pack = sections != 997;
        config.merge_pack = merge;
        config.implicit_lights = pack == 0;
        const auto got = gpu_table(*w, config);
        EXPECT_EQ(got.capacity, u.total);
        bool same = got.keep == want.keep;
        for (std::size_t k = 0; k < n && same; ++k) same = got.alias[k] == oracle::alias::sampled_alias(want, k);
        EXPECT_TRUE(same) << "sections " << sections << (merge ? pack == 0 ? ", merge pack, l implicit" : ", merge pack" : "");
      }
    }
  }
}

// Every draw's index is the oracle's draw(t, seed, d).
TEST(GpuAlias, DrawsEqualTheOracle) {
  WARPSIM_REQUIRE_GPU();
  const auto w = properties::sample(properties::gen_weights<double>(properties::WeightFamily::PowerLaw, 5000), 3);
  const auto u = oracle::alias::to_units<double>(w);
  const auto t = oracle::alias::sweep(u);
  const BuiltTable<double> table(w);
  const auto& rows = table.rows;
  const auto& info = table.info;
  const std::uint64_t count = 200'000, first = 123'456'789, seed = 42;
  DeviceArray<std::uint32_t> out(count);
  gpu::alias_sample(rows.p, info, seed, first, count, out.p);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  const auto got = out.download();
  int bad = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto want = oracle::alias::draw(t, seed, first + i);
    if (got[i] != want && ++bad <= 3) ADD_FAILURE() << "draw " << first + i << ": GPU " << got[i] << ", oracle " << want;
  }
  EXPECT_EQ(bad, 0);
  // The counting form counts the same draws.
  DeviceArray<unsigned long long> counts(std::vector<unsigned long long>(w.size(), 0));
  gpu::alias_sample_counts(rows.p, info, seed, first, count, counts.p);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned long long> want_counts(w.size(), 0);
  for (auto z : got) ++want_counts[z];
  EXPECT_EQ(counts.download(), want_counts);
}

// 10^9 draws from a table of 1,000 items in law: chi-square against u_i / U
// at alpha 1e-6 (a false alarm once in a million runs); its power statement
// says what bias it would have caught.
TEST(GpuAlias, BillionDrawsFollowTheTableChiSquare) {
  WARPSIM_REQUIRE_GPU();
  const auto w = properties::sample(properties::gen_weights<float>(properties::WeightFamily::Uniform, 1000), 11);
  const auto u = oracle::alias::to_units<float>(w);
  const BuiltTable<float> table(w);
  DeviceArray<unsigned long long> counts(std::vector<unsigned long long>(w.size(), 0));
  const std::uint64_t n = 1'000'000'000;
  gpu::alias_sample_counts(table.rows.p, table.info, 7, 0, n, counts.p);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  const auto c = counts.download();
  const auto r = counts_against_units(c, u);
  std::cout << "10^9 GPU alias draws, 1,000 items: chi-square " << r.statistic << ", p " << r.p_value
            << "; detected with power 0.9: total variation " << r.detectable.total_variation.value_or(-1) << ", a category off by "
            << r.detectable.max_relative_error.value_or(-1) << " relative\n";
  // Power (0.9): any law 3e-4 or more from the table's in total variation
  // (the worst single item's detectable error is larger: the uniform family
  // has items of tiny weight).
  ASSERT_TRUE(r.detectable.total_variation.has_value());
  EXPECT_LT(*r.detectable.total_variation, 1e-3);
  EXPECT_FALSE(r.reject) << "p = " << r.p_value;
  EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0ull), n);
}

// Sectioned sampling: every draw equals the oracle's sample_sectioned, for
// tables from 1 to 3 x 10^5 rows, sections from 1 row to 3,072, batches from
// 0 to 10^6 draws with any first draw; shuffled, the oracle's shuffle_batch;
// counted, the histogram of the same draws.
TEST(GpuAlias, SectionedDrawsEqualTheOracle) {
  WARPSIM_REQUIRE_GPU();
  struct Case {
    std::size_t n, section_rows;
    std::uint64_t count, first;
  };
  for (const Case c : {Case{1, 1, 100, 0}, Case{3, 1, 1000, 5}, Case{1000, 7, 100000, 1 << 20}, Case{5000, 64, 0, 0},
                       Case{300001, 2048, 1000000, 123456789}, Case{300001, 3072, 999, 0}, Case{65536, 2048, 1 << 19, 0},
                       Case{100000, 100, 300000, std::uint64_t{1} << 40}}) {
    const auto w = test::shuffled_power_law<double>(c.n, c.n % 2 == 0 ? 40503 : 7);
    const auto u = oracle::alias::to_units<double>(w);
    const auto t = oracle::alias::sweep(u);
    const BuiltTable<double> table(w);
    const auto& rows = table.rows;
    const auto& info = table.info;
    gpu::AliasSectionedSampler sampler(c.section_rows);
    const std::uint64_t seed = 99 + c.n;
    auto want = oracle::alias::sample_sectioned(t, c.section_rows, c.count, seed, c.first);
    DeviceArray<std::uint32_t> out(std::max<std::uint64_t>(1, c.count));
    sampler.sample(rows.p, info, seed, c.first, c.count, out.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    auto got = out.download();
    got.resize(c.count);
    EXPECT_EQ(got, want) << c.n << " rows, sections of " << c.section_rows << ", " << c.count << " draws";
    DeviceArray<unsigned long long> counts(std::vector<unsigned long long>(w.size(), 0));
    sampler.sample_counts(rows.p, info, seed, c.first, c.count, counts.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned long long> want_counts(w.size(), 0);
    for (auto z : want) ++want_counts[z];
    EXPECT_EQ(counts.download(), want_counts);
    sampler.sample(rows.p, info, seed, c.first, c.count, out.p, /*shuffled=*/true);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    got = out.download();
    got.resize(c.count);
    oracle::alias::shuffle_batch(want, seed, c.first);
    EXPECT_EQ(got, want) << "shuffled: " << c.n << " rows, sections of " << c.section_rows;
  }
  EXPECT_THROW(gpu::AliasSectionedSampler(gpu::kAliasMaxSectionRows + 1), std::invalid_argument);
}

// The sectioned kernel decides a draw from its two words with 32-bit
// arithmetic and hands the rest to the general path (rng/half_block.hpp's
// extra words): a draw whose Lemire product falls in the rejection zone, and
// a draw whose coin ties its row's threshold in the high word (each about
// 2^-32 likely a draw, so the inputs are made for them: a first draw found by
// search, and a threshold built around the draw's word). Both equal the
// oracle's, and the oracle does take the extra word there.
TEST(GpuAlias, SectionedDrawsTakeExtraWordsAsTheOracleDoes) {
  WARPSIM_REQUIRE_GPU();
  constexpr std::uint64_t kStreams = oracle::alias::kSectionedDrawStreams;
  {
    // Rejection: one section of 3,071 rows; 2^32 mod 3,071 = 1,387.
    const std::uint32_t n = 3071, zone = static_cast<std::uint32_t>((std::uint64_t{1} << 32) % n);
    const std::uint64_t seed = 11;
    std::uint64_t hit = 0;
    for (std::uint64_t d = 1000;; ++d) {
      ASSERT_LT(d, 100000000u) << "no draw in the rejection zone";
      const rng::HalfBlock b(seed, kStreams, d);
      if (static_cast<std::uint32_t>(static_cast<std::uint64_t>(b.first()) * n) < zone) {
        hit = d;
        break;
      }
    }
    const auto w = test::shuffled_power_law<double>(n, 5);
    const auto t = oracle::alias::sweep(oracle::alias::to_units<double>(w));
    const BuiltTable<double> table(w);
    gpu::AliasSectionedSampler sampler(3072);
    for (const std::uint64_t first : {hit - 101, hit - 100, hit}) {  // inside the slice; and first, at its end
      const std::uint64_t count = 513;
      const auto want = oracle::alias::sample_sectioned(t, 3072, count, seed, first);
      DeviceArray<std::uint32_t> out(count);
      sampler.sample(table.rows.p, table.info, seed, first, count, out.p);
      WARPSIM_CUDA(cudaDeviceSynchronize());
      EXPECT_EQ(out.download(), want) << "a rejected first word at draw " << hit;
    }
  }
  {
    // A tie: two items; draw 0's row gets the threshold whose high word is
    // the draw's second word and whose low word is above the extra word,
    // so the oracle keeps the row's item where deciding by the high word
    // alone would give the alias.
    const std::uint64_t seed = 3;
    rng::HalfBlock b(seed, kStreams, 0);
    const std::uint32_t k = static_cast<std::uint32_t>((static_cast<std::uint64_t>(b.first()) * 2) >> 32);
    const std::uint32_t y = b.second(), extra = b.next();
    ASSERT_LT(extra, 0xffffff00u);
    const std::uint64_t total = (std::uint64_t{1} << 40) + 1;
    std::vector<double> w;
    oracle::alias::Table t;
    // The threshold is about a 2^65 / total: its high word is y for 128
    // values of a from about y 2^7, its low word stepping by about 2^25.
    for (std::uint64_t a = (static_cast<std::uint64_t>(y) << 7) - std::min<std::uint64_t>(y, 2);; ++a) {
      ASSERT_LT(a, (static_cast<std::uint64_t>(y) << 7) + 300) << "no threshold with high word " << y;
      w.assign(2, 0.0);
      w[k] = static_cast<double>(a);
      w[1 - k] = static_cast<double>(total - a);
      t = oracle::alias::sweep(oracle::alias::to_units<double>(w));
      const std::uint64_t th = oracle::alias::threshold(t.keep[k], t.capacity);
      if ((th >> 32) == y && static_cast<std::uint32_t>(th) > extra) break;
    }
    const auto want = oracle::alias::sample_sectioned(t, 2, 64, seed, 0);
    ASSERT_EQ(want[0], k) << "the oracle keeps the row's item on the tie";
    const BuiltTable<double> table(w);
    gpu::AliasSectionedSampler sampler(2);
    DeviceArray<std::uint32_t> out(64);
    sampler.sample(table.rows.p, table.info, seed, 0, 64, out.p);
    WARPSIM_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(out.download(), want);
  }
}

// 10^9 sectioned draws from 10^6 items in law (chi-square, alpha 1e-6): the
// binomial splits make the section counts a multinomial.
TEST(GpuAlias, BillionSectionedDrawsFollowTheTableChiSquare) {
  WARPSIM_REQUIRE_GPU();
  const auto w = test::shuffled_power_law<float>(1000000);
  const auto u = oracle::alias::to_units<float>(w);
  const BuiltTable<float> table(w);
  DeviceArray<unsigned long long> counts(std::vector<unsigned long long>(w.size(), 0));
  const std::uint64_t n = 1'000'000'000;
  gpu::AliasSectionedSampler sampler;
  sampler.sample_counts(table.rows.p, table.info, 8, 0, n, counts.p);
  WARPSIM_CUDA(cudaDeviceSynchronize());
  const auto c = counts.download();
  const auto r = counts_against_units(c, u);
  std::cout << "10^9 sectioned GPU alias draws, 10^6 items: chi-square " << r.statistic << ", p " << r.p_value
            << "; detected with power 0.9: total variation " << r.detectable.total_variation.value_or(-1) << "\n";
  ASSERT_TRUE(r.detectable.total_variation.has_value());
  EXPECT_LT(*r.detectable.total_variation, 0.01);
  EXPECT_FALSE(r.reject) << "p = " << r.p_value;
  EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0ull), n);
}

TEST(GpuAlias, BadWeightsAreRefusedWithTheOraclesMessage) {
  WARPSIM_REQUIRE_GPU();
  auto message = [](const std::vector<double>& w) {
    DeviceArray<double> dw(w);
    DeviceArray<gpu::AliasRow> rows(w.size());
    gpu::AliasTableBuilder<double> builder;
    try {
      builder.build(dw.p, w.size(), rows.p);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  auto oracle_message = [](const std::vector<double>& w) {
    try {
      oracle::alias::to_units<double>(w);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (const auto& w : {std::vector<double>{1, 2, 3, 4, 5, nan, 1, -1}, std::vector<double>{1, -2, inf}, std::vector<double>{0, 0, 0},
                        std::vector<double>{1, inf}}) {
    EXPECT_EQ(message(w), oracle_message(w));
    EXPECT_NE(message(w), "accepted");
  }
  gpu::AliasTableBuilder<float> builder;
  EXPECT_THROW(builder.build(nullptr, 0, nullptr), std::invalid_argument);
}

// A table the device cannot hold is refused before anything runs, with the
// bytes it needs: 2^32 - 1 items, built the default way (about 13 bytes of
// scratch an item), else with l written (24), else by PSA+ (about 100),
// whichever first needs more than the device has free.
TEST(GpuAlias, ATableBeyondDeviceMemoryIsRefusedWithWhatItNeeds) {
  WARPSIM_REQUIRE_GPU();
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPSIM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t n = gpu::kAliasMaxItems;
  gpu::AliasBuildConfig written, plus;
  written.implicit_lights = false;
  plus.psa_plus_group = 1024;
  for (const gpu::AliasBuildConfig& config : {gpu::AliasBuildConfig{}, written, plus}) {
    const std::size_t needs = gpu::AliasTableBuilder<float>::scratch_bytes(n, config);
    if (needs <= free_bytes) continue;
    DeviceArray<float> one(std::vector<float>{1});
    gpu::AliasTableBuilder<float> builder;
    try {
      builder.build(one.p, n, nullptr, config);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("needs " + std::to_string(needs) + " bytes"), std::string::npos) << what;
      EXPECT_NE(what.find("free"), std::string::npos) << what;
    }
    return;
  }
  GTEST_SKIP() << "this device holds even PSA+'s scratch for 2^32 - 1 items: " << free_bytes << " bytes free";
}

}  // namespace
