#include "python/src/samplers.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/input/array_view.hpp"
#include "cli/input/weights.hpp"
#include "oracle/alias/psa.hpp"
#include "oracle/alias/sample_warp.hpp"
#include "oracle/alias/units.hpp"
#include "oracle/rejection/gamma.hpp"
#include "oracle/sum_tree.hpp"
#include "oracle/token/token_law.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::python {

namespace {

// "float32" | "float64" from a type string, else BadType naming `what`.
bool is_fp32(const Array& a, const std::string& what) {
  if (a.typestr == "<f4") return true;
  if (a.typestr == "<f8") return false;
  throw BadType(what + " must be float32 or float64 (type '" + a.typestr + "' given)");
}

std::uint64_t elements(const Array& a) {
  std::uint64_t n = 1;
  for (auto d : a.shape) n *= d;
  return n;
}

void same_place(const Array& a, const Array& b, const std::string& an, const std::string& bn) {
  if (a.device != b.device) {
    auto where = [](int d) { return d < 0 ? std::string("the host") : "CUDA device " + std::to_string(d); };
    throw BadInput(an + " lies on " + where(a.device) + " and " + bn + " on " + where(b.device) + ": both must be in one place");
  }
}

template <class T>
std::span<const T> host_span(const Array& a) {
  return {reinterpret_cast<const T*>(a.data), static_cast<std::size_t>(elements(a))};
}

std::vector<double> weights_on_host(const Array& a, bool fp32) {
  const std::uint64_t n = elements(a);
  if (a.device >= 0) return detail::download(a, fp32, n);
  std::vector<double> w(n);
  if (fp32) {
    for (std::uint64_t i = 0; i < n; ++i) w[i] = host_span<float>(a)[i];
  } else {
    for (std::uint64_t i = 0; i < n; ++i) w[i] = host_span<double>(a)[i];
  }
  return w;
}

}  // namespace

void multinomial(const Array& weights, const Array& out, int num_samples, std::uint64_t seed, bool check) {
  const bool fp32 = is_fp32(weights, "weights");
  if (out.typestr != "<i4") throw BadType("out must be int32 (type '" + out.typestr + "' given)");
  same_place(weights, out, "weights", "out");
  if (weights.shape.empty() || weights.shape.size() > 2) throw BadInput("weights must have 1 or 2 dimensions (K, or M x K)");
  if (num_samples < 1) throw BadInput("num_samples must be >= 1 (" + std::to_string(num_samples) + " given)");
  const std::uint64_t m = weights.shape.size() == 2 ? weights.shape[0] : 1, k = weights.shape.back();
  if (k < 1 || m < 1) throw BadInput("weights has an empty dimension");
  if (m > (std::uint64_t{1} << 31) - 1 || m * static_cast<std::uint64_t>(num_samples) > (std::uint64_t{1} << 31) - 1) {
    throw BadInput("M x num_samples must be below 2^31");
  }
  const std::vector<std::uint64_t> want = weights.shape.size() == 2 ? std::vector<std::uint64_t>{m, static_cast<std::uint64_t>(num_samples)}
                                                                     : std::vector<std::uint64_t>{static_cast<std::uint64_t>(num_samples)};
  if (out.shape != want) throw BadInput("out must have shape " + std::string(want.size() == 2 ? "(M, num_samples)" : "(num_samples,)"));
  if (weights.device >= 0) {
    if (check) {
      const auto f = detail::check_weights_device(weights, fp32, m, k);
      if (f.bad_flat != UINT64_MAX) {
        throw BadInput("weights: weight " + std::to_string(f.bad_flat % k) + (m > 1 ? " of row " + std::to_string(f.bad_flat / k) : "") + " is " +
                       std::to_string(f.bad_value) + "; weights are finite and >= 0");
      }
      if (f.zero_row != UINT64_MAX) throw BadInput("weights: row " + std::to_string(f.zero_row) + " sums to 0: there is no distribution");
    }
    detail::multinomial_device(weights, fp32, static_cast<int>(m), static_cast<std::int64_t>(k), out, num_samples, seed);
    return;
  }
  // The oracle needs them checked: by the command's own weight reader.
  try {
    cli::ViewInputs inputs;
    cli::ArrayView view;
    view.data = reinterpret_cast<const void*>(weights.data);
    view.bytes = fp32 ? 4 : 8;
    view.shape = weights.shape;
    inputs.arrays["weights"] = view;
    (void)cli::read_weights(inputs, "weights", std::optional<std::string>());
  } catch (const cli::UsageError& e) {
    throw BadInput(e.what());
  }
  auto* o = reinterpret_cast<std::int32_t*>(out.data);
  const auto draw = [&](auto w) {
    const auto d = oracle::sum_tree::draw_matrix(w, static_cast<int>(m), k, seed, num_samples);
    std::memcpy(o, d.data(), d.size() * sizeof(int));
  };
  if (fp32) draw(host_span<float>(weights));
  else draw(host_span<double>(weights));
}

