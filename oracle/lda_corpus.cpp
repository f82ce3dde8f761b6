#include "oracle/lda_corpus.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>

namespace warpsim::oracle {

int LdaCorpus::longest() const {
  int n = 0;
  for (int m = 0; m < documents; ++m) n = std::max(n, offsets[static_cast<std::size_t>(m) + 1] - offsets[static_cast<std::size_t>(m)]);
  return n;
}

LdaCorpus make_lda_corpus(const LdaCorpusSpec& s) {
  if (s.documents < 1 || s.vocabulary < 1 || s.longest < 1 || s.tokens < s.documents ||
      s.tokens > static_cast<std::int64_t>(s.documents) * s.longest) {
    throw std::invalid_argument("make_lda_corpus: the sizes cannot be met (every document needs 1..longest tokens)");
  }
  std::mt19937_64 rng(s.seed);
  // Log-normal lengths with the target mean, clamped, then nudged to the exact total.
  const double mean = static_cast<double>(s.tokens) / s.documents, sigma = 0.9;
  std::lognormal_distribution<double> ln(std::log(mean) - sigma * sigma / 2, sigma);
  std::vector<int> len(static_cast<std::size_t>(s.documents));
  for (auto& n : len) n = std::clamp(static_cast<int>(std::lround(ln(rng))), 1, s.longest);
  len[0] = s.longest;
  std::int64_t total = 0;
  for (int n : len) total += n;
  std::uniform_int_distribution<int> pick(1, s.documents - 1);  // document 0 keeps the longest length
  while (total != s.tokens) {
    int& n = len[static_cast<std::size_t>(pick(rng))];
    if (total > s.tokens && n > 1) --n, --total;
    else if (total < s.tokens && n < s.longest) ++n, ++total;
  }
  std::sort(len.begin(), len.end(), std::greater<>());
  LdaCorpus c;
  c.documents = s.documents;
  c.vocabulary = s.vocabulary;
  c.offsets.resize(static_cast<std::size_t>(s.documents) + 1, 0);
  for (int m = 0; m < s.documents; ++m) c.offsets[static_cast<std::size_t>(m) + 1] = c.offsets[static_cast<std::size_t>(m)] + len[static_cast<std::size_t>(m)];
  // Zipf: word w with probability proportional to (w + 1)^-s.
  std::vector<double> weight(static_cast<std::size_t>(s.vocabulary));
  for (int w = 0; w < s.vocabulary; ++w) weight[static_cast<std::size_t>(w)] = std::pow(w + 1.0, -s.zipf_exponent);
  std::discrete_distribution<int> zipf(weight.begin(), weight.end());
  c.words.resize(static_cast<std::size_t>(s.tokens));
  for (auto& w : c.words) w = zipf(rng);
  return c;
}

}  // namespace warpsim::oracle
