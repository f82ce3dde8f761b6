// resident_pass (SecondPass::ResidentPass): one cooperative kernel for few
// rows, a block a segment, each row's sums posted and read once all are.
//
// A part of gpu/sum_tree_sampler.cu's translation unit, included there only
// and in this order (as CUB's agents are by their dispatch): tree.cuh, segment_pass.cuh, row_pass.cuh, warp_row_pass.cuh, block_pass.cuh, cluster_pass.cuh, resident_pass.cuh, rows_pass.cuh, thread_pass.cuh, lanes_pass.cuh.
// Its kernels and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// The resident pass (SecondPass::ResidentPass): one kernel, no second
// launch, no last warp. A block a segment of W = 1 or 4 warps (4 where
// each block has a multiprocessor of its own): each warp copies its share
// of every lane's vectors to shared memory at once (cp.async) while it
// makes its first uniforms, and sums those vectors; the first warp keeps its
// lanes' running sums there (r before each vector: the walk's r, which the
// lane's sum reaches in the same additions), posts the segment's sum,
// reads every segment's sum of its row until all are posted -- the grid is
// resident (a cooperative launch), so no block waits on one that has not
// started -- and builds the row's tree (the same levels as row_pass's; up
// to 64 segments by the warp's butterfly). Then each warp descends its
// rounds of the row's draws (warp w draws 32 w to 32 w + 31, then 32 W
// on) to their segment; a draw that lands in the block's own segment is
// finished there from shared memory: its lane by the butterfly's sums
// (kept as a heap), its vector by bisection over the kept running sums
// (the walk's last vector > 0 with t >= r before it: r only grows, so
// those vectors are a prefix's), its weight in the kept vector. Where the
// draw is made changes nothing in it.
//
// A posted sum is 16 bytes, the sum and the call's epoch (the sampler's
// count of resident calls), written and read each as one 16-byte access
// (st/ld.relaxed.gpu.b128, single-copy atomic: a .b128 access is one
// scalar access in PTX's memory model, as libcu++'s 16-byte atomics use
// it): a reader takes a sum once its epoch is this call's, so no slot is
// ever set back (an earlier version counted each row's readers with a
// ticket and had the last reset the row's slots: the ticket's round trip
// held every warp about 0.7 us, rows-trials/h100-resident-phases/) and a
// NaN sum is posted as any other.
// Its limits (kResidentSegments, kResidentDraws, kResidentWarps) are in
// gpu/sum_tree/shape.hpp; where plan() takes it, gpu/sum_tree/tuning.hpp.

// Its dynamic shared memory: the segment, each lane's running sums (r before
// vector j at [j][l], rows of 33), the lanes' heap, the row's heap, the
// row's tree (2 P).
__host__ __device__ constexpr std::size_t resident_shared_bytes(int p) {
  return kSegmentBytes + (static_cast<std::size_t>(kVectorsPerLane) * (kLanes + 1) + 4 * kLanes + 2 * static_cast<std::size_t>(p)) * sizeof(double);
}

// A slot: 16 bytes, 16-byte aligned (two doubles of the scratch).
__device__ __forceinline__ void post_sum(double* slot, double v, std::uint64_t epoch) {
  asm volatile("{\n\t.reg .b128 t;\n\tmov.b128 t, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], t;\n\t}"
               :: "l"(slot), "l"(__double_as_longlong(v)), "l"(epoch) : "memory");
}

// The slot's sum where its epoch is `epoch`; else false.
__device__ __forceinline__ bool read_posted(const double* slot, std::uint64_t epoch, double& v) {
  long long bits;
  std::uint64_t e;
  asm volatile("{\n\t.reg .b128 t;\n\tld.relaxed.gpu.global.b128 t, [%2];\n\tmov.b128 {%0, %1}, t;\n\t}"
               : "=l"(bits), "=l"(e) : "l"(slot) : "memory");
  v = __longlong_as_double(bits);
  return e == epoch;
}

