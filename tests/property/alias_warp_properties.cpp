// PSA on the warp model (oracle/alias/*_warp.hpp): each phase the GPU runs --
// partition, split (binary and partial p-ary), pack (baseline, l and h in
// shared memory, chunked), PSA+, sectioned sampling -- equals its host
// definition on every weight family, and what each reads is counted.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "oracle/alias/partition_warp.hpp"
#include "oracle/alias/psa.hpp"
#include "oracle/alias/psa_warp.hpp"
#include "oracle/alias/sectioned_warp.hpp"
#include "oracle/alias/split_pary.hpp"
#include "properties/generators.hpp"
#include "../alias_test_weights.hpp"

namespace {

using namespace warpsim::oracle::alias;

template <class T>
std::vector<T> gen_weights() {
  const auto family = *warpsim::properties::gen_family();
  const int n = *rc::gen::inRange(1, 300);
  return *warpsim::properties::gen_weights<T>(family, n);
}

// The partition on the model writes psa.hpp's partition: the same lists in
// index order, the same masses, the same prefix sums.
template <class T>
void partition_on_the_model_is_the_partition(const std::vector<T>& w, int width) {
  const auto u = to_units<T>(w);
  const auto want = partition(u);
  warpsim::sim::GlobalMemory mem;
  warpsim::sim::Warp warp({.width = width});
  const auto got = partition_on_warp(warp, mem, upload_units(mem, u), w.size(), u.total);
  RC_ASSERT(got.lists.lights == want.light.size());
  RC_ASSERT(got.lists.heavies == want.heavy.size());
  auto first = [](auto v, std::size_t n) { return decltype(v)(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n)); };
  RC_ASSERT(first(mem.download(got.lists.light), want.light.size()) == want.light);
  RC_ASSERT(first(mem.download(got.lists.heavy), want.heavy.size()) == want.heavy);
  RC_ASSERT(first(mem.download(got.lists.light_mass), want.light.size()) == want.light_mass);
  RC_ASSERT(first(mem.download(got.lists.heavy_mass), want.heavy.size()) == want.heavy_mass);
  RC_ASSERT(first(mem.download(got.sums.deficit), want.deficit.size()) == want.deficit);
  RC_ASSERT(first(mem.download(got.sums.excess), want.excess.size()) == want.excess);
}

RC_GTEST_PROP(AliasWarp, PartitionOnTheModelIsThePartitionFp32, ()) {
  partition_on_the_model_is_the_partition(gen_weights<float>(), *rc::gen::element(4, 8, 32));
}

RC_GTEST_PROP(AliasWarp, PartitionOnTheModelIsThePartitionFp64, ()) {
  partition_on_the_model_is_the_partition(gen_weights<double>(), *rc::gen::element(4, 8, 32));
}

// The partial p-ary split finds split()'s splits for any group of warps
// (p = 2 .. 128 lanes) and any number of sections.
template <class T>
void pary_split_is_the_split(const std::vector<T>& w, std::size_t sections, int warps, int width) {
  const auto u = to_units<T>(w);
  const auto part = partition(u);
  const std::size_t n = w.size();
  warpsim::sim::GlobalMemory mem;
  const auto sums = upload_prefix_sums(mem, part);
  const std::size_t p = static_cast<std::size_t>(warps * width);
  for (std::size_t first = 0; first < sections; first += p) {
    std::vector<std::size_t> ks;
    for (std::size_t q = first; q < std::min(sections, first + p); ++q) ks.push_back(q * n / sections);
    std::vector<warpsim::sim::Warp> group(static_cast<std::size_t>(warps), warpsim::sim::Warp({.width = width}));
    warpsim::sim::SharedMemory smem(1024);
    ParyStats st;
    const auto got = split_pary_on_group(group, smem, mem, sums, ks, &st);
    RC_ASSERT(got.size() == ks.size());
    for (std::size_t l = 0; l < ks.size(); ++l) {
      const auto want = split(part, ks[l]);
      RC_ASSERT(got[l].i == want.i);
      RC_ASSERT(got[l].j == want.j);
      RC_ASSERT(st.first <= want.i);
      RC_ASSERT(want.i <= st.last);
    }
    for (const auto& warp : group) RC_ASSERT(warp.flags().empty());
  }
}

