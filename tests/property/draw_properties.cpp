// Every algorithm draws the index the scalar definition gives, for the same u,
// where all partial sums are exact (integer weights of bounded size).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <vector>

#include "generators.hpp"
#include "weight_generators.hpp"
#include "oracle/butterfly_draw.hpp"
#include "oracle/draw_matrix.hpp"
#include "oracle/prefix_draw.hpp"
#include "oracle/reference.hpp"

using namespace warpsim;

namespace {

// Integer weights below 2^12 with K <= 2^11: every partial sum is below 2^23,
// so exact in float, whatever order the algorithm adds in.
rc::Gen<std::vector<float>> gen_exact_row(int k) {
  return rc::gen::container<std::vector<float>>(
      static_cast<std::size_t>(k),
      rc::gen::oneOf(rc::gen::just(0.0f), rc::gen::map(rc::gen::inRange(0, 4096), [](int v) { return static_cast<float>(v); })));
}

float uniform24(std::uint32_t bits) { return static_cast<float>(bits >> 8) * 0x1p-24f; }

// m rows of k weights of one family, row after row.
std::vector<float> rows_of(warpsim::testing::WeightFamily family, int m, int k) {
  std::vector<float> weights;
  for (int r = 0; r < m; ++r) {
    const auto row = *warpsim::testing::gen_weights<float>(family, k);
    weights.insert(weights.end(), row.begin(), row.end());
  }
  return weights;
}

// One 24-bit uniform in [0, 1) per lane.
sim::Reg<float> uniforms(int w) {
  sim::Reg<float> u("u");
  for (int l = 0; l < w; ++l) u[l] = uniform24(*rc::gen::arbitrary<std::uint32_t>());
  return u;
}

}  // namespace

RC_GTEST_PROP(DrawProperties, ButterflyEqualsTheScalarDefinitionOnExactSums, ()) {
  const int w = *warpsim::testing::gen_warp_width();
  const int k = *rc::gen::inRange(1, 3 * w + 40);
  const int m = *rc::gen::inRange(1, w + 1);  // a last warp may be partly empty
  const auto variant = *rc::gen::element(oracle::ButterflyVariant::Standard, oracle::ButterflyVariant::AddSub);
  std::vector<float> weights;
  for (int r = 0; r < m; ++r) {
    auto row = *rc::gen::suchThat(gen_exact_row(k), [](const std::vector<float>& v) {
      for (float x : v) if (x > 0) return true;
      return false;
    });
    weights.insert(weights.end(), row.begin(), row.end());
  }
  sim::GlobalMemory mem;
  const auto matrix = oracle::upload_matrix<float>(mem, weights, m, k);
  sim::Reg<float> u("u");
  for (int l = 0; l < w; ++l) u[l] = uniform24(*rc::gen::arbitrary<std::uint32_t>());
  sim::Warp warp({.width = w});
  const auto draws = oracle::butterfly_draw(warp, mem, matrix, 0, u, variant);
  RC_ASSERT(draws.index.size() == static_cast<std::size_t>(m));
  for (int r = 0; r < m; ++r) {
    const std::span<const float> row(weights.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(k), static_cast<std::size_t>(k));
    RC_ASSERT(draws.index[static_cast<std::size_t>(r)] == oracle::reference_draw(row, u[r]));
  }
  // Shuffles, as the model counts them: W - 1 per block built, 2(W - 1) to search one.
  const std::uint64_t blocks = static_cast<std::uint64_t>(k / w);
  RC_ASSERT(draws.counters.shuffles() == blocks * static_cast<std::uint64_t>(w - 1) + (blocks > 0 ? 2u * static_cast<std::uint64_t>(w - 1) : 0u));
  RC_ASSERT(draws.counters.count(sim::Op::IndexedRegister) == 0u);
}

RC_GTEST_PROP(DrawProperties, PrefixAlgorithmsEqualTheScalarDefinitionOnExactSums, ()) {
  const int w = *warpsim::testing::gen_warp_width();
  const int k = *rc::gen::inRange(1, 3 * w + 40);
  const int m = *rc::gen::inRange(1, w + 1);
  std::vector<float> weights;
  for (int r = 0; r < m; ++r) {
    auto row = *gen_exact_row(k);
    row[static_cast<std::size_t>(*rc::gen::inRange(0, k))] += 1.0f;  // never all zero
    weights.insert(weights.end(), row.begin(), row.end());
  }
  sim::Reg<float> u("u");
  for (int l = 0; l < w; ++l) u[l] = uniform24(*rc::gen::arbitrary<std::uint32_t>());
  for (auto search : {oracle::SearchKind::Linear, oracle::SearchKind::Binary}) {
    for (int algo = 0; algo < 3; ++algo) {
      sim::GlobalMemory mem;
      const auto matrix = oracle::upload_matrix<float>(mem, weights, m, k);
      sim::Warp warp({.width = w});
      const auto draws = algo == 0 ? oracle::baseline_draw(warp, mem, matrix, 0, u, search)
                                   : oracle::transposed_draw(warp, mem, matrix, 0, u, search,
                                                             algo == 1 ? oracle::TransposeBy::Memory : oracle::TransposeBy::Registers);
      for (int r = 0; r < m; ++r) {
        const std::span<const float> row(weights.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(k), static_cast<std::size_t>(k));
        RC_ASSERT(draws.index[static_cast<std::size_t>(r)] == oracle::reference_draw(row, u[r]));
      }
      if (algo == 2) {
        const auto transposes = static_cast<std::uint64_t>(k / w);
        RC_ASSERT(draws.counters.shuffles() == transposes * static_cast<std::uint64_t>(w / 2 * sim::log2_exact(w)));
      }
    }
  }
}

