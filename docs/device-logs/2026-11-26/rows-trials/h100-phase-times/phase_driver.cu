#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <random>
#include <climits>
#include <algorithm>
#include "gpu/sum_tree_sampler.hpp"
namespace warpsim::gpu { extern __device__ unsigned long long g_phase[64]; }
using namespace warpsim;
__global__ void empty_kernel() {}
template <class T> void run(const char* name, int m, long long k) {
  std::vector<T> h(static_cast<size_t>(m) * k);
  std::mt19937 g(5); std::uniform_real_distribution<double> d(0, 1);
  for (auto& x : h) x = static_cast<T>(d(g));
  T* w; int* out; cudaMalloc(&w, h.size() * sizeof(T)); cudaMalloc(&out, m * sizeof(int));
  cudaMemcpy(w, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  gpu::SumTreeSampler<T> s;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::printf("%s (%d, %lld): %s\n", name, m, k, gpu::SumTreeSampler<T>::plan(m, k).describe().c_str());
  for (int it = 0; it < 12; ++it) {
    unsigned long long init[64] = {0}; init[0] = ULLONG_MAX;
    cudaMemcpyToSymbol(gpu::g_phase, init, sizeof(init));
    cudaDeviceSynchronize();
    cudaEventRecord(a);
    s.draw(w, m, k, 7 + it, 1, out);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    unsigned long long p[64]; cudaMemcpyFromSymbol(p, gpu::g_phase, sizeof(p));
    auto rel = [&](int i) { return p[i] ? static_cast<long long>(p[i] - p[0]) : -1LL; };
    if (it >= 2) std::printf("  starts %lld..%lld, warp 0 batches %lld %lld %lld %lld\n", rel(4), rel(3), rel(20), rel(21), rel(22), rel(23));
    if (it >= 2) std::printf("  event %.2f us | seg: sums %lld, stored %lld | row: entry %lld, waited %lld, tree %lld, staged %lld, lanes %lld, walked %lld, stored %lld ns\n",
                ms * 1000, rel(1), rel(2), rel(10), rel(11), rel(12), rel(13), rel(14), rel(15), rel(16));
  }
  cudaFree(w); cudaFree(out);
}
int main() {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 20; ++i) { empty_kernel<<<1, 32>>>(); }
  cudaDeviceSynchronize();
  float best = 1e9;
  for (int i = 0; i < 20; ++i) { cudaEventRecord(a); empty_kernel<<<1, 32>>>(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); best = std::min(best, ms); }
  std::printf("empty kernel (events, best of 20): %.2f us\n", best * 1000);
  run<float>("fp32", 1, 131072);
  run<float>("fp32", 1, 1048576);
  run<double>("fp64", 1, 131072);
  std::printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
