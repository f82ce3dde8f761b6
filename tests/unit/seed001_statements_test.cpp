// Seed 001's statements that the thesis's arithmetic or its listings decide
// (docs/seed-statements.md): errata E29-E31 and the numbers that hold.
#include <gtest/gtest.h>

#include <boost/math/distributions/kolmogorov_smirnov.hpp>

#include <cmath>
#include <cstdint>

namespace {

// P(D_n > d) for a one-sample Kolmogorov-Smirnov statistic of n observations.
double ks_p(double d, double n) { return boost::math::cdf(boost::math::complement(boost::math::kolmogorov_smirnov_distribution<double>(n), d)); }

}  // namespace

// Errata E29: Sec. 4.9 reports KS p-values 0.9959 (D = 0.026, 10^6 samples),
// 0.6654 (D = 0.046, 10^5) and 0.1725 (D = 0.07, 10^4). Each pair is the
// one-sample test's at n = 250 (two samples of 500): the draws' count did not
// enter. At the stated counts each D rejects at any level.
TEST(SeedStatements, Seed001KsPValuesImplyTwoHundredFiftyObservations) {
  const struct {
    double d, p, draws;
  } stated[] = {{0.026, 0.9959, 1e6}, {0.046, 0.6654, 1e5}, {0.07, 0.1725, 1e4}};
  for (const auto& s : stated) {
    EXPECT_NEAR(ks_p(s.d, 250), s.p, 0.01) << s.d;  // the stated p-values, to their rounding of D
    EXPECT_LT(ks_p(s.d, s.draws), 1e-40) << s.d;    // the test at the draws stated
  }
}

// Errata E30: Sec. 1.4.1 counts the basic parallel prefix sum's reads as
// (2N - 1) log2 N + 1; its own sum, over iterations i = 1 .. log2 N of
// N + (N - 2^(i-1)), is 2 N log2 N - N + 1. (The writes, N log2 N, and
// Sec. 1.4.2's 3N - 3 writes and 5N - 9 reads hold.)
TEST(SeedStatements, Seed001PrefixSumOperationCounts) {
  for (std::int64_t n = 2; n <= (std::int64_t{1} << 20); n *= 2) {
    const auto l = static_cast<std::int64_t>(std::llround(std::log2(static_cast<double>(n))));
    std::int64_t reads = 0, writes = 0, up = 0, down = 0, ws_reads = 0;
    for (std::int64_t i = 1; i <= l; ++i) reads += n + (n - (std::int64_t{1} << (i - 1))), writes += n;
    EXPECT_EQ(writes, n * l);
    EXPECT_EQ(reads, 2 * n * l - n + 1) << n;
    if (n > 2) EXPECT_NE(reads, (2 * n - 1) * l + 1) << n;  // the printed form (equal only at N = 2)
    for (std::int64_t i = 1; i <= l - 1; ++i) up += std::int64_t{1} << i;
    for (std::int64_t i = 1; i <= l; ++i) down += std::int64_t{1} << i;
    EXPECT_EQ(up + 1 + down, 3 * n - 3) << n;
    for (std::int64_t i = 2; i <= l; ++i) ws_reads += 2 * (std::int64_t{1} << i);
    ws_reads += 1 + (up);
    if (n >= 4) EXPECT_EQ(ws_reads, 5 * n - 9) << n;
  }
}

// Errata E31: Algorithms 1.1 and 1.2 keep Marsaglia's generators in
// `unsigned long`: 64 bits where the thesis's machines run (LP64 Linux), so
// xorshift's (13, 17, 5) shifts a 64-bit state, which is not the 32-bit
// generator the triple belongs to. (Alg. 1.2 also lacks a comma between
// `y=362436069` and `z=...`, so it does not compile as printed.)
TEST(SeedStatements, Seed001XorshiftInUnsignedLongIsNotThe32BitGenerator) {
  static_assert(sizeof(unsigned long) == 8, "the erratum is about LP64");
  std::uint32_t y32 = 2463534242u;
  std::uint64_t y64 = 2463534242u;
  int differ = 0;
  for (int i = 0; i < 8; ++i) {
    y32 ^= y32 << 13, y32 ^= y32 >> 17, y32 ^= y32 << 5;
    y64 ^= y64 << 13, y64 ^= y64 >> 17, y64 ^= y64 << 5;
    if (i == 0) EXPECT_EQ(y32, 723471715u);  // the 32-bit generator's first output from Marsaglia's seed
    differ += static_cast<std::uint32_t>(y64) != y32;
  }
  EXPECT_GE(differ, 7);  // from the second output on, the 64-bit state's low word is another sequence
}