RC_GTEST_PROP(AliasWarp, ParySplitIsTheSplitFp32, ()) {
  const auto w = gen_weights<float>();
  pary_split_is_the_split(w, *rc::gen::inRange<std::size_t>(1, 200), *rc::gen::element(1, 2, 4), *rc::gen::element(4, 32));
}

RC_GTEST_PROP(AliasWarp, ParySplitIsTheSplitFp64, ()) {
  const auto w = gen_weights<double>();
  pary_split_is_the_split(w, *rc::gen::inRange<std::size_t>(1, 200), *rc::gen::element(1, 2, 4), *rc::gen::element(4, 32));
}

using warpsim::test::shuffled_power_law;
using warpsim::test::uniform_weights;

// What the two splits read on the model (2^16 items, 1,024 splits, groups of
// one warp): the partial p-ary split's first phase narrows each group's range
// to a few hundred lights in a few iterations, then each lane searches that.
TEST(AliasWarp, ParyAndBinarySplitsOnTheModelsCounters) {
  const std::size_t n = 1 << 16, sections = 1024;
  for (const auto& [name, w] : {std::pair{"uniform", uniform_weights(n, 7)}, std::pair{"power law", shuffled_power_law(n)}}) {
    const auto u = to_units<double>(w);
    const auto part = partition(u);
    warpsim::sim::GlobalMemory mem;
    const auto sums = upload_prefix_sums(mem, part);
    warpsim::sim::Counters binary, pary;
    int iterations = 0, printed_iterations = 0;
    for (std::size_t first = 0; first < sections; first += 32) {
      std::vector<std::size_t> ks;
      for (std::size_t q = first; q < first + 32; ++q) ks.push_back(q * n / sections);
      warpsim::sim::Warp one({.width = 32});
      split_on_warp(one, mem, sums, ks);
      binary += one.counters();
      std::vector<warpsim::sim::Warp> group(1, warpsim::sim::Warp({.width = 32}));
      warpsim::sim::SharedMemory smem(64);
      ParyStats st;
      const auto got = split_pary_on_group(group, smem, mem, sums, ks, &st);
      for (std::size_t l = 0; l < ks.size(); ++l) ASSERT_EQ(got[l].i, split(part, ks[l]).i);
      pary += group[0].counters();
      iterations += st.iterations;
      // Alg. 3.1's "while range can be reduced", taken literally (errata E15): the same splits, more iterations.
      std::vector<warpsim::sim::Warp> literal(1, warpsim::sim::Warp({.width = 32}));
      warpsim::sim::SharedMemory smem2(64);
      ParyStats lst;
      const auto same = split_pary_on_group(literal, smem2, mem, sums, ks, &lst, true);
      for (std::size_t l = 0; l < ks.size(); ++l) ASSERT_EQ(same[l].i, got[l].i);
      printed_iterations += lst.iterations;
    }
    std::cout << name << ": binary split " << binary.global_requests << " requests, " << binary.global_load_sectors << " sectors, "
              << binary.total_instructions() << " instructions; partial p-ary " << pary.global_requests << " requests, "
              << pary.global_load_sectors << " sectors, " << pary.total_instructions() << " instructions ("
              << static_cast<double>(iterations) / 32.0 << " p-ary iterations a group; " << static_cast<double>(printed_iterations) / 32.0
              << " while the range shrinks at all, as printed)\n";
    EXPECT_GT(printed_iterations, iterations);
    EXPECT_LT(pary.loop_iterations, binary.loop_iterations) << "phase 1 leaves each lane's binary search a shorter range";
  }
}

