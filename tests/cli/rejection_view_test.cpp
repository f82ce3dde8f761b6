// `warpsim show rejection` (cli/rejection_view.hpp): each call's draws are
// the definition's, uncached and pre-cached; idle lanes are the ones seed
// 004 counts; a pre-cached run never takes more iterations than an uncached
// one of the same draws.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/rejection_view.hpp"
#include "oracle/rejection/bringmann_larsen.hpp"

using namespace warpsim;

namespace {
const std::vector<double> kRejectionWeights{1, 2, 3, 4, 0, 5, 0.5, 7, 1, 1, 2, 9, 3};
}

TEST(RejectionView, EachCallsDrawsAreTheDefinitions) {
  const auto s = oracle::rejection::build(oracle::alias::to_units<double>(kRejectionWeights));
  for (bool cached : {false, true}) {
    const cli::Layout layout = cli::rejection_layout(kRejectionWeights, 8, cached, 3, 4);
    int calls_seen = 0;
    for (const auto& f : layout.frames) {
      const auto at = f.title.find("; call ");
      if (at == std::string::npos) continue;
      std::istringstream in(f.title.substr(at + 7));
      std::uint64_t call = 0;
      std::string word;
      in >> call >> word;
      ASSERT_EQ(word, "draws");
      for (int l = 0; l < 8; ++l) {
        std::uint32_t item = 0;
        in >> item;
        EXPECT_EQ(item, oracle::rejection::draw(s, 3, call * 8 + static_cast<std::uint64_t>(l))) << "call " << call << ", lane " << l;
      }
      ++calls_seen;
    }
    EXPECT_EQ(calls_seen, 4) << cached;
  }
  EXPECT_LE(cli::rejection_layout(kRejectionWeights, 8, true, 3, 4).steps, cli::rejection_layout(kRejectionWeights, 8, false, 3, 4).steps);
}

TEST(RejectionView, IdleLanesAreMarked) {
  const cli::Layout layout = cli::rejection_layout(kRejectionWeights, 16, false, 5, 1);
  const auto& last = layout.frames.back();
  // the last iteration of an uncached call: only lanes still rejected attempt
  int idle = 0;
  for (const auto& row : last.grid) idle += row.back() == ".";
  EXPECT_GT(idle, 0);
  EXPECT_THROW(cli::rejection_layout(kRejectionWeights, 8, false, 1, 17), cli::UsageError);
  EXPECT_THROW(cli::rejection_layout({0.0, 0.0}, 8, false, 1, 1), cli::UsageError);
}