double time_multinomial(const Array& weights, const Array& out, int num_samples, std::uint64_t seed, bool check, int reps) {
  if (reps < 1) throw BadInput("reps must be >= 1");
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) multinomial(weights, out, num_samples, seed, check);
  if (weights.device >= 0) detail::synchronize(weights);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps;
}

struct AliasTable::State {
  std::uint64_t k = 0;
  int device = -1;
  oracle::alias::Table host;
  std::shared_ptr<detail::DeviceAliasTable> on_device;
};

AliasTable::AliasTable(const Array& weights) : s_(std::make_unique<State>()) {
  const bool fp32 = is_fp32(weights, "weights");
  if (weights.shape.size() != 1 || weights.shape[0] == 0) throw BadInput("weights must be a vector of K >= 1 weights");
  s_->k = weights.shape[0];
  if (s_->k > (std::uint64_t{1} << 32) - 1) throw BadInput("an alias table holds at most 2^32 - 1 items");
  s_->device = weights.device;
  // Both builders check the weights (NaN, infinite, negative, all 0) and
  // throw std::invalid_argument: on the device the builder's own pass.
  if (weights.device >= 0) {
    s_->on_device = detail::alias_build_device(weights, fp32, s_->k);
    return;
  }
  try {
    s_->host = fp32 ? oracle::alias::psa(oracle::alias::to_units<float>(host_span<float>(weights)), 1)
                    : oracle::alias::psa(oracle::alias::to_units<double>(host_span<double>(weights)), 1);
  } catch (const std::invalid_argument& e) {
    throw BadInput(std::string("weights: ") + e.what());
  }
}
AliasTable::~AliasTable() = default;
std::uint64_t AliasTable::size() const { return s_->k; }
int AliasTable::device() const { return s_->device; }

void AliasTable::sample(const Array& out, std::uint64_t seed, std::uint64_t first) const {
  if (out.typestr != "<u4") throw BadType("out must be uint32 (type '" + out.typestr + "' given)");
  if (out.device != s_->device) throw BadInput("out must lie where the table does (" + std::string(s_->device < 0 ? "the host" : "its device") + ")");
  const std::uint64_t n = elements(out);
  if (s_->on_device) {
    detail::alias_sample_device(*s_->on_device, out, seed, first, n);
    return;
  }
  auto* o = reinterpret_cast<std::uint32_t*>(out.data);
  for (std::uint64_t d = 0; d < n; ++d) o[d] = oracle::alias::draw(s_->host, seed, first + d);
}

void AliasTable::counts(const Array& out, std::uint64_t n, std::uint64_t seed) const {
  if (out.typestr != "<u8") throw BadType("out must be uint64 (type '" + out.typestr + "' given)");
  if (out.device != s_->device) throw BadInput("out must lie where the table does");
  if (elements(out) != s_->k) throw BadInput("out must hold one count per item (" + std::to_string(s_->k) + ")");
  if (s_->on_device) {
    detail::alias_counts_device(*s_->on_device, out, n, seed);
    return;
  }
  auto* o = reinterpret_cast<std::uint64_t*>(out.data);
  for (std::uint64_t d = 0; d < n; ++d) ++o[oracle::alias::draw(s_->host, seed, d)];
}

void gamma(const Array& shape, const Array& out, std::uint64_t seed, std::uint64_t first) {
  const bool fp32 = is_fp32(shape, "shape");
  if (out.typestr != shape.typestr) throw BadType("out must have the shape's type (" + shape.typestr + "), not " + out.typestr);
  same_place(shape, out, "shape", "out");
  const std::uint64_t n = elements(shape);
  if (elements(out) != n) throw BadInput("out must hold one value per shape (" + std::to_string(n) + ")");
  const auto s = weights_on_host(shape, fp32);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!(s[i] > 0) || !std::isfinite(s[i])) throw BadInput("shape " + std::to_string(i) + " is " + std::to_string(s[i]) + "; shapes are finite and > 0");
  }
  if (shape.device >= 0) {
    detail::gamma_device(shape, fp32, n, out, seed, first);
    return;
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (fp32) reinterpret_cast<float*>(out.data)[i] = oracle::rejection::gamma_draw<float>(host_span<float>(shape)[i], seed, first + i);
    else reinterpret_cast<double*>(out.data)[i] = oracle::rejection::gamma_draw<double>(host_span<double>(shape)[i], seed, first + i);
  }
}

