// Seed 000, Alg. 2 and 3: search a lane's complete running sums p (in its
// local memory) for the smallest j with u' < p[j], linearly or by bisection.
// Lanes finish at different times; the warp loops while any lane still works.
#pragma once

#include "sim/local_memory.hpp"
#include "sim/reg.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle {

enum class SearchKind { Linear, Binary };

inline const char* search_name(SearchKind s) { return s == SearchKind::Linear ? "linear" : "binary"; }

template <class T>
void search_prefix(sim::Warp& warp, const sim::LocalArray<T>& p, int k, const sim::Reg<T>& target, sim::Reg<int>& z,
                   SearchKind kind) {
  using sim::Op;
  using sim::PerLane;
  sim::Reg<int> j("j", 0), hi("k"), mid("mid");
  sim::Reg<bool> more("more"), less("less");
  sim::Reg<T> probe("probe");
  warp.mov(j, PerLane<int>(0));
  if (kind == SearchKind::Linear) {
    // while j < K - 1 and u' >= p[j] do j += 1
    warp.loop_while(
        more,
        [&] {
          warp.load_local(probe, p, PerLane<int>(j));
          warp.compute(Op::Compare, more, [&](int l) { return j[l] < k - 1 && !(target[l] < probe[l]); });
        },
        [&] { warp.compute(Op::Add, j, [&](int l) { return j[l] + 1; }); });
  } else {
    warp.mov(hi, PerLane<int>(k - 1));
    warp.loop_while(
        more, [&] { warp.compute(Op::Compare, more, [&](int l) { return j[l] < hi[l]; }); },
        [&] {
          warp.compute(Op::Other, mid, [&](int l) { return (j[l] + hi[l]) / 2; }, "mid <- (j + k) / 2");
          warp.load_local(probe, p, PerLane<int>(mid));
          warp.compute(Op::Compare, less, [&](int l) { return target[l] < probe[l]; });
          warp.if_else(
              less, [&] { warp.mov(hi, PerLane<int>(mid)); },
              [&] { warp.compute(Op::Add, j, [&](int l) { return mid[l] + 1; }); });
        });
  }
  warp.mov(z, PerLane<int>(j));
}

}  // namespace warpsim::oracle