// Every configuration of PSA (and PSA+, greedy groups of 1-1,000 items) on the model -- split by binary or partial p-ary
// search in groups of 1-4 warps, pack from global memory, shared memory or
// chunks of 2-32 items, masses beside the items or from the weights, warps of
// 4-32 lanes, any number of sections -- writes psa()'s table.
rc::Gen<ModelConfig> gen_model_config() {
  return rc::gen::exec([] {
    ModelConfig c;
    c.split = *rc::gen::element(SplitMethod::Binary, SplitMethod::Pary);
    c.pack = *rc::gen::element(PackMethod::Global, PackMethod::Shared, PackMethod::Chunked);
    c.masses_in_lists = c.pack == PackMethod::Chunked || *rc::gen::arbitrary<bool>();
    c.width = *rc::gen::element(4, 8, 32);
    c.group_warps = *rc::gen::element(1, 2, 4);
    c.sections = *rc::gen::element<std::size_t>(0, 1, 2, 3, 7, 40, 200);
    c.shared_bytes = *rc::gen::element<std::size_t>(1024, 4096, 48 * 1024);
    c.chunk = *rc::gen::element<std::uint64_t>(2, 3, 8, 32);
    c.psa_plus_group = c.masses_in_lists ? *rc::gen::element<std::size_t>(0, 0, 1, 5, 64, 1000) : 0;
    return c;
  });
}

template <class T>
void every_model_configuration_is_psa(const std::vector<T>& w, const ModelConfig& c) {
  const auto u = to_units<T>(w);
  const auto got = psa_on_model(u, c);
  const auto want = c.psa_plus_group > 0 ? psa_plus(u, c.psa_plus_group, got.sections, {}, nullptr, nullptr, static_cast<std::size_t>(c.width))
                                         : psa(u, got.sections);
  RC_ASSERT(got.table.keep == want.keep);
  RC_ASSERT(got.table.alias == want.alias);
  RC_ASSERT(check_table(got.table, u) == std::string());
}

RC_GTEST_PROP(AliasWarp, EveryModelConfigurationIsPsaFp32, ()) {
  every_model_configuration_is_psa(gen_weights<float>(), *gen_model_config());
}

RC_GTEST_PROP(AliasWarp, EveryModelConfigurationIsPsaFp64, ()) {
  every_model_configuration_is_psa(gen_weights<double>(), *gen_model_config());
}

// Sec. 5.2.2: "l and h in shared memory ... reduces the total amount of data
// that is read from the L2 cache by 57%" (uniform weights; the thesis's l
// and h hold indices, the masses come from the weights). On the model: the
// sectors the construction's loads request, per phase, for each pack method
// (2^16 items, 48 KiB of shared memory a block, the p-ary split).
TEST(AliasWarp, PackMethodsOnTheModelsCounters) {
  const std::size_t n = 1 << 16;
  struct Row {
    const char* name;
    PackMethod pack;
    bool masses;
  };
  const Row rows[] = {{"global, indices", PackMethod::Global, false},
                      {"shared, indices", PackMethod::Shared, false},
                      {"global, with masses", PackMethod::Global, true},
                      {"shared, with masses", PackMethod::Shared, true},
                      {"chunked, with masses", PackMethod::Chunked, true}};
  for (const auto& [family, w] : {std::pair{"uniform", uniform_weights(n, 11)}, std::pair{"power law", shuffled_power_law(n)}}) {
    const auto u = to_units<double>(w);
    std::map<std::string, PhaseCounters> got;
    for (const auto& r : rows) {
      ModelConfig c;
      c.pack = r.pack;
      c.masses_in_lists = r.masses;
      const auto b = psa_on_model(u, c);
      ASSERT_EQ(b.table.keep, psa(u, b.sections).keep);
      got[r.name] = b.counters;
      std::cout << family << ", " << r.name << ": " << b.sections << " sections; sectors loaded: split "
                << b.counters.split.global_load_sectors << ", pack " << b.counters.pack.global_load_sectors << ", all phases "
                << b.counters.total().global_load_sectors << "; pack: " << b.counters.pack.shared_requests << " shared requests, "
                << b.counters.pack.shared_bank_conflicts << " bank conflicts\n";
    }
    const auto reduction = [&](const char* a, const char* b, bool total) {
      const auto x = total ? got[a].total().global_load_sectors : got[a].pack.global_load_sectors;
      const auto y = total ? got[b].total().global_load_sectors : got[b].pack.global_load_sectors;
      return 1.0 - static_cast<double>(y) / static_cast<double>(x);
    };
    std::cout << family << ": l and h in shared memory read " << 100 * reduction("global, indices", "shared, indices", false)
              << "% fewer sectors in the pack, " << 100 * reduction("global, indices", "shared, indices", true)
              << "% fewer over the whole construction (the thesis: 57% less from L2)\n";
    EXPECT_GT(reduction("global, indices", "shared, indices", false), 0.0);
  }
}

