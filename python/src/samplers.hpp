// warpsim's samplers on the caller's arrays, host or device, apart from
// Python (python/src/core.hpp says how arrays are described). Host arrays
// run the oracle's definition, device arrays the CUDA kernels (gpu/), which
// equal it draw for draw: the same seed gives the same draws in either place
// and from the C++ API.
//
//   multinomial  the sum-tree draw (oracle/sum_tree.hpp, gpu::SumTreeSampler):
//                out[r, s] = draw s of row r, from rng::uniform<double>(seed, r, s)
//   AliasTable   PSA in exact units (oracle/alias/psa.hpp, gpu::AliasTableBuilder);
//                draw d from Philox block (seed, d, 0) (gpu::alias_sample)
//   gamma        out[i] = Gamma(shape[i]), task first + i (oracle/rejection/gamma.hpp,
//                gpu::gamma_sample: equal to within CUDA's log, cos and exp)
//   dirichlet    out[d] = Dirichlet(alpha): K gamma variates of tasks d K .. d K + K - 1,
//                normalised by their sum in index order (oracle::rejection::dirichlet_draw)
//   sample_tokens  the token law (oracle/token/token_law.hpp, gpu::TokenSampler):
//                out[r, j] = draw j of row r, from (seed_r, offset_r, j); one seed
//                for the batch: seed_r = rng::request_seed(seed, r) (a 1-D row is a request: its seed as given)
//
// Arrays must agree in place (all host, or all on one device) and in type;
// weights are checked where they lie (host: the command's weight reader;
// device: multinomial's check pass, the alias builder's own), gamma's shapes
// on the host. BadInput / BadType otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "python/src/core.hpp"

namespace warpsim::python {

// weights: K or M x K, float32 or float64; out: S or M x S int32 (S =
// num_samples), in the same place. `check`: every weight finite and >= 0,
// every row's total > 0 (on a device: one pass over the weights there, as
// long as the draw's own; false leaves it to the caller, as the C++ API does).
void multinomial(const Array& weights, const Array& out, int num_samples, std::uint64_t seed, bool check = true);

// Seconds a call of multinomial takes from C++ (`reps` calls, then the
// stream synchronised): the C++ API's speed, which the Python call's is
// measured against.
double time_multinomial(const Array& weights, const Array& out, int num_samples, std::uint64_t seed, bool check, int reps);

class AliasTable {
 public:
  explicit AliasTable(const Array& weights);  // K weights, float32 or float64, host or device
  ~AliasTable();
  AliasTable(const AliasTable&) = delete;
  AliasTable& operator=(const AliasTable&) = delete;
  std::uint64_t size() const;
  int device() const;  // -1: the table lies on the host
  // out: n uint32 (n its size), draws first .. first + n - 1, in the table's place.
  void sample(const Array& out, std::uint64_t seed, std::uint64_t first) const;
  // out: K uint64 counts, added to: the counts of draws 0 .. n - 1.
  void counts(const Array& out, std::uint64_t n, std::uint64_t seed) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// shape and out: n values each, both float32 or both float64.
void gamma(const Array& shape, const Array& out, std::uint64_t seed, std::uint64_t first);
// alpha: K float64 concentrations (2 to 1024, each > 0) on the host; out: N x K float64.
void dirichlet(const Array& alpha, const Array& out, std::uint64_t seed);

// Per-row parameters of sample_tokens: one value for every row, or M.
struct TokenRows {
  std::vector<float> temperature, top_p, min_p;
  std::vector<std::int64_t> top_k;
  std::vector<std::uint64_t> seed, offset;
  // One seed for M x K logits: the batch's (row r the request of
  // rng::request_seed(seed, r)); else (K logits, or a seed a row) each
  // row's request seed as given.
  bool seed_is_batch = false;
};

// rng::request_seed: row r's request seed in a batch given one seed.
std::uint64_t request_seed(std::uint64_t seed, std::uint64_t row);

// logits: K or M x K of float32, float16 ("<f2") or bfloat16 ("<bf16"); out:
// draws or M x draws int32, in the same place. Every row's parameters and
// logits are checked (BadInput naming the row: NaN, +inf, every logit -inf,
// a parameter out of its range).
void sample_tokens(const Array& logits, const Array& out, const TokenRows& rows, int draws);
// The law itself on host logits: out (the logits' shape, float64) = p_i of each row.
void token_probabilities(const Array& logits, const Array& out, const TokenRows& rows);

namespace detail {
// The device halves (samplers_gpu.cu; without CUDA, a BadInput saying so).
void multinomial_device(const Array& weights, bool fp32, int m, std::int64_t k, const Array& out, int num_samples, std::uint64_t seed);
struct DeviceAliasTable;
std::shared_ptr<DeviceAliasTable> alias_build_device(const Array& weights, bool fp32, std::uint64_t k);
void alias_sample_device(const DeviceAliasTable& t, const Array& out, std::uint64_t seed, std::uint64_t first, std::uint64_t n);
void alias_counts_device(const DeviceAliasTable& t, const Array& out, std::uint64_t n, std::uint64_t seed);
void gamma_device(const Array& shape, bool fp32, std::uint64_t n, const Array& out, std::uint64_t seed, std::uint64_t first);
void dirichlet_device(const std::vector<double>& alpha, const Array& out, std::uint64_t n, std::uint64_t seed);
// The token sampler's draws; the rows it refused (their draws -1), after the stream's work.
std::vector<std::int64_t> sample_tokens_device(const Array& logits, int type, int m, std::int64_t k, const TokenRows& rows, const Array& out,
                                               int draws);
// The weights' check on the device (multinomial's).
struct DeviceWeightFindings {
  std::uint64_t bad_flat = UINT64_MAX, zero_row = UINT64_MAX;
  double bad_value = 0;
};
DeviceWeightFindings check_weights_device(const Array& weights, bool fp32, std::uint64_t m, std::uint64_t k);
void synchronize(const Array& a);  // waits for a's stream
// A device array's values, copied to the host (gamma's shapes, for their check).
std::vector<double> download(const Array& a, bool fp32, std::uint64_t n);
}  // namespace detail

}  // namespace warpsim::python
