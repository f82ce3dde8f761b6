#include <gtest/gtest.h>

#include <algorithm>

#include "oracle/lda_corpus.hpp"
#include "oracle/lda_workload.hpp"

using namespace warpsim::oracle;

TEST(LdaCorpus, HasTheSeedsStatistics) {
  const auto c = make_lda_corpus();
  EXPECT_EQ(c.documents, 43'556);
  EXPECT_EQ(c.vocabulary, 37'286);
  EXPECT_EQ(c.words.size(), 3'072'662u);
  EXPECT_EQ(c.offsets.back(), 3'072'662);
  EXPECT_EQ(c.longest(), 307);
  for (int m = 0; m + 1 < c.documents; ++m) {
    ASSERT_GE(c.offsets[m + 1] - c.offsets[m], c.offsets[m + 2] - c.offsets[m + 1]) << "sorted longest first";
    ASSERT_GE(c.offsets[m + 1] - c.offsets[m], 1);
  }
  EXPECT_TRUE(std::all_of(c.words.begin(), c.words.end(), [&](int w) { return w >= 0 && w < c.vocabulary; }));
  // Zipf: word 0 is the most frequent, and far more frequent than word 100.
  std::vector<int> freq(static_cast<std::size_t>(c.vocabulary));
  for (int w : c.words) ++freq[static_cast<std::size_t>(w)];
  EXPECT_EQ(std::max_element(freq.begin(), freq.end()) - freq.begin(), 0);
  EXPECT_GT(freq[0], 50 * freq[100]);
}

TEST(LdaCorpus, IsDeterministicAndRejectsImpossibleSizes) {
  const LdaCorpusSpec small{.documents = 10, .vocabulary = 5, .tokens = 40, .longest = 8, .seed = 9};
  EXPECT_EQ(make_lda_corpus(small).words, make_lda_corpus(small).words);
  EXPECT_THROW(make_lda_corpus({.documents = 10, .vocabulary = 5, .tokens = 90, .longest = 8}), std::invalid_argument);
  EXPECT_THROW(make_lda_corpus({.documents = 10, .vocabulary = 5, .tokens = 5, .longest = 8}), std::invalid_argument);
}

// Errata E27: seed 000 pads M to a multiple of W "with empty documents"
// (Sec. 5), but Alg. 4, line 11, `i = min(i_master, N[m] - 1)`, gives such a
// document i = -1, and line 15 stores z[m, -1]. The replay (and the kernels)
// clamp i to the document's tokens and store nothing for an empty one.
TEST(Seed000Listings, Alg4LineElevenIndexesMinusOneForAnEmptyDocument) {
  const int n_empty = 0;
  EXPECT_EQ(std::min(0, n_empty - 1), -1);  // the listing's i for an empty document, every step
  LdaCorpus c;
  c.documents = 5;  // two real documents, an empty one between them, two empty ones after
  c.vocabulary = 4;
  c.offsets = {0, 3, 3, 5, 5, 5};
  c.words = {0, 1, 2, 3, 1};
  const auto model = make_lda_model<double>(c, 8, 3);
  const auto z = lda_draw<double>(c, model, 7, Algorithm::ButterflyAddSub);
  ASSERT_EQ(z.size(), c.words.size());
  for (int v : z) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 8);
  }
}
