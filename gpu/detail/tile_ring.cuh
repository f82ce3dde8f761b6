// Blocks streamed through shared memory: asynchronous copies (cp.async) of
// W x W tiles, and a ring of such tiles that keeps several blocks in flight
// per warp without holding them in registers. Used by the draw_*_recompute
// kernels past shared memory (matrix and LDA workloads alike).
#pragma once

#include <cuda_pipeline_primitives.h>

#include <cstddef>

#include "gpu/detail/butterfly_search.hpp"  // kW

namespace warpsim::gpu::detail {

// How a warp copies a tile 16 bytes at a time: a row of W values is
// 128 (fp32) or 256 (fp64) bytes, lanes_per_row lanes copy it, a warp
// instruction covers rows_per_pass rows, and each lane takes part in
// passes = rows_per_lane copies of different rows.
template <class T>
struct Copy16 {
  static constexpr int per_copy = 16 / sizeof(T);
  static constexpr int lanes_per_row = kW / per_copy;
  static constexpr int rows_per_pass = kW / lanes_per_row;
  static constexpr int rows_per_lane = kW / rows_per_pass;
  // The row lane `lane` copies in pass i, and the column it starts at.
  __device__ static constexpr int row(int i, int lane) { return i * rows_per_pass + lane / lanes_per_row; }
  __device__ static constexpr int col(int lane) { return (lane % lanes_per_row) * per_copy; }
};

// Copies W rows of W values from global into shared memory asynchronously,
// row kk at tile[kk * W .. kk * W + W-1]. `rows` says where each row starts:
//   const T* rows.row16(int i, int kk)  -- row kk, which the lane copies in
//                                          pass i of Copy16 (vec16)
//   const T* rows.row(int kk)           -- row kk, every lane (one value each)
// With vec16 (every row start 16-byte aligned) a lane copies 16 bytes at a
// time and a warp instruction moves whole 128-byte lines.
template <class T, class Rows>
__device__ __forceinline__ void copy_tile_async(T* tile, const Rows& rows, int lane, bool vec16) {
  if (vec16) {
    using C = Copy16<T>;
    const int col = C::col(lane);
#pragma unroll
    for (int i = 0; i < C::rows_per_lane; ++i) {
      const int kk = C::row(i, lane);
      __pipeline_memcpy_async(tile + kk * kW + col, rows.row16(i, kk) + col, 16);
    }
  } else {
#pragma unroll 8
    for (int kk = 0; kk < kW; ++kk) __pipeline_memcpy_async(tile + kk * kW + lane, rows.row(kk) + lane, sizeof(T));
  }
}

// The rows copy_tile_async reads for warp q of an M x K row-major matrix
// (its rows q*W .. q*W + W-1; past the end, the last row) at columns j ..
// j+W-1.
template <class T>
struct WarpRows {
  const T* __restrict__ w;
  int m, k, j;
  std::size_t q;
  __device__ __forceinline__ const T* row(int kk) const {
    return w + min(q * kW + kk, static_cast<std::size_t>(m - 1)) * static_cast<std::size_t>(k) + j;
  }
  __device__ __forceinline__ const T* row16(int, int kk) const { return row(kk); }
};

// The rows a lane copies with 16-byte copies (Copy16's passes), their
// starts found once for a run of blocks: row16(i, kk) is pass i's row at
// column j. For copy_tile_async with vec16 only.
template <class T>
struct HoistedRows {
  const T* start[Copy16<T>::rows_per_lane];
  int j = 0;
  __device__ __forceinline__ const T* row16(int i, int) const { return start[i] + j; }
  __device__ __forceinline__ const T* row(int) const { return nullptr; }  // never called: vec16 only
};

// A ring of Ring stages in a warp's shared memory through which blocks
// stream, Ring - 1 blocks copied ahead of the one being read. Blocks must be
// acquired in order, after prologue(), and each released before the next is
// acquired. `Tiles` says what a stage holds:
//   static constexpr int stage_values          -- values per stage
//   void copy(int j, T* stage) const           -- start copying the block
//                                                 at column j into `stage`
template <class T, int Ring, class Tiles>
struct TileRing {
  Tiles tiles;
  T* ring;  // the warp's Ring stages
  int r, blocks, lane;

  __device__ __forceinline__ void copy(int b) const { tiles.copy(r + b * kW, ring + (b % Ring) * Tiles::stage_values); }
  __device__ __forceinline__ void prologue() const {
#pragma unroll
    for (int b = 0; b < Ring - 1; ++b) {
      if (b < blocks) copy(b);
      __pipeline_commit();
    }
  }
  // Block b's stage, offset to the lane's column, once the block has landed.
  __device__ __forceinline__ const T* acquire(int b) const {
    if (b + Ring - 1 < blocks) copy(b + Ring - 1);  // into the stage block b - 1 left
    __pipeline_commit();
    __pipeline_wait_prior(Ring - 1);  // block b has landed
    __syncwarp();
    return ring + (b % Ring) * Tiles::stage_values + lane;
  }
  // Every lane has read the stage: it may be copied into again.
  __device__ __forceinline__ void release() const { __syncwarp(); }
};

// A draw_*_recompute source whose blocks come through a TileRing. Tiles
// also says how a block is read from its stage and how the lane's own
// weights are read directly:
//   void read(const T* stage, T (&a)[W]) const  -- stage: the lane's column
//   T own(int j), void own_block(int j, T (&x)[W])
template <class T, int Ring, class Tiles>
struct RingSource : TileRing<T, Ring, Tiles> {
  __device__ __forceinline__ T own(int j) const { return this->tiles.own(j); }
  __device__ __forceinline__ void own_block(int j, T (&x)[kW]) const { this->tiles.own_block(j, x); }
  __device__ __forceinline__ void block(int j, T (&a)[kW]) const {
    this->tiles.read(this->acquire((j - this->r) / kW), a);
    this->release();
  }
};

}  // namespace warpsim::gpu::detail
