// The LDA workload's z-draw (seed 000, Sec. 4-6): for token t of document m
// with word c, the weights are theta[m, k] * phi[c, k] (K topics), computed
// on the fly, and z[t] is drawn with u = rng::uniform(seed, t).
//
// The oracle replays it through the matrix workload. A lane's index depends
// on its own weights, its own u and its lane number -- not on the other
// lanes' data (the butterfly table spreads a lane's sums over other lanes'
// registers, but the search reads back only the lane's own; tests/property
// checks this) -- and, in the add-subtract variant, on the lane number too
// (docs/errata.md, E10). So the replay lays the tokens out as the kernels'
// master-index loop does: warp q holds documents q*W .. q*W + W-1, step i
// gives lane l token min(i, N - 1) of its document, and each step is one
// W-row block of the matrix, in the lane's own row. Products are rounded
// once, as the kernels round them. Which warp of the grid takes a group's
// steps, and in what order, does not enter (the kernels cut a group's steps
// into chunks for several warps: gpu::LdaTuning::chunk).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "oracle/draw_matrix.hpp"
#include "oracle/lda_corpus.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::oracle {

template <class T>
struct LdaModel {
  int topics = 0;        // K
  std::vector<T> theta;  // documents x K
  std::vector<T> phi;    // vocabulary x K (a word's K topic weights contiguous, as in the seed)
};

// theta and phi from the shared Philox mapping (stream = element index,
// draw 2 and 3), uniform on [0, 1): the device fills the same values.
template <class T>
LdaModel<T> make_lda_model(const LdaCorpus& corpus, int topics, std::uint64_t seed) {
  LdaModel<T> model{topics, std::vector<T>(static_cast<std::size_t>(corpus.documents) * topics),
                    std::vector<T>(static_cast<std::size_t>(corpus.vocabulary) * topics)};
  for (std::size_t i = 0; i < model.theta.size(); ++i) model.theta[i] = rng::uniform<T>(seed, i, 2);
  for (std::size_t i = 0; i < model.phi.size(); ++i) model.phi[i] = rng::uniform<T>(seed, i, 3);
  return model;
}

// Every token's z, replayed through `algorithm` with W = 32.
template <class T>
std::vector<int> lda_draw(const LdaCorpus& corpus, const LdaModel<T>& model, std::uint64_t seed, Algorithm algorithm) {
  constexpr int kW = 32;
  const int k = model.topics;
  const int docs = corpus.documents;
  std::vector<T> weights, u;
  std::vector<std::int64_t> token_of_row;  // -1: a lane repeating a token, or past the last document
  for (int q = 0; q * kW < docs; ++q) {
    int steps = 0;
    for (int l = 0; l < kW; ++l) {
      const int m = std::min(q * kW + l, docs - 1);
      steps = std::max(steps, corpus.offsets[static_cast<std::size_t>(m) + 1] - corpus.offsets[static_cast<std::size_t>(m)]);
    }
    for (int i = 0; i < steps; ++i) {
      for (int l = 0; l < kW; ++l) {
        const int m = std::min(q * kW + l, docs - 1);
        const int first = corpus.offsets[static_cast<std::size_t>(m)];
        const int n = corpus.offsets[static_cast<std::size_t>(m) + 1] - first;
        const int t = first + std::max(0, std::min(i, n - 1));
        const auto c = static_cast<std::size_t>(n > 0 ? corpus.words[static_cast<std::size_t>(t)] : 0);
        for (int j = 0; j < k; ++j) {
          volatile T product = model.theta[static_cast<std::size_t>(m) * k + j] * model.phi[c * k + j];  // rounded once
          weights.push_back(static_cast<T>(product));
        }
        u.push_back(rng::uniform<T>(seed, static_cast<std::uint64_t>(t)));
        token_of_row.push_back(q * kW + l < docs && i < n ? t : -1);
      }
    }
  }
  sim::GlobalMemory mem;
  const auto matrix = upload_matrix<T>(mem, weights, static_cast<int>(u.size()), k);
  const auto drawn = draw_matrix<T>(mem, matrix, u, algorithm, kW).index;
  std::vector<int> z(corpus.words.size(), -1);
  for (std::size_t row = 0; row < token_of_row.size(); ++row)
    if (token_of_row[row] >= 0) z[static_cast<std::size_t>(token_of_row[row])] = drawn[row];
  return z;
}

}  // namespace warpsim::oracle
