// Symbolic values (runs of one lane's elements) behave as the dense vector of
// coefficients they stand for, and equal values have equal runs.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <utility>

#include "sim/symbolic.hpp"

using warpsim::sim::Sym;

namespace {

using Dense = std::map<std::pair<int, int>, long long>;  // (owner, index) -> coefficient

Dense dense(const Sym& s) {
  Dense d;
  for (const auto& r : s.runs())
    for (int i = r.lo; i <= r.hi; ++i) d[{r.owner, i}] = r.coeff;
  return d;
}

}  // namespace

RC_GTEST_PROP(SymbolicProperties, SumsAndDifferencesMatchDenseCoefficients, ()) {
  Sym s;
  Dense expect;
  const int steps = *rc::gen::inRange(1, 30);
  for (int k = 0; k < steps; ++k) {
    const int owner = *rc::gen::inRange(0, 4);
    const int lo = *rc::gen::inRange(0, 40);
    const int hi = lo + *rc::gen::inRange(0, 20);
    const bool add = *rc::gen::arbitrary<bool>();
    const Sym r = Sym::range(owner, lo, hi);
    if (add) s += r; else s -= r;
    for (int i = lo; i <= hi; ++i) expect[{owner, i}] += add ? 1 : -1;
  }
  std::erase_if(expect, [](const auto& kv) { return kv.second == 0; });
  RC_ASSERT(dense(s) == expect);
  // Canonical: sorted, disjoint, no zero, touching runs differ in coefficient.
  const auto& runs = s.runs();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    RC_ASSERT(runs[i].coeff != 0);
    RC_ASSERT(runs[i].lo <= runs[i].hi);
    if (i == 0) continue;
    const auto& a = runs[i - 1];
    const auto& b = runs[i];
    RC_ASSERT((std::pair{a.owner, a.hi} < std::pair{b.owner, b.lo}));
    if (a.owner == b.owner && a.hi + 1 == b.lo) RC_ASSERT(a.coeff != b.coeff);
  }
  // Equal values compare equal however they were built.
  Sym rebuilt;
  for (const auto& [key, c] : expect)
    for (long long n = 0; n < (c < 0 ? -c : c); ++n) {
      if (c > 0) rebuilt += Sym::element(key.first, key.second); else rebuilt -= Sym::element(key.first, key.second);
    }
  RC_ASSERT(rebuilt == s);
}
