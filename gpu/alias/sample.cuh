// Sampling (oracle/alias/table.hpp, sample_warp.hpp): draw d's row and whether it
// keeps the item, from rng/'s Philox bits of (seed, d).
//
// A part of gpu/alias_table.cu's translation unit, included there only and
// in this order (as CUB's agents are by their dispatch): units.cuh,
// partition.cuh, split.cuh, pack.cuh, sample.cuh, psa_plus.cuh. Its kernels
// and helpers have internal linkage, as the rest of that file's.
#pragma once

namespace warpsim::gpu {

namespace {

// ---- sampling ------------------------------------------------------------------

// The chunked pack (Sec. 3.2.4, Alg. 3.2 as oracle/alias/pack_chunked.hpp
// corrects it): a thread a section, reading l and h from its own windows of
// kChunk items in shared memory, each loaded from its current position when
// the next step needs an item outside it (a light step reads l[i] and h[j],
// a heavy step h[j] and h[j + 1]). A thread's windows take 24 kChunk bytes,
// so a block holds many sections -- the shared pack's warp holds its 32
// sections' whole range, 24 KB, and nine warps fill an SM's shared memory.
// The steps are pack_kernel's. kChunk = 8: 24 KB a block of 128 threads.
constexpr int kChunkThreads = 128;

template <int kChunk>
__global__ void __launch_bounds__(kChunkThreads) pack_chunked_kernel(PackArgs<Lists> base, const Scale* scale, const SplitAt* __restrict__ splits,
                                                                     AliasRow* rows) {
  detail::join_dependent_chain();
  const PackArgs<Lists> a = with_scale(base, scale);
  __shared__ std::uint64_t light_u[kChunkThreads * kChunk], heavy_u[kChunkThreads * kChunk];
  __shared__ std::uint32_t light_at[kChunkThreads * kChunk], heavy_at[kChunkThreads * kChunk];
  const std::uint64_t s = blockIdx.x * static_cast<std::uint64_t>(kChunkThreads) + threadIdx.x;
  if (s >= a.sections) return;
  // Thread t's window slot e at t + e kChunkThreads: a warp's lanes read 32
  // consecutive words, one bank each.
  auto slot = [](std::uint64_t e) { return threadIdx.x + static_cast<unsigned>(e) * kChunkThreads; };
  const std::uint64_t to = (s + 1) * a.steps / a.sections;
  std::uint64_t i = splits[s].i, j = splits[s].j;
  const u128 cap = a.cap;
  u128 w = j < a.heavies ? a.lists.excess(j + 1) + cap - a.lists.deficit(i) : 0;  // the spill
  // The windows' first items: none loaded yet, so past the lists' ends
  // (x - origin wraps to a huge number for x < origin).
  std::uint64_t l0 = a.lights + kChunk, h0 = a.heavies + kChunk;
  auto in_l = [&](std::uint64_t x) { return x - l0 < kChunk; };
  auto in_h = [&](std::uint64_t x) { return x - h0 < kChunk; };
  auto load_l = [&] {
    l0 = i;
    for (std::uint64_t e = 0; e < kChunk && i + e < a.lights; ++e) {
      light_at[slot(e)] = a.lists.light[i + e];
      light_u[slot(e)] = a.lists.light_unit(i + e);
    }
  };
  auto load_h = [&] {
    h0 = j;
    for (std::uint64_t e = 0; e < kChunk && j + e < a.heavies; ++e) {
      heavy_at[slot(e)] = a.lists.heavy[j + e];
      heavy_u[slot(e)] = a.lists.heavy_unit(j + e);
    }
  };
  const u128 n = a.steps;
  for (std::uint64_t step = i + j; step < to; ++step) {
    if (j >= a.heavies) {  // no heavy item left: the lights left are exactly full
      if (!in_l(i)) load_l();
      const std::uint32_t l = light_at[slot(i - l0)];
      store_row(rows, l, a.cap, l, a.cap, a.recip);
      ++i;
    } else if (i < a.lights && w > cap) {  // fill light i from heavy j
      if (!in_l(i)) load_l();
      if (!in_h(j)) load_h();
      const std::uint32_t l = light_at[slot(i - l0)];
      const u128 m = n * light_u[slot(i - l0)];
      store_row(rows, l, static_cast<std::uint64_t>(m), heavy_at[slot(j - h0)], a.cap, a.recip);
      w -= cap - m;
      ++i;
    } else {  // heavy j keeps w, the rest from heavy j + 1 (the last keeps exactly a bucket)
      const bool more = j + 1 < a.heavies;
      if (!in_h(j) || (more && !in_h(j + 1))) load_h();
      const std::uint32_t h = heavy_at[slot(j - h0)];
      store_row(rows, h, static_cast<std::uint64_t>(w), more ? heavy_at[slot(j + 1 - h0)] : h, a.cap, a.recip);
      if (more) w = n * heavy_u[slot(j + 1 - h0)] - (cap - w);
      ++j;
    }
  }
}

}  // namespace

}  // namespace warpsim::gpu
