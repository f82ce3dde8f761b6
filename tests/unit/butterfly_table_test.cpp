// The butterfly-patterned table of one W x W block (seed 000, Sec. 3, Alg. 8),
// built on the model symbolically and numerically, against the seed's
// figures, its closed form and its listings as printed.
#include <gtest/gtest.h>

#include <numeric>

#include "oracle/butterfly_closed_form.hpp"
#include "oracle/butterfly_table.hpp"
#include "oracle/layouts.hpp"
#include "sim/register_grid.hpp"

using namespace warpsim;
using oracle::ButterflyVariant;

namespace {

sim::RegArray<sim::Sym> built(int w, ButterflyVariant v, sim::Counters* counters = nullptr) {
  sim::Warp warp({.width = w});
  auto a = oracle::transposed_layout(w);
  oracle::butterfly_build(warp, a, v);
  if (counters) *counters = warp.counters();
  return a;
}

std::string row_text(const sim::RegArray<sim::Sym>& a, int row, int w) {
  std::string s;
  for (int l = 0; l < w; ++l) s += (l ? " " : "") + a[row][l].to_string(sim::SymStyle::Range);
  return s;
}

}  // namespace

TEST(ButterflyTable, BuildTakesWMinusOneShufflesForEveryWidth) {
  for (int w = 2; w <= 64; w *= 2) {
    for (auto v : {ButterflyVariant::Standard, ButterflyVariant::AddSub}) {
      sim::Counters c;
      const auto a = built(w, v, &c);
      EXPECT_EQ(c.shuffles(), static_cast<std::uint64_t>(w - 1)) << "W = " << w;
      EXPECT_EQ(c.count(sim::Op::ShflXor), static_cast<std::uint64_t>(w - 1));
      // Row W - 1 ("S" in the figures) holds each lane's own total.
      for (int l = 0; l < w; ++l) EXPECT_EQ(a[w - 1][l], sim::Sym::range(l, 0, w - 1)) << "W = " << w << " lane " << l;
    }
  }
}

TEST(ButterflyTable, StandardVariantReproducesSeed000Fig4) {
  // Rows of Fig. 4 (and of seed 002's slides) for W = 16, row 0 first.
  const auto a = built(16, ButterflyVariant::Standard);
  EXPECT_EQ(row_text(a, 0, 16),
            "A0:0 B0:0 A2:2 B2:2 A4:4 B4:4 A6:6 B6:6 A8:8 B8:8 A10:10 B10:10 A12:12 B12:12 A14:14 B14:14");
  EXPECT_EQ(row_text(a, 1, 16),
            "A0:1 B0:1 C0:1 D0:1 A4:5 B4:5 C4:5 D4:5 A8:9 B8:9 C8:9 D8:9 A12:13 B12:13 C12:13 D12:13");
  EXPECT_EQ(row_text(a, 3, 16),
            "A0:3 B0:3 C0:3 D0:3 E0:3 F0:3 G0:3 H0:3 A8:11 B8:11 C8:11 D8:11 E8:11 F8:11 G8:11 H8:11");
  EXPECT_EQ(row_text(a, 7, 16),
            "A0:7 B0:7 C0:7 D0:7 E0:7 F0:7 G0:7 H0:7 I0:7 J0:7 K0:7 L0:7 M0:7 N0:7 O0:7 P0:7");
  EXPECT_EQ(row_text(a, 15, 16),
            "A0:15 B0:15 C0:15 D0:15 E0:15 F0:15 G0:15 H0:15 I0:15 J0:15 K0:15 L0:15 M0:15 N0:15 O0:15 P0:15");
}

TEST(ButterflyTable, AddSubVariantKeepsTheOtherLanesEntryUpperRight) {
  // Fig. 8: the H lane keeps d where the standard variant keeps c.
  const auto a = built(16, ButterflyVariant::AddSub);
  EXPECT_EQ(row_text(a, 0, 16),
            "A0:0 B1:1 A2:2 B3:3 A4:4 B5:5 A6:6 B7:7 A8:8 B9:9 A10:10 B11:11 A12:12 B13:13 A14:14 B15:15");
  EXPECT_EQ(row_text(a, 7, 16),
            "A0:7 B0:7 C0:7 D0:7 E0:7 F0:7 G0:7 H0:7 I8:15 J8:15 K8:15 L8:15 M8:15 N8:15 O8:15 P8:15");
}