void dirichlet(const Array& alpha, const Array& out, std::uint64_t seed) {
  if (alpha.typestr != "<f8" || out.typestr != "<f8") throw BadType("alpha and out must be float64");
  if (alpha.device >= 0) throw BadInput("alpha (the concentrations) must be on the host; out may be on a device");
  if (alpha.shape.size() != 1) throw BadInput("alpha must be a vector of K concentrations");
  const std::vector<double> a(host_span<double>(alpha).begin(), host_span<double>(alpha).end());
  if (a.size() < 2 || a.size() > 1024) throw BadInput("dirichlet draws with 2 to 1024 concentrations");
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] > 0) || !std::isfinite(a[i])) throw BadInput("concentration " + std::to_string(i) + " is " + std::to_string(a[i]) + "; each must be finite and > 0");
  }
  if (out.shape.size() != 2 || out.shape[1] != a.size()) throw BadInput("out must have shape (N, K), K = len(alpha)");
  const std::uint64_t n = out.shape[0], k = a.size();
  if (out.device >= 0) {
    detail::dirichlet_device(a, out, n, seed);
    return;
  }
  auto* o = reinterpret_cast<double*>(out.data);
  for (std::uint64_t d = 0; d < n; ++d) {
    const auto x = oracle::rejection::dirichlet_draw(a, seed, d * k);
    std::memcpy(o + d * k, x.data(), k * sizeof(double));
  }
}

namespace {

namespace tok = oracle::token;

// The logits' type from their typestr (float32, float16, bfloat16).
tok::LogitType logit_type_of(const Array& logits) {
  if (logits.typestr == "<f4") return tok::LogitType::F32;
  if (logits.typestr == "<f2") return tok::LogitType::F16;
  if (logits.typestr == "<bf16") return tok::LogitType::BF16;
  throw BadType("logits must be float32, float16 or bfloat16 (type '" + logits.typestr + "' given)");
}

// Row r of host logits of K values, as floats (16-bit types by their values).
void logit_row(const Array& logits, tok::LogitType type, std::uint64_t r, std::uint64_t k, std::vector<float>& row) {
  const auto* base = reinterpret_cast<const unsigned char*>(logits.data) + r * k * (type == tok::LogitType::F32 ? 4 : 2);
  for (std::uint64_t i = 0; i < k; ++i) {
    if (type == tok::LogitType::F32) {
      std::memcpy(&row[i], base + 4 * i, 4);
    } else {
      std::uint16_t b;
      std::memcpy(&b, base + 2 * i, 2);
      row[i] = tok::logit_value(b, type);
    }
  }
}

}  // namespace

std::uint64_t request_seed(std::uint64_t seed, std::uint64_t row) { return rng::request_seed(seed, row); }

