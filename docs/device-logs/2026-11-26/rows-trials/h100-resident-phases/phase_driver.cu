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
template <class T> void run(const char* name, int m, long long k, int draws) {
  std::vector<T> h(static_cast<size_t>(m) * k);
  std::mt19937 g(5); std::uniform_real_distribution<double> d(0, 1);
  for (auto& x : h) x = static_cast<T>(d(g));
  T* w; int* out; cudaMalloc(&w, h.size() * sizeof(T)); cudaMalloc(&out, m * draws * sizeof(int));
  cudaMemcpy(w, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  gpu::SumTreeSampler<T> s;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::printf("%s (%d, %lld, S = %d): %s\n", name, m, k, draws, gpu::SumTreeSampler<T>::plan(m, k, {}, draws).describe().c_str());
  for (int it = 0; it < 14; ++it) {
    unsigned long long init[64] = {0};
    for (int i : {0, 9, 10, 11, 12, 13}) init[i] = ULLONG_MAX;
    cudaMemcpyToSymbol(gpu::g_phase, init, sizeof(init));
    cudaDeviceSynchronize();
    cudaEventRecord(a);
    s.draw(w, m, k, 7 + it, draws, out);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    unsigned long long p[64]; cudaMemcpyFromSymbol(p, gpu::g_phase, sizeof(p));
    auto rel = [&](int i) { return (p[i] && p[i] != ULLONG_MAX) ? static_cast<long long>(p[i] - p[0]) : -1LL; };
    if (it >= 4)
      std::printf("  event %.2f us | starts ..%lld | landed %lld..%lld | summed %lld..%lld | all seen %lld..%lld | tree %lld..%lld | drawn ..%lld | end %lld..%lld ns\n",
                  ms * 1000, rel(3), rel(9), rel(1), rel(10), rel(2), rel(11), rel(5), rel(12), rel(6), rel(7), rel(13), rel(8));
  }
  cudaFree(w); cudaFree(out);
}
int main() {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 20; ++i) { empty_kernel<<<1, 32>>>(); }
  cudaDeviceSynchronize();
  std::vector<float> e;
  for (int i = 0; i < 21; ++i) { cudaEventRecord(a); empty_kernel<<<1, 32>>>(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); e.push_back(ms); }
  std::sort(e.begin(), e.end());
  std::printf("empty kernel (events, median of 21): %.2f us\n", e[10] * 1000);
  run<float>("fp32", 1, 4096, 1);
  run<float>("fp32", 1, 32768, 1);
  run<float>("fp32", 1, 131072, 1);
  run<float>("fp32", 1, 131072, 64);
  run<double>("fp64", 1, 131072, 1);
  std::printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