TEST(ButterflyTable, SeedTextsReplacementMatrixLosesAnEntry) {
  // Sec. 3 says [a b; c d] becomes [a b; a+b c+d]. That keeps c + d but
  // neither c nor d: no search could recover them. The listing computes
  // [a c; a+b c+d] (errata E3). Shown on the level-0 block of lanes A, B.
  const auto a = built(2, ButterflyVariant::Standard);
  // before: lane A holds a = A0 (row 0), c = B0 (row 1); lane B holds b = A1, d = B1
  EXPECT_EQ(a[0][0], sim::Sym::element(0, 0));  // a
  EXPECT_EQ(a[0][1], sim::Sym::element(1, 0));  // c, where the text has b = A1
  EXPECT_EQ(a[1][0], sim::Sym::range(0, 0, 1));  // a + b
  EXPECT_EQ(a[1][1], sim::Sym::range(1, 0, 1));  // c + d
}

TEST(ButterflyTable, ClosedFormAsPrintedDescribesTheAddSubTable) {
  for (int w = 2; w <= 64; w *= 2) {
    const auto addsub = built(w, ButterflyVariant::AddSub);
    const auto standard = built(w, ButterflyVariant::Standard);
    int standard_mismatches = 0;
    for (int i = 0; i < w; ++i)
      for (int j = 0; j < w; ++j) {
        EXPECT_EQ(addsub[i][j], oracle::closed_form_as_printed(i, j).value()) << "W " << w << " row " << i << " col " << j;
        EXPECT_EQ(standard[i][j], oracle::closed_form_standard(i, j).value()) << "W " << w << " row " << i << " col " << j;
        standard_mismatches += !(standard[i][j] == oracle::closed_form_as_printed(i, j).value());
      }
    // As printed, the formula misses the standard table (Fig. 4) wherever W >= 4.
    if (w >= 4) {
      EXPECT_GT(standard_mismatches, 0) << "W " << w;
    }
  }
}

TEST(ButterflyTable, ClosedFormsPrintedAlphabetNamesOnly14Of16Lanes) {
  int missing = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) missing += oracle::closed_form_as_printed(i, j).owner >= static_cast<int>(oracle::kPrintedLaneLetters.size());
  EXPECT_EQ(oracle::kPrintedLaneLetters.size(), 14u);
  EXPECT_EQ(missing, 32) << "entries of lanes O and P have no letter";
}

TEST(ButterflyTable, NumericTableAgreesWithTheSymbolicOne) {
  // Evaluating the symbolic table on integer weights gives the numeric table exactly.
  for (auto v : {ButterflyVariant::Standard, ButterflyVariant::AddSub}) {
    const int w = 32;
    sim::RegArray<double> a("a", w);
    auto weight = [](int owner, int index) { return static_cast<double>((owner * 37 + index * 11) % 17); };
    for (int r = 0; r < w; ++r)
      for (int c = 0; c < w; ++c) a[r][c] = weight(r, c);  // transposed layout
    sim::Warp warp({.width = w});
    oracle::butterfly_build(warp, a, v);
    const auto sym = built(w, v);
    for (int r = 0; r < w; ++r)
      for (int c = 0; c < w; ++c) {
        double expect = 0;
        for (const auto& run : sym[r][c].runs())
          for (int i = run.lo; i <= run.hi; ++i) expect += static_cast<double>(run.coeff) * weight(run.owner, i);
        EXPECT_EQ(a[r][c], expect) << "row " << r << " lane " << c;
      }
  }
}

