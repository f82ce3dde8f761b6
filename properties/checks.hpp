// The properties any correct matrix sampler satisfies, each a function a test
// or a user calls on a sampler's output (or on the sampler itself). Each
// returns a Verdict: ok, or which property failed, on which row, and why.
//
//   in_range            every index lies in [0, K)
//   zero_never_drawn    a weight of 0 is never drawn
//   single_nonzero      a row with one positive weight draws it
//   same_seed           the same seed gives the same output
//   scalar_definition   (Replayable) each index equals the scalar definition
//                       (oracle/reference.hpp) where every sum is exact or the
//                       sampler adds in the definition's order, and lies
//                       within its rounding bound otherwise
//   same_indices        two samplers (a kernel and its oracle) agree bit for bit
//   first_draw          (S draws a row) draw 0 of each row is the sampler's
//                       one draw for that row
//   (in_range, zero_never_drawn, single_nonzero, same_seed and same_indices
//   also take S draws a row: `draws`, draw s of row r at r * S + s)
//   in_law              (any) the draws of one law pass a chi-square test,
//                       with the bias a pass rules out (stats/)
//   table_implies_weights  (table builders) an alias table's implied
//                       distribution is the weights', within its format's
//                       resolution, and gives nothing to a weight of 0
//
// Usage:
//   auto idx = sampler.draw(m, seed);
//   for (auto v : {in_range(m, idx), zero_never_drawn(m, idx)}) if (!v.ok) report(v);
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "oracle/reference.hpp"
#include "properties/sampler.hpp"
#include "rng/philox_uniform.hpp"

namespace warpsim::properties {

struct Verdict {
  bool ok = true;
  std::string property;
  int row = -1;
  std::string detail;