template <class T, int W>
__global__ void __launch_bounds__(W * kLanes) resident_pass(const T* __restrict__ w, std::int64_t k, int segments, int p, double* __restrict__ posted,
                                                            std::uint64_t epoch, std::uint64_t seed, int draws, int* __restrict__ out) {
  static_assert(W == 1 || W == kResidentWarps, "the resident pass: a warp a block, or one a scheduler");
  static_assert(kVectorsPerLane % W == 0, "each warp copies and sums an equal share of every lane's vectors");
  const RowUniforms uniform(seed);  // rng::uniform<double>(seed, row, s)
  constexpr int E = Shape<T>::E;
  constexpr int J = kVectorsPerLane / W;  // each lane's vectors a warp copies and sums
  extern __shared__ __align__(16) unsigned char resident_smem[];
  unsigned char* const kept = resident_smem;
  double(*const before)[kLanes + 1] = reinterpret_cast<double(*)[kLanes + 1]>(resident_smem + kSegmentBytes);
  double* const heap = &before[kVectorsPerLane][0];  // the lanes' pair tree, lanes at 32..63 (descend_heap)
  double* const row_heap = heap + 2 * kLanes;         // up to 64 segments: the row's tree above its leaves (or level 1), a heap
  double* const tree = row_heap + 2 * kLanes;         // the row's: level 0 at [0, p), ..., the root at 2p - 2 (past 64: all of it)
  __shared__ unsigned positive[kLanes];               // lane l's vectors whose sum is > 0 (bit j)
  __shared__ double row_root;                          // (where W > 1)
  __shared__ int row_levels;
  detail::join_dependent_chain();
  const int lane = static_cast<int>(threadIdx.x % kLanes), warp = W == 1 ? 0 : static_cast<int>(threadIdx.x / kLanes);
  const std::int64_t row = blockIdx.x / segments;
  const int g = static_cast<int>(blockIdx.x % segments);
  const T* r = w + row * k;
  const bool aligned = reinterpret_cast<std::uintptr_t>(r) % 16 == 0;
  const std::int64_t base = static_cast<std::int64_t>(g) * Shape<T>::G;
  copy_segment<T, J>(kept, r, k, aligned, base, lane, warp * J);
  __pipeline_commit();
  const auto uniform_s = [&](int s) { return uniform(row, s); };
  double u = warp * kLanes + lane < draws ? uniform_s(warp * kLanes + lane) : 0.0;  // (the warp's first draws, made while the segment lands)
  __pipeline_wait_prior(0);
  // The vectors' sums, independent of one another: each warp those of its
  // J vectors of every lane (a thread reads the vectors it copied), left
  // in `before` for the first warp's chain where the block has several.
  double q[kVectorsPerLane];
#pragma unroll
  for (int jj = 0; jj < J; ++jj) {
    T x[E];
    kept_vector<T>(kept, lane, warp * J + jj, x);
    q[jj] = vector_sum<T>(x);
    if constexpr (W > 1) before[warp * J + jj][lane] = q[jj];
  }
  if constexpr (W > 1) __syncthreads();
  double root = 0;  // (the row's, where W > 1 the first warp's)
  int levels = 0;
  if (W == 1 || warp == 0) {
    // The lane's sum in lane_sum's order (zeros past K add nothing), r
    // before each vector kept (in place of the vector's sum): the chain of
    // 32 additions alone (stamps inside the kernel, rows-trials/h100-
    // resident-phases/: 1.3 us for fp32 (1, 131,072) with each vector's
    // read, conversions and sum in the chain; the sums spread over four
    // warps, one a scheduler, took fp32's kernel from 6.1 to 5.0 us).
    if constexpr (W > 1) {
#pragma unroll
      for (int j = 0; j < kVectorsPerLane; ++j) q[j] = before[j][lane];
    }
    double acc = 0;
    unsigned bits = 0;
#pragma unroll
    for (int j = 0; j < kVectorsPerLane; ++j) {
      before[j][lane] = acc;
      if (q[j] > 0) bits |= 1u << j;
      acc = add(acc, q[j]);
    }
    positive[lane] = bits;
    const double v = butterfly_kept(acc, heap, lane);
    root = v;
    if (segments > 1) {
      double* const row_posted = posted + 2 * (row * segments);  // (a slot: 2 doubles)
      if (lane == 0) post_sum(row_posted + 2 * g, v, epoch);
      bool all = false;
      while (!all) {
        bool here = true;
        for (int i = lane; i < segments; i += kLanes) {
          double sum;
          if (read_posted(row_posted + 2 * i, epoch, sum)) {
            tree[i] = sum;
          } else {
            here = false;
          }
        }
        all = __all_sync(~0u, here);
      }
      for (int i = segments + lane; i < p; i += kLanes) tree[i] = 0.0;
      __syncwarp();
      if (p <= 2 * kLanes) {
        // Up to 64 segments: the row's tree by the warp's butterfly, not
        // level by level in shared memory (0.7 us for 32 segments: rows-
        // trials/h100-resident-phases/): lane i holds leaf i, or node i of
        // level 1 (leaves 2i and 2i + 1) for 33-64, and the butterfly's
        // steps are the levels above (the padded tree of 32 has the same
        // root and left sums: x + 0 is x), kept as a heap.
        const double leaf = p > kLanes ? add(tree[2 * lane], tree[2 * lane + 1]) : lane < p ? tree[lane] : 0.0;
        root = butterfly_kept(leaf, row_heap, lane);
      } else {
        levels = build_warp_tree(tree, p, lane);
        root = tree[2 * p - 2];
      }
    }
    if constexpr (W > 1) {
      if (lane == 0) {
        row_root = root;
        row_levels = levels;
      }
    }
  }
  if constexpr (W > 1) {
    __syncthreads();  // (before, positive, the heaps, the tree, the root)
    root = row_root;
    levels = row_levels;
  } else {
    __syncwarp();  // (before, positive, the heaps)
  }
  int* const row_out = out + row * draws;
  for (int s0 = warp * kLanes; s0 < draws; s0 += W * kLanes) {
    const int s = s0 + lane;
    if (s0 != warp * kLanes) u = s < draws ? uniform_s(s) : 0.0;
    double t = __dmul_rn(u, root);  // target(): u * the root, rounded once
    std::int64_t c = 0;
    if (segments > 1 && p <= 2 * kLanes) {
      c = descend_heap(row_heap, t);
      if (p > kLanes) {  // (the last level: leaves 2c and 2c + 1)
        const double left = tree[2 * c], right = tree[2 * c + 1];
        if (!(t < left) && right > 0) {
          t = __dsub_rn(t, left);
          c = 2 * c + 1;
        } else {
          c = 2 * c;
        }
      }
    } else if (segments > 1) {
      c = descend_row_tree(tree, p, levels, t);
    }
    if (s < draws && c == g) {
      // A draw that landed here, each lane its own: the lane by the heap,
      // then the walk's vector from the kept running sums -- the walk
      // goes on while t >= r before a vector, and r only grows, so those
      // vectors are a prefix, found by bisection (J, its last); the walk's
      // vector is the prefix's last one whose sum is > 0. None: the lane
      // holds no vector > 0 (only where the row is all zeros), and the
      // walk's vector 0, all zeros, below 0. (Every lane at once: one draw
      // at a time over the warp, a ballot a draw, ended fp32 (1, 131,072,
      // S = 64) 0.6 us later, rows-trials/h100-resident-phases/call-6/.)
      const int l = descend_heap(heap, t);
      int last = 0;
#pragma unroll
      for (int step = kVectorsPerLane / 2; step > 0; step /= 2) {
        if (t >= before[last + step][l]) last += step;
      }
      const unsigned ends = positive[l] & ((2u << last) - 1u);  // (vectors 0..last whose sum is > 0)
      const int j = ends ? 31 - __clz(ends) : 0;
      T x[E];
      kept_vector<T>(kept, l, j, x);
      row_out[s] = static_cast<int>(vector_first<T>(base, l, j) + in_vector<T>(x, __dsub_rn(t, before[j][l])));
    }
  }
}

}  // namespace

}  // namespace warpsim::gpu
