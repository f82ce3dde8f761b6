// Past shared memory the butterfly kernels keep only block sums and recompute
// the nodes of Alg. 10's search path from the lane's own weights
// (gpu/detail/butterfly_search.hpp, draw_butterfly_recompute). These properties run
// that recomputation on the host -- the same header the kernels compile --
// against the oracle's Alg. 7-10, which builds and keeps the whole table.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <span>
#include <vector>

#include "gpu/detail/butterfly_search.hpp"
#include "oracle/butterfly_draw.hpp"
#include "oracle/butterfly_table.hpp"
#include "properties/properties.hpp"

using namespace warpsim;
using gpu::detail::RowTree;

namespace {

// The lane's own weights, as the kernels' weight sources give them.
template <class T>
struct HostRow {
  std::span<const T> row;
  void own_block(int j, T (&x)[32]) const { std::memcpy(x, row.data() + j, sizeof x); }
};

// draw_butterfly_recompute for one lane, on the host. The first pass adds
// each block's total as RowTree::total() (what the butterfly's last row holds:
// RowTreeTotalIsTheButterflysLastRow below); the second half is the kernels'
// own gpu::detail::butterfly_recompute_search (gpu/detail/butterfly_search.hpp), run
// on the host over the same strided sums.
template <class T, bool AddSub>
int recompute_draw(std::span<const T> row, int lane, T u) {
  using gpu::detail::add_rn;
  constexpr int kW = gpu::detail::kW;
  const int k = static_cast<int>(row.size()), r = k % kW, blocks = k / kW;
  std::vector<T> q(static_cast<std::size_t>(r + blocks) * kW);  // q[i * W], as a lane keeps it
  T sum = 0;
  for (int j = 0; j < r; ++j) q[static_cast<std::size_t>(j) * kW] = sum = add_rn(sum, row[static_cast<std::size_t>(j)]);
  for (int b = 0; b < blocks; ++b) {
    RowTree<T, AddSub> tree;
    std::memcpy(tree.x, row.data() + r + kW * b, sizeof tree.x);
    tree.build();
    q[static_cast<std::size_t>(r + b) * kW] = sum = add_rn(sum, tree.total());
  }
  return gpu::detail::butterfly_recompute_search<T, AddSub>(HostRow<T>{row}, q.data(), k, lane, gpu::detail::scaled_target(sum, u));
}

template <class T>
void check_against_oracle(oracle::ButterflyVariant variant) {
  const int k = *rc::gen::inRange(32, 200);
  const auto family = *properties::gen_family();
  RC_TAG(properties::family_name(family));
  std::vector<T> weights;
  for (int l = 0; l < 32; ++l) {
    const auto row = *properties::gen_weights<T>(family, k);
    weights.insert(weights.end(), row.begin(), row.end());
  }
  sim::Reg<T> u("u");
  for (int l = 0; l < 32; ++l) u[l] = static_cast<T>(*rc::gen::inRange<std::uint32_t>(0, 1u << 24)) * static_cast<T>(0x1p-24);
  sim::GlobalMemory mem;
  const auto matrix = oracle::upload_matrix<T>(mem, weights, 32, k);
  sim::Warp warp({.width = 32});
  const auto draws = oracle::butterfly_draw(warp, mem, matrix, 0, u, variant);
  for (int l = 0; l < 32; ++l) {
    const std::span<const T> row(weights.data() + static_cast<std::size_t>(l) * static_cast<std::size_t>(k), static_cast<std::size_t>(k));
    const int got = variant == oracle::ButterflyVariant::AddSub ? recompute_draw<T, true>(row, l, u[l]) : recompute_draw<T, false>(row, l, u[l]);
    RC_ASSERT(got == draws.index[static_cast<std::size_t>(l)]);
  }
}

}  // namespace

RC_GTEST_PROP(RecomputeProperties, RecomputedSearchPathDrawsWhatTheWholeTableDraws, ()) {
  const auto variant = *rc::gen::element(oracle::ButterflyVariant::Standard, oracle::ButterflyVariant::AddSub);
  RC_TAG(variant == oracle::ButterflyVariant::AddSub ? "add-subtract" : "standard");
  if (*rc::gen::arbitrary<bool>()) {
    check_against_oracle<float>(variant);
  } else {
    check_against_oracle<double>(variant);
  }
}

RC_GTEST_PROP(RecomputeProperties, RowTreeTotalIsTheButterflysLastRow, ()) {
  // The first pass adds the butterfly's last row to the running sum; the
  // host replica above adds RowTree::total(): the same bits, lane by lane.
  const auto variant = *rc::gen::element(oracle::ButterflyVariant::Standard, oracle::ButterflyVariant::AddSub);
  const auto family = *properties::gen_family();
  std::vector<float> x;
  for (int l = 0; l < 32; ++l) {
    const auto row = *properties::gen_weights<float>(family, 32);
    x.insert(x.end(), row.begin(), row.end());  // row l = lane l's weights
  }
  sim::RegArray<float> a("a", 32);
  for (int reg = 0; reg < 32; ++reg)
    for (int lane = 0; lane < 32; ++lane) a[reg][lane] = x[static_cast<std::size_t>(reg * 32 + lane)];  // transposed access
  sim::Warp warp({.width = 32});
  oracle::butterfly_build(warp, a, variant);
  for (int l = 0; l < 32; ++l) {
    RowTree<float, false> tree;
    std::memcpy(tree.x, x.data() + l * 32, sizeof tree.x);
    tree.build();
    const float total = tree.total();
    RC_ASSERT(std::memcmp(&total, &a[31][l], sizeof total) == 0);
  }
}