  static Verdict pass(std::string property) { return {true, std::move(property), -1, {}}; }
  static Verdict fail(std::string property, int row, std::string detail) { return {false, std::move(property), row, std::move(detail)}; }
};

namespace detail {

inline std::string number(long double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6Lg", x);
  return buf;
}

inline std::string where(int row, int index) { return "row " + std::to_string(row) + " drew index " + std::to_string(index); }

// The exponent of the lowest set bit of x > 0 (x = m 2^e with m odd).
template <class T>
int lowest_bit_exponent(T x) {
  int e = 0;
  T m = std::frexp(x, &e);  // x = m 2^e, 0.5 <= m < 1
  int shift = 0;
  while (m != std::floor(m)) {
    m *= 2;
    ++shift;
  }
  return e - shift;
}

}  // namespace detail

// True when every weight is a multiple of one power of two 2^e and the total
// is below 2^(digits + e): then every sum or difference of the row's partial
// sums is exact in T, in any order, and every algorithm must agree with the
// scalar definition exactly.
template <class T>
bool sums_exact(std::span<const T> row) {
  int e = std::numeric_limits<int>::max();
  long double total = 0;
  for (T w : row) {
    if (w > 0) e = std::min(e, detail::lowest_bit_exponent(w));
    total += w;
  }
  if (total == 0) return true;
  return total < std::ldexp(1.0L, std::numeric_limits<T>::digits + e);
}

template <class T>
Verdict in_range(const Matrix<T>& m, const std::vector<int>& idx) {
  if (idx.size() != static_cast<std::size_t>(m.rows)) {
    return Verdict::fail("in_range", -1, std::to_string(idx.size()) + " indices for " + std::to_string(m.rows) + " rows");
  }
  for (int r = 0; r < m.rows; ++r) {
    const int i = idx[static_cast<std::size_t>(r)];
    if (i < 0 || i >= m.cols) return Verdict::fail("in_range", r, detail::where(r, i) + ", outside [0, " + std::to_string(m.cols) + ")");
  }
  return Verdict::pass("in_range");
}

template <class T>
Verdict zero_never_drawn(const Matrix<T>& m, const std::vector<int>& idx) {
  for (int r = 0; r < m.rows; ++r) {
    const int i = idx[static_cast<std::size_t>(r)];
    if (i >= 0 && i < m.cols && m.row(r)[static_cast<std::size_t>(i)] == T(0)) {
      return Verdict::fail("zero_never_drawn", r, detail::where(r, i) + ", of weight 0");
    }
  }
  return Verdict::pass("zero_never_drawn");
}

template <class T>
Verdict single_nonzero(const Matrix<T>& m, const std::vector<int>& idx) {
  for (int r = 0; r < m.rows; ++r) {
    int only = -1, count = 0;
    for (int i = 0; i < m.cols; ++i)
      if (m.row(r)[static_cast<std::size_t>(i)] > T(0)) only = i, ++count;
    if (count == 1 && idx[static_cast<std::size_t>(r)] != only) {
      return Verdict::fail("single_nonzero", r, detail::where(r, idx[static_cast<std::size_t>(r)]) + "; its only positive weight is at " +
                                                    std::to_string(only));
    }
  }
  return Verdict::pass("single_nonzero");
}

template <class T>
Verdict same_seed(const Sampler& s, const Matrix<T>& m, std::uint64_t seed, const std::vector<int>& first) {
  const auto again = s.draw(m, seed);
  for (int r = 0; r < m.rows; ++r) {
    if (again[static_cast<std::size_t>(r)] != first[static_cast<std::size_t>(r)]) {
      return Verdict::fail("same_seed", r,
                           "row " + std::to_string(r) + " drew " + std::to_string(first[static_cast<std::size_t>(r)]) + ", then " +
                               std::to_string(again[static_cast<std::size_t>(r)]) + " with the same seed");
    }
  }
  return Verdict::pass("same_seed");
}

// Two samplers agree row by row (a kernel and its oracle: bit for bit).
template <class T>
Verdict same_indices(const Matrix<T>& m, const std::vector<int>& a, const std::vector<int>& b, const std::string& a_name,
                     const std::string& b_name) {
  for (int r = 0; r < m.rows; ++r) {
    if (a[static_cast<std::size_t>(r)] != b[static_cast<std::size_t>(r)]) {
      return Verdict::fail("same_indices", r,
                           "row " + std::to_string(r) + ": " + a_name + " drew " + std::to_string(a[static_cast<std::size_t>(r)]) + ", " +
                               b_name + " drew " + std::to_string(b[static_cast<std::size_t>(r)]));
    }
  }
  return Verdict::pass("same_indices");
}

// S draws a row (Sampler::draw_rows): each of the S draws of every row is a
// draw of that row, so each one-draw property holds for draw s of the rows,
// s = 0 .. S - 1; a failure names the draw.
namespace detail {

inline std::vector<int> draw_of_rows(const std::vector<int>& idx, int rows, int draws, int s) {
  std::vector<int> col(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) col[static_cast<std::size_t>(r)] = idx[static_cast<std::size_t>(r) * static_cast<std::size_t>(draws) + static_cast<std::size_t>(s)];
  return col;
}

inline Verdict of_draw(Verdict v, int s, int draws) {
  if (!v.ok) v.detail += " (draw " + std::to_string(s) + " of " + std::to_string(draws) + " a row)";
  return v;
}

inline Verdict draws_shape(const char* property, int rows, int draws, std::size_t got) {
  if (draws < 1) return Verdict::fail(property, -1, "S = " + std::to_string(draws) + " draws a row");
  const std::size_t want = static_cast<std::size_t>(rows) * static_cast<std::size_t>(draws);
  if (got != want) {
    return Verdict::fail(property, -1, std::to_string(got) + " indices for " + std::to_string(rows) + " rows x " + std::to_string(draws) + " draws");
  }
  return Verdict::pass(property);
}

// `check(column)` on each draw's column of the rows, the first failure first.
template <class Check>
Verdict each_draw(const char* property, int rows, int draws, const std::vector<int>& idx, Check&& check) {
  if (auto v = draws_shape(property, rows, draws, idx.size()); !v.ok) return v;
  for (int s = 0; s < draws; ++s) {
    if (auto v = check(draw_of_rows(idx, rows, draws, s)); !v.ok) return of_draw(std::move(v), s, draws);
  }
  return Verdict::pass(property);
}

}  // namespace detail

template <class T>
Verdict in_range(const Matrix<T>& m, int draws, const std::vector<int>& idx) {
  return detail::each_draw("in_range", m.rows, draws, idx, [&](const std::vector<int>& col) { return in_range(m, col); });
}

template <class T>
Verdict zero_never_drawn(const Matrix<T>& m, int draws, const std::vector<int>& idx) {
  return detail::each_draw("zero_never_drawn", m.rows, draws, idx, [&](const std::vector<int>& col) { return zero_never_drawn(m, col); });
}

template <class T>
Verdict single_nonzero(const Matrix<T>& m, int draws, const std::vector<int>& idx) {
  return detail::each_draw("single_nonzero", m.rows, draws, idx, [&](const std::vector<int>& col) { return single_nonzero(m, col); });
}

// Two S-draw outputs agree draw by draw.
template <class T>
Verdict same_indices(const Matrix<T>& m, int draws, const std::vector<int>& a, const std::vector<int>& b, const std::string& a_name,
                     const std::string& b_name) {
  for (const auto* x : {&a, &b}) {
    if (auto v = detail::draws_shape("same_indices", m.rows, draws, x->size()); !v.ok) return v;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      const int r = static_cast<int>(i / static_cast<std::size_t>(draws));
      return detail::of_draw(Verdict::fail("same_indices", r,
                                           "row " + std::to_string(r) + ": " + a_name + " drew " + std::to_string(a[i]) + ", " + b_name +
                                               " drew " + std::to_string(b[i])),
                             static_cast<int>(i % static_cast<std::size_t>(draws)), draws);
    }
  }
  return Verdict::pass("same_indices");
}

