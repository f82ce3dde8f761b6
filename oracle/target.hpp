// u' = sum * u, the value every search looks up, for all the seeds'
// algorithms on the model.
//
// Rounded once (never fused), then kept below the total: once the total is
// subnormal, sum * u can round up to sum itself although u < 1, no running
// sum exceeds it, and the seeds' searches fall off an end of the array onto a
// weight of 0 (docs/errata.md, E9). Clamped to the largest value below the
// total, the search lands on the last index of non-zero weight, which is what
// the erratum's "step back" finds: in the subnormal range every sum of
// non-negative subnormals is exact, so the running sums there are exact and
// the first one above pred(total) is the one that reaches the total. For a
// normal total the clamp never acts (u <= 1 - 2^-24 keeps u' < total).
#pragma once

#include <cmath>

#include "sim/reg.hpp"
#include "sim/warp.hpp"

namespace warpsim::oracle {

// sum * u, rounded once and never fused.
template <class T>
T scaled_once(T sum, T u) {
  volatile T t = sum * u;
  return t;
}

// The clamp: the product, or the largest value below the total.
template <class T>
T below_total(T product, T sum) {
  return product < sum ? product : std::nextafter(sum, T{0});
}

// The scalar form (what reference_draw and one lane compute).
template <class T>
T target_below_total(T sum, T u) {
  return below_total(scaled_once(sum, u), sum);
}

// On the model: one multiply, one select, per lane.
template <class T>
sim::Reg<T> scaled_target(sim::Warp& warp, const sim::Reg<T>& sum, const sim::Reg<T>& u) {
  sim::Reg<T> target("u'");
  warp.compute(sim::Op::Mul, target, [&](int l) { return scaled_once(sum[l], u[l]); }, "u' <- sum * u");
  warp.compute(sim::Op::Other, target, [&](int l) { return below_total(target[l], sum[l]); }, "u' <- min(u', pred(sum))  (errata E9)");
  return target;
}

}  // namespace warpsim::oracle
