// Programmatic dependent launch (Hopper; CUDA programming guide, "Programmatic
// Dependent Launch and Synchronization"): a chain of kernels on one stream in
// which each may be scheduled while the one before it drains, instead of
// after it has finished and the launch has been processed. For builds made
// of many short passes (the alias build at 10^5-10^7 items: about ten
// kernels, each a few microseconds), the gaps between them are much of the
// time.
//
// The contract, for every kernel launched with `dependent = true`:
//   * it calls previous_grid_done() before it touches global memory (reads
//     what the kernel before wrote, or writes what that kernel reads), on
//     every path, and before it returns: a grid whose every block returned
//     without waiting could finish before the grid it follows, and the
//     kernel after it would then read too early;
//   * it may call next_grid_may_start() anywhere: the next kernel's blocks
//     then take the SM slots this grid's tail leaves free and wait there.
// A kernel launched without the attribute (the first of a build, CUB's)
// waits for the one before it as usual; the calls are then no-ops.
//
//   __global__ void pass(const float* w, Scale* s) {
//     next_grid_may_start();
//     previous_grid_done();
//     ...
//   }
//   launch(pass, grid, threads, 0, stream, /*dependent=*/true, w, s);
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace warpsim::gpu::detail {

// Blocks until the grid this one follows has finished and its writes are
// visible; returns at once where it already had (the runtime's
// cudaGridDependencySynchronize: griddepcontrol.wait, sm_90 and later).
__device__ __forceinline__ void previous_grid_done() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

// Lets the next grid on the stream be scheduled once every block of this one
// has called this or returned (cudaTriggerProgrammaticLaunchCompletion).
__device__ __forceinline__ void next_grid_may_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// Both, at the top of a kernel of the chain.
__device__ __forceinline__ void join_dependent_chain() {
  next_grid_may_start();
  previous_grid_done();
}

// kernel<<<grid, block, shared, stream>>>(args...) with the launch
// attribute `attribute` (none where null), checked.
template <class... Params, class... Args>
void launch_with(cudaLaunchAttribute* attribute, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream,
                 Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = attribute ? 1 : 0;
  WARPSIM_CUDA(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(std::forward<Args>(args))...));
}

// kernel<<<grid, block, shared, stream>>>(args...), checked; with
// `dependent`, as a programmatic dependent launch of the kernel before it
// on the stream (cudaLaunchAttributeProgrammaticStreamSerialization; kept
// by stream capture, so a captured graph has the same edges).
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream, bool dependent, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  launch_with(dependent ? &attribute : nullptr, kernel, grid, block, shared, stream, std::forward<Args>(args)...);
}

// The same, as a cooperative launch (cudaLaunchAttributeCooperative): every
// block of the grid is resident at once, or the launch fails (checked), so
// that blocks may wait on one another.
template <class... Params, class... Args>
void launch_cooperative(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeCooperative;
  attribute.val.cooperative = 1;
  launch_with(&attribute, kernel, grid, block, shared, stream, std::forward<Args>(args)...);
}

// The same, as a launch of thread-block clusters of `cluster` blocks along
// x (cudaLaunchAttributeClusterDimension; sm_90): the grid's x a multiple
// of it, the blocks of a cluster on one GPC at once, sharing their shared
// memory (cooperative_groups::this_cluster()).
inline cudaLaunchAttribute cluster_attribute(unsigned cluster) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  return attribute;
}

template <class... Params, class... Args>
void launch_clustered(unsigned cluster, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream,
                      Args&&... args) {
  cudaLaunchAttribute attribute = cluster_attribute(cluster);
  launch_with(&attribute, kernel, grid, block, shared, stream, std::forward<Args>(args)...);
}

// Whether the device holds at least one such cluster of `kernel` at once
// (cudaOccupancyMaxActiveClusters), checked.
template <class... Params>
bool cluster_fits(unsigned cluster, void (*kernel)(Params...), dim3 block, std::size_t shared) {
  cudaLaunchAttribute attribute = cluster_attribute(cluster);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(cluster);
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.attrs = &attribute;
  config.numAttrs = 1;
  int clusters = 0;
  WARPSIM_CUDA(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  return clusters > 0;
}

}  // namespace warpsim::gpu::detail