// Draw 0 of each row's S draws is the sampler's one draw (`one`, from
// Sampler::draw with the same seed): the S draws extend the one draw's
// stream, they do not replace it.
template <class T>
Verdict first_draw(const Matrix<T>& m, int draws, const std::vector<int>& idx, const std::vector<int>& one) {
  if (auto v = detail::draws_shape("first_draw", m.rows, draws, idx.size()); !v.ok) return v;
  if (one.size() != static_cast<std::size_t>(m.rows)) {
    return Verdict::fail("first_draw", -1, "the one draw gave " + std::to_string(one.size()) + " indices for " + std::to_string(m.rows) + " rows");
  }
  auto v = same_indices(m, detail::draw_of_rows(idx, m.rows, draws, 0), one, "draw 0 of " + std::to_string(draws), "the one draw");
  v.property = "first_draw";
  return v;
}

template <class T>
Verdict same_seed(const Sampler& s, const Matrix<T>& m, std::uint64_t seed, int draws, const std::vector<int>& first) {
  auto v = same_indices(m, draws, first, s.draw_rows(m, seed, draws), "the first call", "a second call with the same seed");
  v.property = "same_seed";
  return v;
}

// The scalar definition's index for a row, and the rounding bound around it:
// every computed partial sum, running value or compare value of any of the
// seeds' algorithms is a sum (or difference of two sums) of at most K + 1
// roundings of non-negative terms bounded by the exact total S, so it lies
// within gamma = 2 (K + 2) eps S of its exact value, and so does u' = S u.
// An index j is within the bound if P[j - 1] - 2 gamma <= S u < P[j] + 2 gamma
// (P exact). (The last index of positive weight has P[j] = S > S u: u' is kept
// below the total, errata E9, so no index past it is ever within bound.)
//
// Built once per row (O(K)); each draw is then a binary search (O(log K)),
// which is what checks a file of 10^9 draws against their uniforms.
template <class T>
class ScalarRow {
 public:
  explicit ScalarRow(std::span<const T> row) : running_(row.size()), exact_(row.size()) {
    T sum = 0;
    long double s = 0;
    for (std::size_t j = 0; j < row.size(); ++j) {
      running_[j] = sum += row[j];  // in T, in order: the definition's own sums
      exact_[j] = s += row[j];
    }
    total_ = sum;
    const long double eps = std::ldexp(1.0L, -std::numeric_limits<T>::digits);
    gamma_ = 2.0L * (static_cast<long double>(row.size()) + 2) * eps * s;
  }

  // oracle::reference_draw(row, u), by binary search over the same sums.
  int definition(T u) const {
    const T target = oracle::target_below_total(total_, u);
    const auto last = running_.end() - (running_.empty() ? 0 : 1);  // j < K - 1
    return static_cast<int>(std::upper_bound(running_.begin(), last, target) - running_.begin());
  }

  // Whether `got` lies within the rounding bound of u's bucket.
  bool within_bound(T u, int got) const {
    if (got < 0 || static_cast<std::size_t>(got) >= exact_.size()) return false;
    const long double t = exact_.back() * static_cast<long double>(u);
    const long double below = got > 0 ? exact_[static_cast<std::size_t>(got - 1)] : 0.0L;
    return below - 2 * gamma_ <= t && t < exact_[static_cast<std::size_t>(got)] + 2 * gamma_;
  }

  long double exact_target(T u) const { return exact_.back() * static_cast<long double>(u); }
  long double bound() const { return 2 * gamma_; }

 private:
  std::vector<T> running_;
  std::vector<long double> exact_;
  T total_ = 0;
  long double gamma_ = 0;
};