// Sec. 3.3: "Our PSA+ implementation does not perform any additional access
// to global memory that would not have been done with PSA"; Sec. 5.2.3:
// "PSA+ can greedily handle around 90% of the items" (uniform weights). On
// the model (2^16 items, groups of 1,024, a warp of 32 lanes a group, the
// chunked pack): what PSA+ packs greedily, and the sectors each moves.
TEST(AliasWarp, PsaPlusOnTheModelsCounters) {
  const std::size_t n = 1 << 16;
  for (const auto& [family, w] : {std::pair{"uniform", uniform_weights(n, 5)}, std::pair{"power law", shuffled_power_law(n)}}) {
    const auto u = to_units<double>(w);
    ModelConfig c;
    const auto psa_build = psa_on_model(u, c);
    c.psa_plus_group = 1024;
    const auto plus = psa_on_model(u, c);
    ASSERT_EQ(plus.table.keep, psa_plus(u, 1024, plus.sections, {}, nullptr, nullptr, 32).keep);
    const auto a = psa_build.counters.total(), b = plus.counters.total();
    const double greedy = static_cast<double>(plus.psa_plus.greedy_rows) / static_cast<double>(n);
    std::cout << family << ": PSA+ packs " << 100 * greedy << "% of the rows greedily (" << plus.psa_plus.left
              << " items left to PSA); sectors loaded " << b.global_load_sectors << " (PSA " << a.global_load_sectors << "), stored "
              << b.global_sectors - b.global_load_sectors << " (PSA " << a.global_sectors - a.global_load_sectors << ")\n";
    EXPECT_LE(b.global_load_sectors, a.global_load_sectors);
    EXPECT_LE(b.global_sectors - b.global_load_sectors, a.global_sectors - a.global_load_sectors);
  }
}

// Sectioned sampling on the model (a warp a section, the section's rows in
// shared memory) makes sample_sectioned()'s draws, index for index.
RC_GTEST_PROP(AliasWarp, SectionedSamplingOnTheModelIsTheDefinition, ()) {
  const auto w = gen_weights<double>();
  const auto u = to_units<double>(w);
  const auto t = psa(u, 3);
  const auto section_rows = *rc::gen::element<std::size_t>(1, 2, 3, 7, 64, 1000);
  const auto n = *rc::gen::element<std::uint64_t>(0, 1, 31, 100, 1000);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto first = *rc::gen::element<std::uint64_t>(0, 1, 1000, std::uint64_t{1} << 40);  // the batch's first draw
  const auto got = sample_sectioned_on_model(t, section_rows, n, seed, *rc::gen::element(4, 32), first);
  RC_ASSERT(got.draws == sample_sectioned(t, section_rows, n, seed, first));
}

// What a sectioned draw reads, against the baseline (2^12 rows, 2^16 draws):
// the baseline's draws each touch a row of the table in global memory; the
// sectioned warps read each row of their section once, coalesced, and then
// draw from shared memory.
TEST(AliasWarp, SectionedAndBaselineSamplingOnTheModelsCounters) {
  const auto u = to_units<double>(uniform_weights(1 << 12, 3));
  const auto t = psa(u, 64);
  const std::uint64_t n = 1 << 16;
  const auto sectioned = sample_sectioned_on_model(t, 1024, n, 9);
  warpsim::sim::GlobalMemory mem;
  const auto dt = upload_table(mem, t);
  warpsim::sim::Warp warp({.width = 32});
  for (std::uint64_t first = 0; first < n; first += 32) sample_warp(warp, mem, dt, 9, first);
  const auto& b = warp.counters();
  const auto& s = sectioned.counters;
  std::cout << "2^16 draws from 2^12 rows: baseline " << b.global_load_sectors << " sectors loaded (" << static_cast<double>(b.global_load_sectors) / n
            << " a draw); sectioned (sections of 1,024 rows) " << s.global_load_sectors << " loaded, " << s.global_sectors - s.global_load_sectors
            << " stored, " << s.shared_requests << " shared requests, " << s.shared_bank_conflicts << " bank conflicts\n";
  EXPECT_LT(s.global_load_sectors, b.global_load_sectors);
}