// --- The CUDA listing of Sec. 3, run as printed.
//   for (int b=1; b < W; b+=b) {          /* 1,2,4,8,...*/
//     for (int j=0; j < (W>>(b+1)); j++) {
//       d = (((j << 1) + 1) << b) - 1;
//       h = (r & (1<<b)) ? a[d] : a[d+(1<<b)];
//       v = __shfl_xor(h, 1<<b);
//       if (r & (1<<b)) a[d] = v; else a[d+(1<<b)] = v;
//       a[d+(1<<b)] += a[d];
// `b` runs over the distances 1, 2, 4, ... but is used as their exponent.
namespace {

sim::Counters run_sec3_listing_as_printed(int w, sim::RegArray<sim::Sym>& a) {
  sim::Warp warp({.width = w});
  sim::Reg<int> r("r");
  warp.lane_id(r);
  sim::Reg<bool> upper("upper");
  sim::Reg<sim::Sym> h("h"), v("v");
  for (int b = 1; b < w; b += b) {
    for (int j = 0; j < (w >> (b + 1)); j++) {
      const int d = (((j << 1) + 1) << b) - 1;
      const int dist = 1 << b;
      warp.compute(sim::Op::Logic, upper, [&](int l) { return (r[l] & dist) != 0; });
      warp.select(h, upper, sim::PerLane<sim::Sym>(a[d]), sim::PerLane<sim::Sym>(a[d + dist]));
      warp.shfl_xor_sync(v, warp.lanes(), h, dist);
      warp.select(a[d], upper, sim::PerLane<sim::Sym>(v), sim::PerLane<sim::Sym>(a[d]));
      warp.select(a[d + dist], upper, sim::PerLane<sim::Sym>(a[d + dist]), sim::PerLane<sim::Sym>(v));
      warp.add(a[d + dist], a[d + dist], sim::PerLane<sim::Sym>(a[d]));
    }
  }
  return warp.counters();
}

}  // namespace

TEST(Seed000Listings, Sec3BuildLoopAsPrintedSkipsMostLevels) {
  const int w = 32;  // the listing's own warp (lane ID = threadIdx.x & 0x1f)
  auto a = oracle::transposed_layout(w);
  const auto c = run_sec3_listing_as_printed(w, a);
  EXPECT_EQ(c.shuffles(), 13u) << "levels at distances 2, 4 and 16 only; W - 1 = 31 are needed";
  int lanes_with_their_sum = 0;
  for (int l = 0; l < w; ++l) lanes_with_their_sum += a[w - 1][l] == sim::Sym::range(l, 0, w - 1);
  EXPECT_EQ(lanes_with_their_sum, 0) << "row W-1: " << row_text(a, w - 1, w);
  // The corrected loop, for (b = 0; (1 << b) < W; ++b), is oracle::butterfly_build.
}

TEST(ButterflyTable, EveryLaneOwnsItsTreeAndItsSum) {
  // Figs. 5-7: the entries of one lane are W - 1 tree nodes and its sum, and
  // the tree's root holds the first half of its array.
  for (int w = 2; w <= 64; w *= 2) {
    for (auto v : {ButterflyVariant::Standard, ButterflyVariant::AddSub}) {
      const auto a = built(w, v);
      for (int lane = 0; lane < w; ++lane) {
        int owned = 0;
        for (int r = 0; r < w; ++r)
          for (int c = 0; c < w; ++c) owned += !a[r][c].runs().empty() && a[r][c].runs().front().owner == lane;
        EXPECT_EQ(owned, w) << "W " << w << " lane " << lane;
      }
      if (w >= 2) {
        int roots = 0;
        for (int c = 0; c < w; ++c) roots += a[w / 2 - 1][c] == sim::Sym::range(c, 0, w / 2 - 1) || a[w / 2 - 1][c] == sim::Sym::range(c, w / 2, w - 1);
        EXPECT_EQ(roots, w) << "W " << w;
      }
    }
  }
}

