// `warpsim show sum-tree` (cli/sum_tree_view.hpp): the view's last depth is
// each draw's column, the scalar definition's draw; each depth narrows the
// one above it.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/sum_tree_view.hpp"
#include "oracle/sum_tree.hpp"
#include "rng/philox_uniform.hpp"

using namespace warpsim;

TEST(SumTreeView, LastDepthIsTheDefinitionsDraw) {
  for (std::size_t k : {std::size_t{1}, std::size_t{100}, std::size_t{4096}, std::size_t{4097}, std::size_t{20000}, std::size_t{70000}}) {
    std::mt19937 rng(static_cast<std::uint32_t>(k));
    std::vector<float> w(k);
    for (auto& x : w) x = rng() % 5 == 0 ? 0.0f : static_cast<float>(rng() % 1000) / 7.0f;
    w[k / 2] = 1;
    const std::uint64_t seed = 11;
    const cli::Layout layout = cli::sum_tree_layout(w, seed, 4);
    const cli::Frame& last = layout.frames.back();
    ASSERT_EQ(layout.frames.size(), static_cast<std::size_t>(layout.steps));
    ASSERT_EQ(last.grid.back().size(), 32u);
    for (int s = 0; s < 32; ++s) {
      const auto want = oracle::sum_tree::draw(std::span<const float>(w), rng::uniform<double>(seed, 0, static_cast<std::uint32_t>(s)));
      EXPECT_EQ(last.grid.back()[static_cast<std::size_t>(s)], std::to_string(want)) << "K " << k << ", draw " << s;
    }
    EXPECT_EQ(last.highlighted.size(), last.grid.size());  // draw 4's whole path
  }
}

TEST(SumTreeView, RefusesWhatItCannotDraw) {
  EXPECT_THROW(cli::sum_tree_layout({}, 1, std::nullopt), cli::UsageError);
  EXPECT_THROW(cli::sum_tree_layout({0.0f, 0.0f}, 1, std::nullopt), cli::UsageError);
  EXPECT_THROW(cli::sum_tree_layout({1.0f, -1.0f}, 1, std::nullopt), cli::UsageError);
  EXPECT_THROW(cli::sum_tree_layout({1.0f}, 1, 32), cli::UsageError);
}
