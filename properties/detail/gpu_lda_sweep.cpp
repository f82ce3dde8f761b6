// The LDA chain's sweep on the GPU (properties/lda_sbc.hpp's LdaSweep): the
// z draw by gpu::LdaSampler<double> (the butterfly, u = rng::uniform(seed,
// t)), theta and phi by gpu::LdaTopicSampler<double>; the corpus copied to
// the device once, theta and phi each sweep (the harness holds them).
#include <cuda_runtime.h>

#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu/gamma.hpp"
#include "gpu/launch.hpp"
#include "gpu/lda_sampler.hpp"
#include "properties/lda_sbc.hpp"

namespace warpsim::properties {

namespace {

class GpuSweep final : public LdaSweep {
 public:
  std::vector<int> draw_z(const oracle::LdaCorpus& c, const std::vector<double>& theta, const std::vector<double>& phi, int k,
                          std::uint64_t seed) override {
    upload_corpus(c);
    double* dt = theta_.ensure(theta.size());
    double* dp = phi_.ensure(phi.size());
    WARPSIM_CUDA(cudaMemcpy(dt, theta.data(), theta.size() * sizeof(double), cudaMemcpyHostToDevice));
    WARPSIM_CUDA(cudaMemcpy(dp, phi.data(), phi.size() * sizeof(double), cudaMemcpyHostToDevice));
    int* dz = z_.ensure(std::max<std::size_t>(1, c.words.size()));
    z_sampler_.draw(dt, dp, offsets_.ensure(1), words_.ensure(1), c.documents, k, seed, gpu::MatrixAlgorithm::ButterflyStandard, dz);
    std::vector<int> z(c.words.size());
    WARPSIM_CUDA(cudaMemcpy(z.data(), dz, z.size() * sizeof(int), cudaMemcpyDeviceToHost));
    return z;
  }
  void draw_topics(const oracle::LdaCorpus& c, const std::vector<int>& z, int k, double alpha, double beta, std::uint64_t seed,
                   std::vector<double>& theta, std::vector<double>& phi) override {
    upload_corpus(c);
    int* dz = z_.ensure(std::max<std::size_t>(1, z.size()));
    WARPSIM_CUDA(cudaMemcpy(dz, z.data(), z.size() * sizeof(int), cudaMemcpyHostToDevice));
    const auto kk = static_cast<std::size_t>(k);
    theta.resize(static_cast<std::size_t>(c.documents) * kk);
    phi.resize(static_cast<std::size_t>(c.vocabulary) * kk);
    double* dt = theta_.ensure(theta.size());
    double* dp = phi_.ensure(phi.size());
    topics_.draw(dz, offsets_.ensure(1), words_.ensure(1), c.documents, c.vocabulary, k, alpha, beta, seed, dt, dp);
    WARPSIM_CUDA(cudaMemcpy(theta.data(), dt, theta.size() * sizeof(double), cudaMemcpyDeviceToHost));
    WARPSIM_CUDA(cudaMemcpy(phi.data(), dp, phi.size() * sizeof(double), cudaMemcpyDeviceToHost));
  }
  std::string name() const override { return "the GPU's kernels (gpu::LdaSampler butterfly, gpu::LdaTopicSampler, double)"; }

 private:
  // The corpus's words and offsets, copied when they change (each replication's words).
  void upload_corpus(const oracle::LdaCorpus& c) {
    if (c.words == words_host_ && c.offsets == offsets_host_) return;
    int* dw = words_.ensure(std::max<std::size_t>(1, c.words.size()));
    int* doff = offsets_.ensure(c.offsets.size());
    WARPSIM_CUDA(cudaMemcpy(dw, c.words.data(), c.words.size() * sizeof(int), cudaMemcpyHostToDevice));
    WARPSIM_CUDA(cudaMemcpy(doff, c.offsets.data(), c.offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
    words_host_ = c.words;
    offsets_host_ = c.offsets;
  }
  gpu::LdaSampler<double> z_sampler_;
  gpu::LdaTopicSampler<double> topics_;
  gpu::DeviceScratch<double> theta_, phi_;
  gpu::DeviceScratch<int> z_, words_, offsets_;
  std::vector<int> words_host_, offsets_host_;
};

}  // namespace

std::unique_ptr<LdaSweep> gpu_lda_sweep(std::string* why) {
  std::string reason;
  if (!gpu::first_device(&reason)) {
    if (why) *why = "no CUDA device: " + reason;
    return nullptr;
  }
  return std::make_unique<GpuSweep>();
}

}  // namespace warpsim::properties