// The prefix-sum algorithms add in the scalar definition's order, so they
// agree with it bit for bit on any weights, exact or not.
RC_GTEST_PROP(DrawProperties, PrefixAlgorithmsEqualTheScalarDefinitionOnAnyWeights, ()) {
  const int w = *warpsim::testing::gen_warp_width();
  const int k = *rc::gen::inRange(1, 2 * w + 20);
  const auto family = *warpsim::testing::gen_family();
  RC_TAG(warpsim::testing::family_name(family));
  const auto weights = rows_of(family, w, k);
  const auto u = uniforms(w);
  sim::GlobalMemory mem;
  const auto matrix = oracle::upload_matrix<float>(mem, weights, w, k);
  sim::Warp w1({.width = w}), w2({.width = w});
  const auto base = oracle::baseline_draw(w1, mem, matrix, 0, u, oracle::SearchKind::Binary);
  const auto trans = oracle::transposed_draw(w2, mem, matrix, 0, u, oracle::SearchKind::Linear, oracle::TransposeBy::Registers);
  for (int r = 0; r < w; ++r) {
    const std::span<const float> row(weights.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(k), static_cast<std::size_t>(k));
    const int ref = oracle::reference_draw(row, u[r]);
    RC_ASSERT(base.index[static_cast<std::size_t>(r)] == ref);
    RC_ASSERT(trans.index[static_cast<std::size_t>(r)] == ref);
  }
}

// The butterfly adds in another order, so where sums round it may disagree
// with the scalar definition -- but only where u * total lies within the
// rounding bound of a bucket boundary. Bound: every computed partial sum,
// running value and compare value of either algorithm is a sum (or a
// difference of two sums) of at most K + 1 roundings of non-negative terms
// bounded by the exact total S, so it is within gamma = 2(K + 2) eps S of its
// exact value (eps = 2^-24, the unit roundoff of float); the target u' = S u
// likewise. Each algorithm's answer j therefore satisfies
// P[j - 1] - 2 gamma <= S u < P[j] + 2 gamma with P exact (long double).
RC_GTEST_PROP(DrawProperties, ButterflyDisagreesOnlyWithinTheRoundingBound, ()) {
  const int w = *warpsim::testing::gen_warp_width();
  const int k = *rc::gen::inRange(1, 3 * w + 20);
  const auto family = *warpsim::testing::gen_family();
  const auto variant = *rc::gen::element(oracle::ButterflyVariant::Standard, oracle::ButterflyVariant::AddSub);
  RC_TAG(warpsim::testing::family_name(family));
  const auto weights = rows_of(family, w, k);
  const auto u = uniforms(w);
  sim::GlobalMemory mem;
  const auto matrix = oracle::upload_matrix<float>(mem, weights, w, k);
  sim::Warp warp({.width = w});
  const auto draws = oracle::butterfly_draw(warp, mem, matrix, 0, u, variant);
  for (int r = 0; r < w; ++r) {
    const std::span<const float> row(weights.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(k), static_cast<std::size_t>(k));
    const int ref = oracle::reference_draw(row, u[r]);
    const int got = draws.index[static_cast<std::size_t>(r)];
    RC_ASSERT(got >= 0 && got < k);
    if (got == ref) continue;
    std::vector<long double> prefix(static_cast<std::size_t>(k));
    long double s = 0;
    for (int j = 0; j < k; ++j) prefix[static_cast<std::size_t>(j)] = s += row[static_cast<std::size_t>(j)];
    const long double gamma = 2.0L * (k + 2) * 0x1p-24L * s;
    const long double t = s * static_cast<long double>(u[r]);
    for (int j : {ref, got}) {
      const long double below = j > 0 ? prefix[static_cast<std::size_t>(j - 1)] : 0.0L;
      RC_ASSERT(below - 2 * gamma <= t);
      RC_ASSERT(t < prefix[static_cast<std::size_t>(j)] + 2 * gamma || j == k - 1);
    }
    RC_TAG("disagreement within bound");
  }
}

// A lane's index does not depend on the other lanes' weights or uniforms
// (what lets the oracle replay the LDA workload in blocks of W rows).
RC_GTEST_PROP(DrawProperties, ALanesIndexDoesNotDependOnItsWarpMatesData, ()) {
  const int k = *rc::gen::inRange(1, 100);
  const int m = 32;
  const int lane = *rc::gen::inRange(0, m);
  auto weights = rows_of(*warpsim::testing::gen_family(), m, k);
  std::vector<float> u(static_cast<std::size_t>(m));
  for (auto& x : u) x = uniform24(*rc::gen::arbitrary<std::uint32_t>());
  const auto algo = *rc::gen::element(oracle::Algorithm::TransposedRegisters, oracle::Algorithm::ButterflyStandard, oracle::Algorithm::ButterflyAddSub);
  sim::GlobalMemory mem;
  const auto before = oracle::draw_matrix<float>(mem, oracle::upload_matrix<float>(mem, weights, m, k), u, algo);
  // new data and uniforms everywhere but `lane`
  auto others = rows_of(*warpsim::testing::gen_family(), m, k);
  for (int r = 0; r < m; ++r) {
    if (r == lane) continue;
    std::copy_n(others.begin() + static_cast<std::ptrdiff_t>(r * k), k, weights.begin() + static_cast<std::ptrdiff_t>(r * k));
    u[static_cast<std::size_t>(r)] = uniform24(*rc::gen::arbitrary<std::uint32_t>());
  }
  const auto after = oracle::draw_matrix<float>(mem, oracle::upload_matrix<float>(mem, weights, m, k), u, algo);
  RC_ASSERT(after.index[static_cast<std::size_t>(lane)] == before.index[static_cast<std::size_t>(lane)]);
}
