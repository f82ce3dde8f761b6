// `warpsim show alias-sample` (cli/alias_view.hpp): the view's items are the
// definition's draws, baseline and sectioned, and its splits add up.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/alias_view.hpp"
#include "cli/errors.hpp"
#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/sectioned.hpp"
#include "oracle/alias/sweep.hpp"

using namespace warpsim;

namespace {
const std::vector<double> kSampleWeights{1, 2, 3, 4, 0, 5, 0.5, 7, 1, 1, 2, 9, 3, 0, 4, 4, 1};
}

TEST(AliasSampleView, BaselineItemsAreTheDefinitionsDraws) {
  const auto t = oracle::alias::sweep(oracle::alias::to_units<double>(kSampleWeights));
  const cli::Layout layout = cli::alias_sample_layout(kSampleWeights, "sweep", 2, 4, 16, 5, std::nullopt, 64);
  const cli::Frame& last = layout.frames.back();
  ASSERT_EQ(last.grid.size(), 16u);
  for (int l = 0; l < 16; ++l) {
    const std::string item = last.grid[static_cast<std::size_t>(l)][3];
    EXPECT_EQ(item.substr(0, item.find(' ')), std::to_string(oracle::alias::draw(t, 5, static_cast<std::uint64_t>(l)))) << "draw " << l;
  }
}

TEST(AliasSampleView, SectionedSplitsAddUpAndDrawsAreTheDefinitions) {
  const auto t = oracle::alias::sweep(oracle::alias::to_units<double>(kSampleWeights));
  const std::uint64_t n = 40;
  const cli::Layout layout = cli::alias_sample_layout(kSampleWeights, "sweep", 2, 4, 8, 9, std::size_t{3}, n);
  const auto want_sections = oracle::alias::sections(t.size(), 3, n, 9);
  const auto want_draws = oracle::alias::sample_sectioned(t, 3, n, 9);
  const cli::Frame& last = layout.frames.back();
  const std::size_t depth_row = last.grid.size() - 2;  // the sections' shares
  ASSERT_EQ(last.grid[depth_row].size(), want_sections.size());
  std::size_t at = 0;
  for (std::size_t j = 0; j < want_sections.size(); ++j) {
    EXPECT_EQ(last.grid[depth_row][j], std::to_string(want_sections[j].draws)) << "section " << j;
    std::string list;
    for (std::uint64_t q = 0; q < want_sections[j].draws; ++q, ++at)
      if (q < 6) list += (q ? "," : "") + std::to_string(want_draws[at]);
    if (want_sections[j].draws > 6) list += ",...";
    EXPECT_EQ(last.grid.back()[j], list) << "section " << j;
  }
}

TEST(AliasSampleView, RefusesTooManySections) {
  std::vector<double> w(512, 1.0);
  EXPECT_THROW(cli::alias_sample_layout(w, "sweep", 2, 4, 8, 1, std::size_t{0}, 10), std::invalid_argument);
  EXPECT_NO_THROW(cli::alias_sample_layout(w, "sweep", 2, 4, 8, 1, std::size_t{1}, 10));
}
