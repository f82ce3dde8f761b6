// rng/half_block.hpp: two draws a Philox block, each row exactly uniform and
// each coin exactly t / 2^64 -- the words each draw takes, where it needs
// more, and the laws.
#include <gtest/gtest.h>

#include <vector>

#include "rng/half_block.hpp"
#include "stats/goodness_of_fit.hpp"

using namespace warpsim;

namespace {

TEST(HalfBlock, DrawsOfAPairShareABlockAndExtraWordsComeFromTheSameHalf) {
  const std::uint64_t seed = 7, base = std::uint64_t{1} << 63;
  const auto block = rng::philox_bits(seed, base + 5, 0);
  rng::HalfBlock even(seed, base, 10), odd(seed, base, 11);
  EXPECT_EQ(even.first(), block.v[0]);
  EXPECT_EQ(even.second(), block.v[1]);
  EXPECT_EQ(odd.first(), block.v[2]);
  EXPECT_EQ(odd.second(), block.v[3]);
  const auto b1 = rng::philox_bits(seed, base + 5, 1), b2 = rng::philox_bits(seed, base + 5, 2);
  EXPECT_EQ(odd.next(), b1.v[2]);
  EXPECT_EQ(odd.next(), b1.v[3]);
  EXPECT_EQ(odd.next(), b2.v[2]);
  EXPECT_EQ(even.next(), b1.v[0]);
  // The caller's block and the computed one are the same.
  rng::HalfBlock given(seed, base, 11, block);
  EXPECT_EQ(given.first(), odd.first());
}

TEST(HalfBlock, IndexBelowRejectsExactlyTheLowRemainder) {
  // n = 3: 2^32 mod 3 = 1, so only x with (3 x) mod 2^32 = 0, i.e. x = 0,
  // takes another word.
  rng::HalfBlock a(1, 0, 0), b(1, 0, 0);
  const std::uint32_t want = rng::index_below(a.next(), 3, b);  // what the retry gives: a's first extra word is b's
  rng::HalfBlock c(1, 0, 0), d(1, 0, 0);
  EXPECT_EQ(rng::index_below(0u, 3, c), want);
  d.next();
  EXPECT_EQ(c.next(), d.next()) << "x = 0 took exactly one more word";
  rng::HalfBlock untouched(1, 0, 0), fresh(1, 0, 0);
  EXPECT_EQ(rng::index_below(1u, 3, untouched), 0u);
  EXPECT_EQ(untouched.next(), fresh.next()) << "x = 1 takes no other word";
  EXPECT_EQ(rng::index_below(1u, 3, c), 0u);
  EXPECT_EQ(rng::index_below(0xffffffffu, 3, c), 2u);
  EXPECT_EQ(rng::index_below(0x55555556u, 3, c), 1u);
  // n = 1 never rejects; every index is 0.
  EXPECT_EQ(rng::index_below(0u, 1, c), 0u);
  EXPECT_EQ(rng::index_below(0xffffffffu, 1, c), 0u);
}

TEST(HalfBlock, BitsBelowIsTheSixtyFourBitComparison) {
  rng::HalfBlock bits(3, 0, 0);
  const std::uint64_t t = (std::uint64_t{0x12345678} << 32) | 0x9abcdef0u;
  EXPECT_TRUE(rng::bits_below(0x12345677u, t, bits));
  EXPECT_FALSE(rng::bits_below(0x12345679u, t, bits));
  rng::HalfBlock tie(3, 0, 0), peek(3, 0, 0);
  const std::uint32_t low = peek.next();
  EXPECT_EQ(rng::bits_below(0x12345678u, t, tie), low < 0x9abcdef0u) << "a tie on the high word is decided by the next word";
  rng::HalfBlock edge(4, 0, 0);
  EXPECT_FALSE(rng::bits_below(0u, 0, edge)) << "t = 0: never";
}

// Rows: 10^6 indices below n = 2^31 + 1 (where almost half the words are
// rejected) and below 3,072, each against the uniform law on 64 equal bins
// (chi-square, alpha 1e-3 each; detects a total variation of 0.006 with
// power 0.9).
TEST(HalfBlock, IndexBelowIsUniformEvenWhereHalfTheWordsAreRejected) {
  for (const std::uint32_t n : {(1u << 31) + 1, 3072u, 7u}) {
    std::vector<double> counts(64, 0.0);
    const std::vector<double> p(64, 1.0 / 64);
    std::vector<double> exact(n < 64 ? n : 64, 0.0);
    for (std::uint64_t d = 0; d < 1000000; ++d) {
      rng::HalfBlock bits(11, 0, d);
      const std::uint32_t k = rng::index_below(bits.first(), n, bits);
      ASSERT_LT(k, n);
      if (n < 64) exact[k] += 1;
      else counts[static_cast<std::size_t>((static_cast<std::uint64_t>(k) * 64) / n)] += 1;
    }
    stats::GofOptions g;
    g.alpha = 1e-3;
    if (n < 64) {
      const auto r = stats::chi_square_test(exact, std::vector<double>(n, 1.0 / n), g);
      EXPECT_FALSE(r.reject) << n << ": p = " << r.p_value;
    } else {
      // Bins of floor(64 k / n): each holds ceil or floor of n / 64 indices; with n a multiple of 64 or n
      // enormous, the bin probabilities are 1/64 within 64 / n.
      const auto r = stats::chi_square_test(counts, p, g);
      EXPECT_FALSE(r.reject) << n << ": p = " << r.p_value;
      EXPECT_LT(*r.detectable.total_variation, 0.01);
    }
  }
}

// Coins: 10^6 draws of bits_below against t = 0.3 2^64, and against a t
// whose high word is hit often enough to test the tie path (t = 2^32 + 5:
// P = (2^32 + 5) / 2^64, so count the ties directly instead).
TEST(HalfBlock, BitsBelowKeepsWithProbabilityTOver2To64) {
  const std::uint64_t t = 5534023222112865484ull;  // floor(0.3 2^64)
  double below = 0;
  const double n = 1000000;
  for (std::uint64_t d = 0; d < 1000000; ++d) {
    rng::HalfBlock bits(12, 0, d);
    below += rng::bits_below(bits.second(), t, bits) ? 1 : 0;
  }
  // Binomial(10^6, 0.3): sd 458; 5 sd is a false alarm once in 3.5 million runs.
  EXPECT_NEAR(below, 0.3 * n, 5 * 458.3);
}

}  // namespace
