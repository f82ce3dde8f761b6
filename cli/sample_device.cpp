#include "cli/sample_device.hpp"

#include <cuda_runtime.h>

#include <cstring>
#include <stdexcept>

#include "cli/errors.hpp"
#include "cli/validate/device.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu/token_sampler.hpp"

namespace warpsim::cli::sample_device {

DeviceDraws sample(const std::vector<float>& logits, oracle::token::LogitType type, int m, std::int64_t k, const oracle::token::Sampling& s,
                   std::uint64_t seed, std::uint64_t offset, int draws) {
  std::string why;
  const auto device = gpu::first_device(&why);
  if (!device) throw UsageError("--device: no usable CUDA device: " + why);
  try {
    // the logits in their own type: fp32 as they are, 16-bit types as their bits
    const auto n = logits.size();
    const gpu::LogitType gtype = type == oracle::token::LogitType::F32    ? gpu::LogitType::F32
                                 : type == oracle::token::LogitType::BF16 ? gpu::LogitType::BF16
                                                                          : gpu::LogitType::F16;
    validate::device::Buffer x(n * (type == oracle::token::LogitType::F32 ? 4 : 2), "--device: the logits");
    if (type == oracle::token::LogitType::F32) {
      x.upload(logits.data(), x.bytes());
    } else {
      std::vector<std::uint16_t> bits(n);
      for (std::size_t i = 0; i < n; ++i) bits[i] = oracle::token::logit_bits(logits[i], type);
      x.upload(bits.data(), x.bytes());
    }
    validate::device::Buffer out(static_cast<std::size_t>(m) * static_cast<std::size_t>(draws) * sizeof(int), "--device: the draws");
    gpu::TokenParams p;
    p.temperature_all = s.temperature, p.top_k_all = static_cast<int>(std::min<std::int64_t>(s.top_k, 1 << 30)), p.top_p_all = s.top_p,
    p.min_p_all = s.min_p, p.seed_all = seed, p.offset_all = offset;
    gpu::TokenSampler sampler;
    cudaEvent_t a, b;
    WARPSIM_CUDA(cudaEventCreate(&a));
    WARPSIM_CUDA(cudaEventCreate(&b));
    WARPSIM_CUDA(cudaEventRecord(a));
    sampler.sample(x.get(), gtype, m, k, p, draws, static_cast<int*>(out.get()));
    WARPSIM_CUDA(cudaEventRecord(b));
    WARPSIM_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    WARPSIM_CUDA(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    DeviceDraws d;
    d.device = device->name;
    d.plan = gpu::TokenSampler::plan(m, k, gtype).describe();
    d.milliseconds = ms;
    d.draws.resize(static_cast<std::size_t>(m) * static_cast<std::size_t>(draws));
    out.download(d.draws.data(), out.bytes());
    return d;
  } catch (const gpu::CudaError& e) {
    throw UsageError(std::string("--device: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--device: ") + e.what());
  }
}

}  // namespace warpsim::cli::sample_device
