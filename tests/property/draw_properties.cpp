// Every algorithm draws the index the scalar definition gives, for the same u,
// where all partial sums are exact (integer weights of bounded size).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <vector>

#include "generators.hpp"
#include "oracle/butterfly_draw.hpp"
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