// --- Seed 002, slides 49 and 51, as printed:
//   for (int b = 0; b < N; b += b) {   /* 1, 2, 4, 8, ... */
// b starts at 0 and b += b keeps it 0: the loop never ends, and its body
// re-applies the level-0 butterfly (distance 1 << 0) on every pass.
TEST(Seed002Listings, ButterflyLoopAsPrintedNeverAdvances) {
  const int n = 16;
  auto a = oracle::transposed_layout(n);
  sim::Warp warp({.width = n});
  sim::Reg<int> k("k");
  warp.lane_id(k);
  sim::Reg<bool> upper("upper");
  sim::Reg<sim::Sym> h("h"), v("v");
  std::vector<sim::RegisterGrid> after_pass;
  int passes = 0;
  for (int b = 0; b < n && passes < 3; b += b, ++passes) {  // capped: as printed it does not stop
    for (int j = 0; j < (n >> (b + 1)); j++) {
      const int d = (((j << 1) + 1) << b) - 1, dist = 1 << b;
      warp.compute(sim::Op::Logic, upper, [&](int l) { return (k[l] & dist) != 0; });
      warp.select(h, upper, sim::PerLane<sim::Sym>(a[d]), sim::PerLane<sim::Sym>(a[d + dist]));
      warp.shfl_xor_sync(v, warp.lanes(), h, dist);
      warp.select(a[d], upper, sim::PerLane<sim::Sym>(v), sim::PerLane<sim::Sym>(a[d]));
      warp.select(a[d + dist], upper, sim::PerLane<sim::Sym>(a[d + dist]), sim::PerLane<sim::Sym>(v));
      warp.add(a[d + dist], a[d + dist], sim::PerLane<sim::Sym>(a[d]));
    }
    after_pass.push_back(sim::to_grid(a, n));
    EXPECT_EQ(b, 0) << "b += b leaves b at 0";
  }
  EXPECT_EQ(passes, 3) << "only the cap stopped the loop";
  EXPECT_EQ(warp.counters().shuffles(), 3u * 8u) << "the same 8 level-0 exchanges, pass after pass";
  EXPECT_NE(after_pass[0], after_pass[1]) << "re-applying the butterfly keeps changing the table";
}

#include <fstream>

namespace {

std::vector<std::string> read_table(const std::string& name) {
  std::ifstream in(std::string(WARPSIM_TEST_DATA) + "/" + name);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  return rows;
}

}  // namespace

TEST(ButterflyTable, SymbolicRunsReproduceSeed002sSlidesWholeTables) {
  for (auto [v, file] : {std::pair{ButterflyVariant::Standard, "seed002_butterfly_standard.txt"},
                         std::pair{ButterflyVariant::AddSub, "seed002_butterfly_addsub.txt"}}) {
    const auto expect = read_table(file);
    ASSERT_EQ(expect.size(), 16u) << file;
    const auto a = built(16, v);
    for (int r = 0; r < 16; ++r) EXPECT_EQ(row_text(a, r, 16), expect[static_cast<std::size_t>(r)]) << file << " row " << r;
  }
}

// Seed 002's other numbers (docs/seed-statements.md).
TEST(SeedStatements, Seed002ExampleTableAndLinearSearchSteps) {
  // slide 3: "this example table happens to be normalized"
  const double table[] = {0.11, 0.01, 0.09, 0.15, 0.06, 0.11, 0.14, 0.05, 0.16, 0.12};
  EXPECT_NEAR(std::accumulate(std::begin(table), std::end(table), 0.0), 1.0, 1e-15);
  // slide 5: a warp's linear search "almost surely takes almost N steps (very
  // likely that at least 1 of 32 warp threads will choose u close to 1)":
  // P(some lane's u >= 0.9) = 1 - 0.9^32
  EXPECT_GT(1 - std::pow(0.9, 32), 0.96);
}

TEST(SeedStatements, Seed002ConditionalMovesTwoThenOne) {
  // slides 49 and 51: the standard pattern takes "TWO conditional moves and
  // one add" a pair, the add-subtract one "ONE conditional move and one add"
  // (besides the select of what to send, common to both)
  for (int w = 2; w <= 32; w *= 2) {
    for (const auto v : {oracle::ButterflyVariant::Standard, oracle::ButterflyVariant::AddSub}) {
      sim::Warp warp({.width = w});
      sim::RegArray<float> a("a", w);
      oracle::butterfly_build(warp, a, v);
      const auto moves = static_cast<int>(warp.counters().count(sim::Op::Select)) - (w - 1);  // less the send's select
      EXPECT_EQ(moves, (v == oracle::ButterflyVariant::Standard ? 2 : 1) * (w - 1)) << w;
    }
  }
}

