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

class Sym {
 public:
  struct Term {
    std::int16_t owner;  // lane the array belongs to
    std::int32_t index;  // element index within that lane's array
    std::int64_t coeff;  // never 0 in a stored term
    friend bool operator==(const Term&, const Term&) = default;
  };

  Sym() = default;  // zero
  static Sym element(int owner, int index);
  // Sum of elements lo..hi (inclusive) of lane `owner`'s array.
  static Sym range(int owner, int lo, int hi);

  bool is_zero() const { return terms_.empty(); }
  const std::vector<Term>& terms() const { return terms_; }

  Sym& operator+=(const Sym& other);
  Sym& operator-=(const Sym& other);
  friend Sym operator+(Sym a, const Sym& b) { return a += b; }
  friend Sym operator-(Sym a, const Sym& b) { return a -= b; }
  friend Sym operator-(Sym a);
  friend bool operator==(const Sym&, const Sym&) = default;

  std::string to_string(SymStyle style = SymStyle::Compact) const;

 private:
  void combine(const Sym& other, std::int64_t sign);
  std::vector<Term> terms_;  // sorted by (owner, index)
};

inline std::string to_string(const Sym& s) { return s.to_string(); }

}  // namespace warpsim::sim
