// What the model counts when the seeds' algorithms draw, and what a lane's
// draw depends on. (Which index each algorithm draws is a property of every
// registered sampler: tests/property/registry_properties.cpp.)
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <vector>

#include "generators.hpp"
#include "oracle/butterfly_draw.hpp"
#include "oracle/draw_matrix.hpp"
#include "oracle/prefix_draw.hpp"
#include "properties/properties.hpp"

using namespace warpsim;

namespace {

float uniform24(std::uint32_t bits) { return static_cast<float>(bits >> 8) * 0x1p-24f; }

// m rows of k weights of one family, row after row.
std::vector<float> rows_of(properties::WeightFamily family, int m, int k) {
  return (*properties::gen_matrix<float>(family, m, k, *properties::gen_seed())).weights;
}

sim::Reg<float> uniforms(int w) {
  sim::Reg<float> u("u");
  for (int l = 0; l < w; ++l) u[l] = uniform24(*rc::gen::arbitrary<std::uint32_t>());
  return u;
}

}  // namespace

RC_GTEST_PROP(DrawProperties, ButterflyShufflesAreWMinus1PerBlockAnd2WMinus2ToSearch, ()) {
  const int w = *warpsim::sim_gen::gen_warp_width();
  const int k = *rc::gen::inRange(1, 3 * w + 40);
  const int m = *rc::gen::inRange(1, w + 1);  // a last warp may be partly empty
  const auto variant = *rc::gen::element(oracle::ButterflyVariant::Standard, oracle::ButterflyVariant::AddSub);
  const auto weights = rows_of(*properties::gen_family(), m, k);
  sim::GlobalMemory mem;
  const auto matrix = oracle::upload_matrix<float>(mem, weights, m, k);
  sim::Warp warp({.width = w});
  const auto draws = oracle::butterfly_draw(warp, mem, matrix, 0, uniforms(w), variant);
  RC_ASSERT(draws.index.size() == static_cast<std::size_t>(m));
  const std::uint64_t blocks = static_cast<std::uint64_t>(k / w);
  RC_ASSERT(draws.counters.shuffles() == blocks * static_cast<std::uint64_t>(w - 1) + (blocks > 0 ? 2u * static_cast<std::uint64_t>(w - 1) : 0u));
  RC_ASSERT(draws.counters.count(sim::Op::IndexedRegister) == 0u);
}

RC_GTEST_PROP(DrawProperties, RegisterTransposeShufflesAreHalfWLog2WPerBlock, ()) {
  const int w = *warpsim::sim_gen::gen_warp_width();
  const int k = *rc::gen::inRange(1, 3 * w + 40);
  const auto weights = rows_of(*properties::gen_family(), w, k);
  sim::GlobalMemory mem;
  const auto matrix = oracle::upload_matrix<float>(mem, weights, w, k);
  sim::Warp warp({.width = w});
  const auto draws = oracle::transposed_draw(warp, mem, matrix, 0, uniforms(w), oracle::SearchKind::Binary, oracle::TransposeBy::Registers);
  const auto transposes = static_cast<std::uint64_t>(k / w);
  RC_ASSERT(draws.counters.shuffles() == transposes * static_cast<std::uint64_t>(w / 2 * sim::log2_exact(w)));
}

// A lane's index does not depend on the other lanes' weights or uniforms
// (what lets the oracle replay the LDA workload in blocks of W rows).
RC_GTEST_PROP(DrawProperties, ALanesIndexDoesNotDependOnItsWarpMatesData, ()) {
  const int k = *rc::gen::inRange(1, 100);
  const int m = 32;
  const int lane = *rc::gen::inRange(0, m);
  auto weights = rows_of(*properties::gen_family(), m, k);
  std::vector<float> u(static_cast<std::size_t>(m));
  for (auto& x : u) x = uniform24(*rc::gen::arbitrary<std::uint32_t>());
  const auto algo = *rc::gen::element(oracle::Algorithm::TransposedRegisters, oracle::Algorithm::ButterflyStandard, oracle::Algorithm::ButterflyAddSub);
  sim::GlobalMemory mem;
  const auto before = oracle::draw_matrix<float>(mem, oracle::upload_matrix<float>(mem, weights, m, k), u, algo);
  // new data and uniforms everywhere but `lane`
  auto others = rows_of(*properties::gen_family(), m, k);
  for (int r = 0; r < m; ++r) {
    if (r == lane) continue;
    std::copy_n(others.begin() + static_cast<std::ptrdiff_t>(r * k), k, weights.begin() + static_cast<std::ptrdiff_t>(r * k));
    u[static_cast<std::size_t>(r)] = uniform24(*rc::gen::arbitrary<std::uint32_t>());
  }
  const auto after = oracle::draw_matrix<float>(mem, oracle::upload_matrix<float>(mem, weights, m, k), u, algo);
  RC_ASSERT(after.index[static_cast<std::size_t>(lane)] == before.index[static_cast<std::size_t>(lane)]);
}