void sample_tokens(const Array& logits, const Array& out, const TokenRows& given, int draws) {
  TokenRows rows = given;
  const tok::LogitType type = logit_type_of(logits);
  if (out.typestr != "<i4") throw BadType("out must be int32 (type '" + out.typestr + "' given)");
  same_place(logits, out, "logits", "out");
  if (logits.shape.empty() || logits.shape.size() > 2) throw BadInput("logits must have 1 or 2 dimensions (K, or M x K)");
  if (draws < 1) throw BadInput("draws must be >= 1 (" + std::to_string(draws) + " given)");
  const std::uint64_t m = logits.shape.size() == 2 ? logits.shape[0] : 1, k = logits.shape.back();
  if (k < 1 || m < 1) throw BadInput("logits has an empty dimension");
  if (k > static_cast<std::uint64_t>(tok::kMaxK)) throw BadInput("logits: rows of " + std::to_string(k) + " logits; at most 2^20");
  if (m > 65536) throw BadInput("logits: " + std::to_string(m) + " rows; at most 65,536");
  if (m * static_cast<std::uint64_t>(draws) > (std::uint64_t{1} << 31) - 1) throw BadInput("M x draws must be below 2^31");
  const std::vector<std::uint64_t> want = logits.shape.size() == 2 ? std::vector<std::uint64_t>{m, static_cast<std::uint64_t>(draws)}
                                                                    : std::vector<std::uint64_t>{static_cast<std::uint64_t>(draws)};
  if (out.shape != want) throw BadInput("out must have shape " + std::string(want.size() == 2 ? "(M, draws)" : "(draws,)"));
  const auto per_row = [&](std::size_t n, const char* name) {
    if (n != 1 && n != m) throw BadInput(std::string(name) + " has " + std::to_string(n) + " values; give one, or one a row (" + std::to_string(m) + ")");
  };
  per_row(rows.temperature.size(), "temperature"), per_row(rows.top_k.size(), "top_k"), per_row(rows.top_p.size(), "top_p");
  per_row(rows.min_p.size(), "min_p"), per_row(rows.seed.size(), "seed"), per_row(rows.offset.size(), "offset");
  // One seed for several rows is the batch's however it was given (a list of
  // one too): rows sharing a request would draw the same uniforms, and the
  // device reads a seed a row only from an array of M.
  rows.seed_is_batch = given.seed_is_batch || (given.seed.size() == 1 && m > 1);
  const auto at = [](const auto& v, std::uint64_t r) { return v.size() == 1 ? v[0] : v[r]; };
  const auto sampling = [&](std::uint64_t r) {
    return tok::Sampling{at(rows.temperature, r), at(rows.top_k, r), at(rows.top_p, r), at(rows.min_p, r)};
  };
  const auto row_name = [&](std::uint64_t r) { return m > 1 ? "row " + std::to_string(r) + ": " : std::string(); };
  for (std::uint64_t r = 0; r < m; ++r) {
    if (auto why = tok::bad_sampling(sampling(r)); !why.empty()) throw BadInput(row_name(r) + why);
  }
  if (logits.device >= 0) {
    const auto refused = detail::sample_tokens_device(logits, static_cast<int>(type), static_cast<int>(m), static_cast<std::int64_t>(k), rows, out, draws);
    if (!refused.empty())
      throw BadInput(row_name(static_cast<std::uint64_t>(refused[0])) + "the logits hold a NaN or +inf, or are all -inf (" +
                     std::to_string(refused.size()) + " row" + (refused.size() > 1 ? "s" : "") + " refused)");
    return;
  }
  auto* o = reinterpret_cast<std::int32_t*>(out.data);
  std::vector<float> row(k);
  for (std::uint64_t r = 0; r < m; ++r) {
    logit_row(logits, type, r, k, row);
    std::vector<std::int64_t> d;
    try {
      d = tok::draw(row, sampling(r), rows.seed_is_batch ? rng::request_seed(rows.seed[0], r) : at(rows.seed, r), at(rows.offset, r), draws);
    } catch (const std::invalid_argument& e) {
      throw BadInput(row_name(r) + e.what());
    }
    for (int j = 0; j < draws; ++j) o[r * static_cast<std::uint64_t>(draws) + static_cast<std::uint64_t>(j)] = static_cast<std::int32_t>(d[static_cast<std::size_t>(j)]);
  }
}

void token_probabilities(const Array& logits, const Array& out, const TokenRows& rows) {
  const tok::LogitType type = logit_type_of(logits);
  if (out.typestr != "<f8") throw BadType("out must be float64 (type '" + out.typestr + "' given)");
  if (logits.device >= 0 || out.device >= 0) throw BadInput("token_probabilities reads host arrays (the law is the host's definition)");
  if (logits.shape.empty() || logits.shape.size() > 2 || out.shape != logits.shape) throw BadInput("logits must be K or M x K, and out its shape");
  const std::uint64_t m = logits.shape.size() == 2 ? logits.shape[0] : 1, k = logits.shape.back();
  if (k < 1 || m < 1 || k > static_cast<std::uint64_t>(tok::kMaxK)) throw BadInput("logits: rows of 1 to 2^20 logits");
  const auto at = [](const auto& v, std::uint64_t r) { return v.size() == 1 ? v[0] : v[r]; };
  for (const auto* n : {&rows.temperature, &rows.top_p, &rows.min_p})
    if (n->size() != 1 && n->size() != m) throw BadInput("a parameter has neither one value nor one a row");
  if (rows.top_k.size() != 1 && rows.top_k.size() != m) throw BadInput("top_k has neither one value nor one a row");
  auto* o = reinterpret_cast<double*>(out.data);
  std::vector<float> row(k);
  for (std::uint64_t r = 0; r < m; ++r) {
    logit_row(logits, type, r, k, row);
    const tok::Sampling s{at(rows.temperature, r), at(rows.top_k, r), at(rows.top_p, r), at(rows.min_p, r)};
    try {
      const auto p = tok::probabilities(row, s);
      std::memcpy(o + r * k, p.data(), k * sizeof(double));
    } catch (const std::invalid_argument& e) {
      throw BadInput((m > 1 ? "row " + std::to_string(r) + ": " : std::string()) + e.what());
    }
  }
}

}  // namespace warpsim::python
