// Seed 000, Sec. 2: the one-array p' of each lane, on the model. Each lane
// holds its own K weights (the normal layout, in local memory) and turns
// them in place into the tree of partial sums the section names p':
//
//   for k from 0 through K - 1: p'[k] := a[k]
//   for b from 1 through log2 K:
//     for i from 1 through 2^(log2 K - b): p'[(2i) 2^(b-1) - 1] += p'[(2i - 1) 2^(b-1) - 1]
//
// so that p'[j] holds a[j - lowbit(j + 1) + 1] + ... + a[j] and p'[K - 1]
// the total; then draws by the section's search, which forms the prefix sums
// it needs on the way down (lowValue):
//
//   u' = sum * u; j = 0; k = K - 1; lowValue = 0
//   while j < k: mid = (j + k) / 2; compareValue = lowValue + p'[mid]
//                if u' < compareValue: k = mid  else: j = mid + 1, lowValue = compareValue
//
// K is a power of two (the listing's log2 K). Every lane's search takes
// log2 K steps (the loop's trip count is the same in every lane; only the
// branch inside it diverges). The draws
// equal reference_draw's wherever the sums are exact (integer weights:
// tests/unit/pprime_draw_test.cpp); elsewhere they add in another order.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "oracle/matrix_workload.hpp"
#include "oracle/prefix_draw.hpp"
#include "oracle/target.hpp"
#include "sim/local_memory.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle {

// Told, for step-by-step views, after the copy (level 0) and after each
// level b of the build, with the lanes' p' arrays.
template <class T>
using PPrimeObserver = std::function<void(int level, const sim::LocalArray<T>& p)>;

// Told, for step-by-step views, of each step of each lane's search: (step,
// lane, mid, whether u' < compareValue).
using PPrimeSearchObserver = std::function<void(int step, int lane, int mid, bool left)>;

// The build: load(dst, j) loads element j of each lane's own weights.
template <class T, class Load>
void pprime_build(sim::Warp& warp, int K, Load&& load, sim::LocalArray<T>& p, const std::type_identity_t<PPrimeObserver<T>>& observe = {}) {
  if (K < 1 || (K & (K - 1)) != 0) throw std::invalid_argument("pprime_build: K must be a power of two, got " + std::to_string(K));
  sim::Reg<T> x("x"), y("y");
  for (int k = 0; k < K; ++k) {
    load(x, k);
    warp.store_local(p, k, x);
  }
  if (observe) observe(0, p);
  for (int b = 1; (1 << b) <= K; ++b) {
    const int half = 1 << (b - 1);
    for (int i = 1; i <= K >> b; ++i) {
      warp.load_local(x, p, sim::PerLane<int>((2 * i) * half - 1));
      warp.load_local(y, p, sim::PerLane<int>((2 * i - 1) * half - 1));
      warp.add(x, x, sim::PerLane<T>(y));
      warp.store_local(p, (2 * i) * half - 1, x);
    }
    if (observe) observe(b, p);
  }
}

// The search on a built p' (each lane its own): the drawn index per lane.
template <class T>
sim::Reg<int> pprime_search(sim::Warp& warp, const sim::LocalArray<T>& p, int K, const sim::Reg<T>& u,
                            const PPrimeSearchObserver& observe = {}) {
  using sim::Op;
  using sim::PerLane;
  sim::Reg<T> sum("sum"), low("lowValue"), compare("compareValue"), entry("p'[mid]");
  warp.load_local(sum, p, PerLane<int>(K - 1));
  const sim::Reg<T> target = scaled_target(warp, sum, u);
  sim::Reg<int> j("j", 0), k("k", K - 1), mid("mid");
  sim::Reg<bool> more("j<k"), left("u'<compareValue");
  warp.mov(low, PerLane<T>(T{}));
  int step = 0;
  warp.loop_while(
      more, [&] { warp.compute(Op::Compare, more, [&](int l) { return j[l] < k[l]; }); },
      [&] {
        warp.compute(Op::Other, mid, [&](int l) { return (j[l] + k[l]) / 2; }, "mid <- (j + k) / 2");
        warp.load_local(entry, p, PerLane<int>(mid));
        warp.add(compare, low, PerLane<T>(entry));
        warp.compute(Op::Compare, left, [&](int l) { return target[l] < compare[l]; });
        if (observe)
          for (int l = 0; l < warp.width(); ++l)
            if (j[l] < k[l]) observe(step, l, mid[l], left[l]);
        warp.if_else(
            left, [&] { warp.mov(k, PerLane<int>(mid)); },
            [&] {
              warp.compute(Op::Add, j, [&](int l) { return mid[l] + 1; });
              warp.mov(low, PerLane<T>(compare));
            });
        ++step;
      });
  return j;
}

// One warp's draws from rows warp_index * W .. + W - 1 of w (a lane a row).
template <class T>
WarpDraws pprime_draw(sim::Warp& warp, const sim::GlobalMemory& mem, const WeightMatrix<T>& w, int warp_index, const sim::Reg<T>& u) {
  const int W = warp.width();
  sim::LocalArray<T> p("p'", static_cast<std::size_t>(w.cols));
  sim::Reg<std::uint64_t> addr("addr");
  pprime_build(warp, w.cols,
               [&](sim::Reg<T>& dst, int j) {
                 warp.compute(sim::Op::Other, addr, [&](int l) { return w.address(warp_index * W + l, j); }, "addr <- &a[m][j]");
                 warp.load_global(dst, mem, sim::PerLane<std::uint64_t>(addr));
               },
               p);
  return collect(warp, w, warp_index, pprime_search(warp, p, w.cols, u));
}

}  // namespace warpsim::oracle
