// Symbolic values: integer combinations of array elements, written as in
// seed 002's slides. `C4:7` is a[4] + a[5] + a[6] + a[7] of the array that
// belongs to lane C. One algorithm template runs on float, double, integers or
// Sym, so a run prints the register tables of the seeds' figures.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::sim {

// How a single element is printed: `C4` (as the seeds print raw array
// elements) or `C4:4` (as they print entries of a partial-sums table).
enum class SymStyle { Compact, Range };

// Stored as runs: coeff * (a[lo] + ... + a[hi]) of one lane's array, so that
// a prefix sum over K elements is one run, not K terms (a K = 4096 prefix view
// on 64 lanes holds 2^18 values, not 2^29 terms).
class Sym {
 public:
  struct Run {
    std::int16_t owner;  // lane the array belongs to
    std::int32_t lo;     // first element index within that lane's array
    std::int32_t hi;     // last (inclusive)
    std::int64_t coeff;  // never 0 in a stored run
    friend bool operator==(const Run&, const Run&) = default;
  };

  Sym() = default;  // zero
  static Sym element(int owner, int index);
  // Sum of elements lo..hi (inclusive) of lane `owner`'s array.
  static Sym range(int owner, int lo, int hi);

  bool is_zero() const { return runs_.empty(); }
  // Sorted by (owner, lo), disjoint, and maximal: two runs of one owner that
  // touch have different coefficients. So equal values have equal runs.
  const std::vector<Run>& runs() const { return runs_; }
  // The coefficient of element `index` of lane `owner`'s array.
  std::int64_t coefficient(int owner, int index) const;

  Sym& operator+=(const Sym& other);
  Sym& operator-=(const Sym& other);
  friend Sym operator+(Sym a, const Sym& b) { return a += b; }
  friend Sym operator-(Sym a, const Sym& b) { return a -= b; }
  friend Sym operator-(Sym a);
  friend bool operator==(const Sym&, const Sym&) = default;

  std::string to_string(SymStyle style = SymStyle::Compact) const;

 private:
  void combine(const Sym& other, std::int64_t sign);
  std::vector<Run> runs_;
};

inline std::string to_string(const Sym& s) { return s.to_string(); }

}  // namespace warpsim::sim