// Seed 001, Alg. 3.2 as printed (errata E17): packUntilChunkEnd's
// `while true` leaves only when "light or heavy array ran out of items", so a
// thread never stops at its section's end and "Mark thread as finished" is
// never reached: each thread packs on to the end of the lists. Every thread
// follows the one merge path, so the table is still right, but s sections do
// the work of s (s + 1) / 2 -- the split bought nothing.
TEST(AliasErrata, E17ChunkedPackAsPrintedRunsPastItsSection) {
  const auto u = to_units<double>(uniform_weights(4096, 13));
  const auto p = partition(u);
  const std::size_t n = p.size(), sections = 8;
  auto as_printed = empty_table(u);
  WriteOrder written;
  std::size_t steps = 0;
  for (std::size_t q = 0; q < sections; ++q) {
    const std::size_t k = q * n / sections;
    pack(p, u.total, split(p, k), n, as_printed, &written);  // no section end: on until the lists run out
    steps += n - k;
  }
  EXPECT_EQ(as_printed.keep, psa(u, sections).keep) << "the same rows, written again and again";
  std::cout << "Alg. 3.2 as printed, " << sections << " sections of " << n << " steps: " << steps << " steps packed (" 
            << static_cast<double>(steps) / static_cast<double>(n) << "x the sweep), " << written.size() << " row writes for " << n << " rows\n";
  EXPECT_EQ(static_cast<double>(steps) / static_cast<double>(n), (sections + 1) / 2.0);
  EXPECT_GT(written.size(), n);
  // With the section's end as an exit (pack_chunked.hpp), each row is written once.
  WriteOrder once;
  auto fixed = empty_table(u);
  split_and_pack(p, u.total, sections, {}, fixed, &once);
  EXPECT_LE(once.size(), n);
}

// Seed 001, Alg. 3.1, run as printed (errata E15).
namespace printed {
// function binarySearch(l, x, (a, b)): while a - b > 1 do s := (a + b) / 2;
// if l_s > x then b := s else a := s + 1; return a
long binary_search(const std::vector<long>& l, long x, long a, long b, bool loop_as_printed) {
  while (loop_as_printed ? a - b > 1 : b - a > 1) {
    const long s = (a + b) / 2;
    if (l[static_cast<std::size_t>(s)] > x) b = s; else a = s + 1;
  }
  return a;
}
// The pivots of partialParySearch: s_t := a + t (b - a) / (p - 1), for the
// threads of x_1 .. x_p.
long pivot(long a, long b, long t, long p) { return a + t * (b - a) / (p - 1); }
}  // namespace printed

TEST(AliasErrata, E15PartialParySearchAsPrinted) {
  std::vector<long> l(100);
  std::iota(l.begin(), l.end(), 0);
  // The first element greater than x = 50 is at 51.
  const auto upper = std::upper_bound(l.begin(), l.end(), 50L) - l.begin();
  EXPECT_EQ(upper, 51);
  // As printed: a - b > 1 is false whenever a < b, so the loop never runs.
  EXPECT_EQ(printed::binary_search(l, 50, 0, 100, true), 0) << "returns the range's start";
  // With b - a > 1 it stops with two candidates and does not look at a:
  EXPECT_EQ(printed::binary_search({0, 1, 2}, 5, 0, 3, false), 2) << "the answer is 3";
  // The loop the oracle uses (split_warp.hpp) runs while a < b: every x.
  for (long x = -1; x <= 100; ++x) {
    long a = 0, b = 100;
    while (a < b) {
      const long s = (a + b) / 2;
      if (l[static_cast<std::size_t>(s)] > x) b = s; else a = s + 1;
    }
    EXPECT_EQ(a, std::upper_bound(l.begin(), l.end(), x) - l.begin());
  }
  // Threads t = 1 .. p (the items are x_1 .. x_p) put the last pivot past b:
  EXPECT_GT(printed::pivot(0, 100, 32, 32), 100) << "s_p reads beyond the search range (and the list when b = N)";
  // t = 0 .. p - 1 spans [a, b] exactly.
  EXPECT_EQ(printed::pivot(0, 100, 0, 32), 0);
  EXPECT_EQ(printed::pivot(0, 100, 31, 32), 100);
}

}  // namespace
