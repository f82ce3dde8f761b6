// Read-bandwidth probe: how fast can a kernel only read N bytes on this GPU?
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

// grid-stride, U vectors a thread an iteration
template <int U>
__global__ void __launch_bounds__(256) gs_sum(const double2* __restrict__ p, size_t n, double* out) {
  double s = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    double2 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldg(p + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) s += v[u].x + v[u].y;
  }
  for (; i < n; i += stride) { double2 v = p[i]; s += v.x + v.y; }
  if (s == 12345.678) out[0] = s;
}
// one-shot: a warp a 16 KB segment, lane l's vector j at j*32+l, batches of B
template <int B>
__global__ void __launch_bounds__(256) seg_sum(const double2* __restrict__ p, size_t segs, double* out) {
  const int lane = threadIdx.x % 32;
  const size_t seg = (size_t)blockIdx.x * 8 + threadIdx.x / 32;
  if (seg >= segs) return;
  const double2* q = p + seg * 1024;
  double s = 0;
  for (int j0 = 0; j0 < 32; j0 += B) {
    double2 v[B];
#pragma unroll
    for (int j = 0; j < B; ++j) v[j] = __ldg(q + (j0 + j) * 32 + lane);
#pragma unroll
    for (int j = 0; j < B; ++j) s += v[j].x + v[j].y;
  }
  if (s == 12345.678) out[0] = s;
}
template <class F> float med(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) f();
  cudaDeviceSynchronize();
  std::vector<float> t;
  for (int i = 0; i < 21; ++i) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  size_t big = (size_t)1 << 30;
  char *a, *b; double* out;
  CK(cudaMalloc(&a, big)); CK(cudaMalloc(&b, big)); CK(cudaMalloc(&out, 8));
  CK(cudaMemset(a, 0, big));
  float cp = med([&] { cudaMemcpy(b, a, big, cudaMemcpyDeviceToDevice); });
  printf("{\"what\": \"copy 1 GiB\", \"ms\": %.4f, \"GBps_rw\": %.0f}\n", cp, 2.0 * big / (cp * 1e6));
  float empty = med([&] { gs_sum<1><<<1, 32>>>((const double2*)a, 0, out); });
  printf("{\"what\": \"empty\", \"ms\": %.4f}\n", empty);
  for (size_t bytes : {(size_t)1 << 28, (size_t)1 << 30}) {
    size_t n = bytes / 16;
    for (int bps : {4, 8, 16, 32}) {
      float t4 = med([&] { gs_sum<4><<<sms * bps / 2, 256>>>((const double2*)a, n, out); });
      float t8 = med([&] { gs_sum<8><<<sms * bps / 2, 256>>>((const double2*)a, n, out); });
      printf("{\"what\": \"grid-stride\", \"bytes\": %zu, \"warps_per_sm\": %d, \"U4_ms\": %.4f, \"U4_GBps\": %.0f, \"U8_ms\": %.4f, \"U8_GBps\": %.0f}\n",
             bytes, bps * 4, t4, bytes / (t4 * 1e6), t8, bytes / (t8 * 1e6));
    }
    size_t segs = bytes / 16384;
    unsigned blocks = (unsigned)((segs + 7) / 8);
    float s8 = med([&] { seg_sum<8><<<blocks, 256>>>((const double2*)a, segs, out); });
    float s16 = med([&] { seg_sum<16><<<blocks, 256>>>((const double2*)a, segs, out); });
    float s32 = med([&] { seg_sum<32><<<blocks, 256>>>((const double2*)a, segs, out); });
    printf("{\"what\": \"a warp a 16 KB segment\", \"bytes\": %zu, \"B8_ms\": %.4f, \"B8_GBps\": %.0f, \"B16_ms\": %.4f, \"B16_GBps\": %.0f, \"B32_ms\": %.4f, \"B32_GBps\": %.0f}\n",
           bytes, s8, bytes / (s8 * 1e6), s16, bytes / (s16 * 1e6), s32, bytes / (s32 * 1e6));
  }
  CK(cudaGetLastError());
  return 0;
}