template <class T>
Verdict scalar_definition(const Matrix<T>& m, std::uint64_t seed, const std::vector<int>& idx, bool adds_in_order = false) {
  for (int r = 0; r < m.rows; ++r) {
    const auto row = m.row(r);
    const T u = rng::uniform<T>(seed, static_cast<std::uint64_t>(r));
    const int want = oracle::reference_draw<T>(row, u);
    const int got = idx[static_cast<std::size_t>(r)];
    if (got == want) continue;
    if (adds_in_order || sums_exact(row)) {
      return Verdict::fail("scalar_definition", r,
                           detail::where(r, got) + "; the scalar definition draws " + std::to_string(want) + " (u = " +
                               std::to_string(static_cast<double>(u)) + ") and " +
                               (adds_in_order ? "this sampler adds in its order" : "every sum is exact"));
    }
    if (got < 0 || got >= m.cols) return Verdict::fail("scalar_definition", r, detail::where(r, got) + ", out of range");
    const ScalarRow<T> scalar(row);
    if (!scalar.within_bound(u, got)) {
      return Verdict::fail("scalar_definition", r,
                           detail::where(r, got) + "; the scalar definition draws " + std::to_string(want) +
                               " and u' = " + std::to_string(static_cast<double>(scalar.exact_target(u))) +
                               " is not within the rounding bound " + std::to_string(static_cast<double>(scalar.bound())) +
                               " of that bucket");
    }
  }
  return Verdict::pass("scalar_definition");
}

// An alias table against the weights it was built from: every keep in
// [0, 1], every alias in [0, k); item i's implied probability
//   q_i = (keep_i + sum over rows r aliased to i of (1 - keep_r)) / k
// (long double) against p_i = w_i / W, within
//   (1 + a_i) 4 r max(1/k, p_i),
// a_i the rows that give it mass and r the table's resolution: each of the
// 1 + a_i keeps that make up q_i is stored (and was computed) to about r of
// the larger of a row (1/k) and the item's own mass; and an item of weight 0
// gets exactly nothing (keep 0, and 1 in every row aliased to it).
template <class T>
Verdict table_implies_weights(std::span<const T> w, const AliasTableImage& t, int row = -1) {
  const char* name = "table_implies_weights";
  const std::size_t k = w.size();
  const std::string at = row >= 0 ? "row " + std::to_string(row) + ": " : "";
  if (t.keep.size() != k || t.alias.size() != k) {
    return Verdict::fail(name, row, at + "the table has " + std::to_string(t.keep.size()) + " keeps and " + std::to_string(t.alias.size()) +
                                        " aliases for " + std::to_string(k) + " weights");
  }
  std::vector<long double> q(k, 0.0L);
  std::vector<std::size_t> givers(k, 0);
  for (std::size_t r = 0; r < k; ++r) {
    const long double keep = t.keep[r];
    if (!(keep >= 0 && keep <= 1)) return Verdict::fail(name, row, at + "row " + std::to_string(r) + " keeps " + detail::number(keep) + ", outside [0, 1]");
    if (t.alias[r] < 0 || static_cast<std::size_t>(t.alias[r]) >= k) {
      if (keep < 1) return Verdict::fail(name, row, at + "row " + std::to_string(r) + "'s alias " + std::to_string(t.alias[r]) + " is outside [0, " + std::to_string(k) + ")");
      continue;  // a full row never uses its alias
    }
    q[r] += keep;
    if (keep < 1) {
      q[static_cast<std::size_t>(t.alias[r])] += 1 - keep;
      ++givers[static_cast<std::size_t>(t.alias[r])];
    }
  }
  long double total = 0;
  for (T x : w) total += x;
  std::size_t worst = k;
  long double worst_excess = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const long double p = static_cast<long double>(w[i]) / total, qi = q[i] / static_cast<long double>(k);
    if (w[i] == T(0) && qi != 0) {
      return Verdict::fail(name, row, at + "item " + std::to_string(i) + " has weight 0 and probability " + detail::number(qi) + " in the table");
    }
    const long double tolerance = (1 + static_cast<long double>(givers[i])) * 4 * t.resolution * std::max(1.0L / static_cast<long double>(k), p);
    const long double excess = std::fabs(qi - p) - tolerance;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  if (worst < k) {
    const long double p = static_cast<long double>(w[worst]) / total, qi = q[worst] / static_cast<long double>(k);
    return Verdict::fail(name, row, at + "item " + std::to_string(worst) + " has probability " + detail::number(qi) + " in the table and " +
                                        detail::number(p) + " by its weight (off by " + detail::number(std::fabs(qi - p)) + ", tolerance " +
                                        detail::number(std::fabs(qi - p) - worst_excess) + ")");
  }
  return Verdict::pass(name);
}

}  // namespace warpsim::properties