// Errata E25: seed 002, slide 5's linear search compares p[k], a name the
// listing never binds (slide 6 binds k = N - 1 for the binary search). Run
// with that k it never moves: z < p[N - 1] always, so every draw is 0. With
// p[j] it is the definition: the smallest j with p[j] > z.
TEST(Seed002Listings, LinearSearchAsPrintedComparesTheWrongEntry) {
  const std::vector<double> a{0.11, 0.01, 0.09, 0.15, 0.06, 0.11, 0.14, 0.05, 0.16, 0.12};  // slide 3's table
  const int N = static_cast<int>(a.size());
  std::vector<double> p(a.size());
  std::partial_sum(a.begin(), a.end(), p.begin());
  int differ = 0;
  for (double u = 0.005; u < 1; u += 0.01) {
    const double z = u * p[static_cast<std::size_t>(N - 1)];
    const int k = N - 1;
    int printed = 0, fixed = 0;
    while ((printed < N - 1) && (z >= p[static_cast<std::size_t>(k)])) ++printed;
    while ((fixed < N - 1) && (z >= p[static_cast<std::size_t>(fixed)])) ++fixed;
    EXPECT_EQ(printed, 0) << u;
    EXPECT_TRUE(p[static_cast<std::size_t>(fixed)] > z && (fixed == 0 || p[static_cast<std::size_t>(fixed - 1)] <= z)) << u;
    differ += printed != fixed;
  }
  EXPECT_GT(differ, 80);
}

// Errata E26: seed 000, Sec. 2 says the linear search ends at "the leftmost
// element of p smaller than u'"; the loop `while j < K - 1 and u' >= p[j]`
// ends at the leftmost element larger than u' (the definition's), run on the
// section's own p.
TEST(Seed000Listings, LinearSearchEndsAtTheFirstEntryAboveTheTarget) {
  const std::vector<double> p{0.18, 0.27, 1.08, 1.17, 1.71, 2.70, 3.78, 4.05, 4.68, 4.77, 5.94, 6.30, 7.11, 8.46, 8.55, 9.00};
  const int K = static_cast<int>(p.size());
  for (double u = 0.0025; u < 1; u += 0.005) {
    const double target = p.back() * u;
    int j = 0;
    while (j < K - 1 && target >= p[static_cast<std::size_t>(j)]) ++j;
    EXPECT_GT(p[static_cast<std::size_t>(j)], target) << u;                                    // larger than u'
    if (j > 0) EXPECT_LE(p[static_cast<std::size_t>(j - 1)], target) << u;                     // the leftmost such
    bool any_smaller_left = false;
    for (int i = 0; i < j; ++i) any_smaller_left |= p[static_cast<std::size_t>(i)] < target;
    if (j > 0) EXPECT_TRUE(any_smaller_left) << u;  // "the leftmost element smaller than u'" would be index 0 here
  }
}

// Seed 003, Sec. 4: the replacements R[i, j; k, l] for W = 8, in three sets:
// rows (0,1) (2,3) (4,5) (6,7), then (1,3) (5,7), then (3,7), each with every
// pair of columns differing by the same power of two.
TEST(SeedStatements, Seed003ReplacementSetsForWEight) {
  constexpr int w = 8;
  sim::Warp warp({.width = w});
  sim::RegArray<float> a("a", w);
  std::vector<std::vector<std::pair<int, int>>> rows(3);
  oracle::butterfly_build(warp, a, oracle::ButterflyVariant::AddSub, [&](int level, int pair) {
    const int bit = 1 << level, d = 2 * bit * pair + bit - 1;
    rows[static_cast<std::size_t>(level)].push_back({d, d + bit});
  });
  EXPECT_EQ(rows[0], (std::vector<std::pair<int, int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(rows[1], (std::vector<std::pair<int, int>>{{1, 3}, {5, 7}}));
  EXPECT_EQ(rows[2], (std::vector<std::pair<int, int>>{{3, 7}}));
  // each row pair meets every column pair (L, L + bit): W / 2 replacements a shuffle, 16 + 8 + 4 in all
  int replacements = 0;
  for (int level = 0; level < 3; ++level) replacements += static_cast<int>(rows[static_cast<std::size_t>(level)].size()) * (w / 2);
  EXPECT_EQ(replacements, 28);
}
