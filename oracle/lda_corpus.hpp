// A synthetic corpus with the statistics of the seed's LDA workload (seed 000,
// Sec. 7: M = 43,556 documents, V = 37,286 words, 3,072,662 tokens, longest
// document 307 tokens): log-normal document lengths adjusted to those totals,
// Zipf-distributed words, documents sorted longest first (as the seed sorts
// them, so that a warp's documents have similar lengths). Deterministic in
// its seed.
#pragma once

#include <cstdint>
#include <vector>

namespace warpsim::oracle {

struct LdaCorpusSpec {
  int documents = 43'556;
  int vocabulary = 37'286;
  std::int64_t tokens = 3'072'662;
  int longest = 307;
  double zipf_exponent = 1.07;
  std::uint64_t seed = 1;
};

struct LdaCorpus {
  int documents = 0;
  int vocabulary = 0;
  std::vector<int> offsets;  // documents + 1: document m's tokens are words[offsets[m] .. offsets[m+1])
  std::vector<int> words;    // one word id per token, in [0, vocabulary)
  int longest() const;
};

LdaCorpus make_lda_corpus(const LdaCorpusSpec& spec = {});

}  // namespace warpsim::oracle
