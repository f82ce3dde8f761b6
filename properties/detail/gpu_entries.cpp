// The kernels of gpu/matrix_sampler.hpp as registry entries: weights copied to
// the device, one MatrixSampler<T>::draw, indices copied back; every CUDA call
// checked. The pairing with the oracle's algorithms is the table below.
#include "properties/detail/gpu_entries.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <memory>
#include <string>

#include "gpu/alias_table.hpp"
#include "gpu/bringmann_larsen.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gamma.hpp"
#include "gpu/device.hpp"
#include "gpu/launch.hpp"  // DeviceScratch
#include "gpu/matrix_sampler.hpp"
#include "gpu/sum_tree_sampler.hpp"
#include "gpu/token_sampler.hpp"
#include "properties/gpu_kernels.hpp"
#include "properties/token_row.hpp"
#include "properties/value_samplers.hpp"

namespace warpsim::properties::detail {

namespace {

// A matrix on the device for one call: the weights copied over, `draw(dw,
// dout)` run with them, `draws` indices a row copied back.
template <class T, class Draw>
std::vector<int> on_device(const Matrix<T>& m, Draw&& draw, int draws = 1) {
  const std::size_t n = static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols);
  const std::size_t outputs = static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(draws);
  gpu::DeviceScratch<T> w;
  gpu::DeviceScratch<int> out;
  T* dw = w.ensure(n);
  int* dout = out.ensure(outputs);
  WARPSIM_CUDA(cudaMemcpy(dw, m.weights.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  draw(dw, dout);
  std::vector<int> idx(outputs);
  WARPSIM_CUDA(cudaMemcpy(idx.data(), dout, idx.size() * sizeof(int), cudaMemcpyDeviceToHost));
  return idx;
}

template <class T>
MatrixDraw<T> gpu_draw(gpu::MatrixAlgorithm algorithm) {
  auto sampler = std::make_shared<gpu::MatrixSampler<T>>();  // keeps its scratch across calls
  return [algorithm, sampler](const Matrix<T>& m, std::uint64_t seed) {
    return on_device(m, [&](const T* dw, int* dout) { sampler->draw(dw, m.rows, m.cols, seed, algorithm, dout); });
  };
}

// Its draws left on the device.
template <class T>
DeviceMatrixDraw<T> gpu_device_draw(gpu::MatrixAlgorithm algorithm) {
  auto sampler = std::make_shared<gpu::MatrixSampler<T>>();
  return [algorithm, sampler](const T* dw, int rows, int cols, std::uint64_t seed, std::int32_t* dout) {
    sampler->draw(dw, rows, cols, seed, algorithm, dout);
  };
}

// The sum-tree draw's GPU entry: gpu::SumTreeSampler<T>, one draw a row,
// the layout its plan chooses.
template <class T>
MatrixDraw<T> gpu_sum_tree() {
  auto sampler = std::make_shared<gpu::SumTreeSampler<T>>();
  return [sampler](const Matrix<T>& m, std::uint64_t seed) {
    return on_device(m, [&](const T* dw, int* dout) { sampler->draw(dw, m.rows, m.cols, seed, 1, dout); });
  };
}

template <class T>
DeviceRowDraws<T> gpu_device_sum_tree_rows() {
  auto sampler = std::make_shared<gpu::SumTreeSampler<T>>();
  return [sampler](const T* dw, int rows, int cols, std::uint64_t seed, int draws, std::int32_t* dout) { sampler->draw(dw, rows, cols, seed, draws, dout); };
}

// Its S draws a row: the same sampler, `draws` a row, the plan's layout for
// them.
template <class T>
RowDraws<T> gpu_sum_tree_rows() {
  auto sampler = std::make_shared<gpu::SumTreeSampler<T>>();
  return [sampler](const Matrix<T>& m, std::uint64_t seed, int draws) {
    return on_device(m, [&](const T* dw, int* dout) { sampler->draw(dw, m.rows, m.cols, seed, draws, dout); }, draws);
  };
}

// The token sampler's GPU entry: each row's logits (properties/token_row.hpp,
// made on the host as the oracle entry makes them) copied over, one
// gpu::TokenSampler::sample with the batch's seed (row r the request of
// rng::request_seed(seed, r)) at offset 0, `draws` a row.
template <class T>
RowDraws<T> gpu_token_rows() {
  return [](const Matrix<T>& m, std::uint64_t seed, int draws) {
    Matrix<float> x{m.rows, m.cols, {}};
    x.weights.reserve(m.weights.size());
    for (int r = 0; r < m.rows; ++r) {
      const auto row = token_logits<T>(m.row(r));
      x.weights.insert(x.weights.end(), row.begin(), row.end());
    }
    gpu::TokenParams params;
    params.seed_all = seed;
    return on_device(
        x, [&](const float* dx, int* dout) { gpu::TokenSampler().sample(dx, gpu::LogitType::F32, m.rows, m.cols, params, draws, dout); }, draws);
  };
}

// An alias table's GPU entries: the weights copied over, the table built by
// gpu::AliasTableBuilder (kept for the next call with the same weights), the
// draws by gpu::alias_sample (or AliasSectionedSampler, a call a batch),
// copied back (many) or left on the device (device_many).
template <class T>
struct GpuAlias {
  GpuAlias(std::size_t group, std::size_t section_rows) : psa_plus_group(group), sections(section_rows), sectioned(section_rows) {}
  std::size_t psa_plus_group, sections;
  gpu::AliasTableBuilder<T> builder;
  gpu::AliasSectionedSampler sectioned;
  gpu::DeviceScratch<unsigned char> weights, rows, out;
  gpu::AliasTableInfo info;
  std::vector<T> last;

  // Draws first .. first + count - 1 of the table of w into out (device).
  void sample(std::span<const T> w, std::uint64_t seed, std::uint64_t first, std::uint64_t count, std::uint32_t* d_out) {
    auto* r = reinterpret_cast<gpu::AliasRow*>(rows.ensure(std::max<std::size_t>(1, w.size()) * sizeof(gpu::AliasRow)));
    if (last.size() != w.size() || !std::equal(w.begin(), w.end(), last.begin()) || info.n == 0) {
      last.clear();
      T* dw = reinterpret_cast<T*>(weights.ensure(std::max<std::size_t>(1, w.size()) * sizeof(T)));
      if (!w.empty()) WARPSIM_CUDA(cudaMemcpy(dw, w.data(), w.size() * sizeof(T), cudaMemcpyHostToDevice));
      info = {};
      gpu::AliasBuildConfig config;
      config.psa_plus_group = psa_plus_group;
      info = builder.build(dw, w.size(), r, config);
      last.assign(w.begin(), w.end());
    }
    if (count == 0) return;
    if (sections != 0) sectioned.sample(r, info, seed, first, count, d_out);
    else gpu::alias_sample(r, info, seed, first, count, d_out);
  }
};

template <class T>
ManyDraw<T> gpu_alias(const std::shared_ptr<GpuAlias<T>>& st) {
  return [st](std::span<const T> w, std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
    std::vector<std::uint32_t> idx(static_cast<std::size_t>(count));
    auto* out = reinterpret_cast<std::uint32_t*>(st->out.ensure(std::max<std::size_t>(1, idx.size()) * sizeof(std::uint32_t)));
    st->sample(w, seed, first, count, out);
    if (count != 0) WARPSIM_CUDA(cudaMemcpy(idx.data(), out, idx.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    return idx;
  };
}

template <class T>
DeviceManyDraw<T> gpu_device_alias(const std::shared_ptr<GpuAlias<T>>& st) {
  return [st](std::span<const T> w, std::uint64_t seed, std::uint64_t first, std::uint64_t count, std::int32_t* dout) {
    if (w.size() > (std::size_t{1} << 31)) throw std::invalid_argument("device draws are int32: at most 2^31 items");
    st->sample(w, seed, first, count, reinterpret_cast<std::uint32_t*>(dout));
  };
}

// The GPU's table as a table builder's image: keep_r = threshold_r / 2^64,
// exactly what sampling uses; its resolution is the units' bound, k 2^-60.
template <class T>
TableBuild<T> gpu_alias_table(std::size_t psa_plus_group) {
  auto builder = std::make_shared<gpu::AliasTableBuilder<T>>();
  return [psa_plus_group, builder](std::span<const T> w) {
    gpu::DeviceScratch<unsigned char> dw_bytes, rows_bytes;
    T* dw = reinterpret_cast<T*>(dw_bytes.ensure(std::max<std::size_t>(1, w.size()) * sizeof(T)));
    auto* rows = reinterpret_cast<gpu::AliasRow*>(rows_bytes.ensure(std::max<std::size_t>(1, w.size()) * sizeof(gpu::AliasRow)));
    if (!w.empty()) WARPSIM_CUDA(cudaMemcpy(dw, w.data(), w.size() * sizeof(T), cudaMemcpyHostToDevice));
    gpu::AliasBuildConfig config;
    config.psa_plus_group = psa_plus_group;
    builder->build(dw, w.size(), rows, config);
    std::vector<gpu::AliasRow> host(w.size());
    WARPSIM_CUDA(cudaMemcpy(host.data(), rows, host.size() * sizeof(gpu::AliasRow), cudaMemcpyDeviceToHost));
    AliasTableImage image;
    image.resolution = std::ldexp(static_cast<long double>(w.size()), -60);  // the units' bound (oracle/alias/units.hpp)
    for (const auto& r : host) {
      image.keep.push_back(std::ldexp(static_cast<long double>(r.threshold), -64));
      image.alias.push_back(r.alias);
    }
    return image;
  };
}

// Bringmann-Larsen's GPU entry: the weights copied over, the structure built
// by gpu::BringmannLarsenBuilder (kept for the next call with the same
// weights), the draws by the pre-cached kernel, copied back.
template <class T>
ManyDraw<T> gpu_bringmann_larsen() {
  struct State {
    gpu::BringmannLarsenBuilder<T> builder;
    gpu::DeviceScratch<unsigned char> weights, words, thresholds, out;
    gpu::BringmannLarsenInfo info;
    std::vector<T> last;
  };
  auto st = std::make_shared<State>();
  return [st](std::span<const T> w, std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
    const std::size_t n = std::max<std::size_t>(1, w.size());
    auto* words = reinterpret_cast<gpu::BringmannLarsenWord*>(st->words.ensure(gpu::bringmann_larsen_words(n) * sizeof(gpu::BringmannLarsenWord)));
    auto* thresholds = reinterpret_cast<std::uint64_t*>(st->thresholds.ensure(n * sizeof(std::uint64_t)));
    if (st->last.size() != w.size() || !std::equal(w.begin(), w.end(), st->last.begin()) || st->info.n == 0) {
      st->last.clear();
      st->info = {};
      T* dw = reinterpret_cast<T*>(st->weights.ensure(n * sizeof(T)));
      if (!w.empty()) WARPSIM_CUDA(cudaMemcpy(dw, w.data(), w.size() * sizeof(T), cudaMemcpyHostToDevice));
      st->info = st->builder.build(dw, w.size(), words, thresholds);
      st->last.assign(w.begin(), w.end());
    }
    std::vector<std::uint32_t> idx(static_cast<std::size_t>(count));
    if (count == 0) return idx;
    auto* out = reinterpret_cast<std::uint32_t*>(st->out.ensure(static_cast<std::size_t>(count) * sizeof(std::uint32_t)));
    gpu::bringmann_larsen_sample(words, thresholds, st->info, seed, first, count, out);
    WARPSIM_CUDA(cudaMemcpy(idx.data(), out, idx.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    return idx;
  };
}

// Asked once: the reason stays with the answer.
std::string device_unavailable() {
  static const std::string why = [] {
    std::string reason;
    return gpu::first_device(&reason) ? std::string() : "no CUDA device: " + reason;
  }();
  return why;
}

}  // namespace

void add_gpu_entries(std::vector<Algorithm>& rows) {
  for (auto& a : rows) {
    Sampler s{.name = a.name + "@gpu", .algorithm = a.name, .where = "GPU", .determinism = a.determinism};
    switch (a.family) {
      case Family::Matrix: {
        const auto* kernel = [&]() -> const gpu::MatrixAlgorithm* {
          for (const auto& [name, k] : matrix_kernels())
            if (name == a.name) return &k;
          return nullptr;
        }();
        if (!kernel) continue;  // a listing with no kernel of its own (linear search, transpose through memory)
        s.adds_in_order = a.oracle.adds_in_order;
        s.f32 = gpu_draw<float>(*kernel);
        s.f64 = gpu_draw<double>(*kernel);
        s.device32 = gpu_device_draw<float>(*kernel);
        s.device64 = gpu_device_draw<double>(*kernel);
        break;
      }
      case Family::SumTree:
        s.f32 = gpu_sum_tree<float>();
        s.f64 = gpu_sum_tree<double>();
        s.rows32 = gpu_sum_tree_rows<float>();
        s.rows64 = gpu_sum_tree_rows<double>();
        s.device_rows32 = gpu_device_sum_tree_rows<float>();
        s.device_rows64 = gpu_device_sum_tree_rows<double>();
        s.device32 = [rows = s.device_rows32](const float* w, int m, int k, std::uint64_t seed, std::int32_t* out) { rows(w, m, k, seed, 1, out); };
        s.device64 = [rows = s.device_rows64](const double* w, int m, int k, std::uint64_t seed, std::int32_t* out) { rows(w, m, k, seed, 1, out); };
        break;
      case Family::AliasTable: {
        const auto a32 = std::make_shared<GpuAlias<float>>(a.alias.psa_plus_group, a.alias.section_rows);
        const auto a64 = std::make_shared<GpuAlias<double>>(a.alias.psa_plus_group, a.alias.section_rows);
        s.many32 = gpu_alias(a32);
        s.many64 = gpu_alias(a64);
        s.device_many32 = gpu_device_alias(a32);
        s.device_many64 = gpu_device_alias(a64);
        s.table32 = gpu_alias_table<float>(a.alias.psa_plus_group);
        s.table64 = gpu_alias_table<double>(a.alias.psa_plus_group);
        s.f32 = matrix_of(s.many32);
        s.f64 = matrix_of(s.many64);
        break;
      }
      case Family::Token:
        s.rows32 = gpu_token_rows<float>();
        s.rows64 = gpu_token_rows<double>();
        s.f32 = one_draw_of(s.rows32);
        s.f64 = one_draw_of(s.rows64);
        break;
      case Family::BringmannLarsen:
        s.many32 = gpu_bringmann_larsen<float>();
        s.many64 = gpu_bringmann_larsen<double>();
        s.f32 = matrix_of(s.many32);
        s.f64 = matrix_of(s.many64);
        break;
    }
    s.unavailable = device_unavailable;
    a.gpu = std::move(s);
  }
}

}  // namespace warpsim::properties::detail

namespace warpsim::properties {

const std::vector<std::pair<std::string, gpu::MatrixAlgorithm>>& matrix_kernels() {
  static const std::vector<std::pair<std::string, gpu::MatrixAlgorithm>> kernels = {
      {"baseline-binary", gpu::MatrixAlgorithm::Baseline},
      {"transposed-registers", gpu::MatrixAlgorithm::TransposedRegisters},
      {"butterfly-standard", gpu::MatrixAlgorithm::ButterflyStandard},
      {"butterfly-addsub", gpu::MatrixAlgorithm::ButterflyAddSub},
  };
  return kernels;
}

const std::string& name_of(gpu::MatrixAlgorithm kernel) {
  for (const auto& [name, k] : matrix_kernels())
    if (k == kernel) return name;
  throw std::logic_error("a kernel missing from properties::matrix_kernels()");
}

}  // namespace warpsim::properties
