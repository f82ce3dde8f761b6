#include "sim/symbolic.hpp"

#include <stdexcept>

#include "sim/lane_mask.hpp"

namespace warpsim::sim {

Sym Sym::element(int owner, int index) { return range(owner, index, index); }

Sym Sym::range(int owner, int lo, int hi) {
  if (owner < 0 || owner >= kMaxLanes || lo < 0 || hi < lo) {
    throw std::invalid_argument("Sym::range: owner must be a lane 0..63 and 0 <= lo <= hi");
  }
  Sym s;
  s.terms_.reserve(static_cast<std::size_t>(hi - lo + 1));
  for (int i = lo; i <= hi; ++i) {
    s.terms_.push_back({static_cast<std::int16_t>(owner), i, 1});
  }
  return s;
}

void Sym::combine(const Sym& other, std::int64_t sign) {
  std::vector<Term> out;
  out.reserve(terms_.size() + other.terms_.size());
  auto a = terms_.begin();
  auto b = other.terms_.begin();
  auto key = [](const Term& t) { return std::pair{t.owner, t.index}; };
  while (a != terms_.end() || b != other.terms_.end()) {
    if (b == other.terms_.end() || (a != terms_.end() && key(*a) < key(*b))) {
      out.push_back(*a++);
    } else if (a == terms_.end() || key(*b) < key(*a)) {
      out.push_back({b->owner, b->index, sign * b->coeff});
      ++b;
    } else {
      const std::int64_t c = a->coeff + sign * b->coeff;
      if (c != 0) out.push_back({a->owner, a->index, c});
      ++a;
      ++b;
    }
  }
  terms_ = std::move(out);
}

Sym& Sym::operator+=(const Sym& other) {
  combine(other, 1);
  return *this;
}

Sym& Sym::operator-=(const Sym& other) {
  combine(other, -1);
  return *this;
}

Sym operator-(Sym a) {
  for (auto& t : a.terms_) t.coeff = -t.coeff;
  return a;
}

std::string Sym::to_string(SymStyle style) const {
  if (terms_.empty()) return "0";
  std::string out;
  std::size_t i = 0;
  while (i < terms_.size()) {
    // A run: same owner, consecutive indices, same coefficient.
    std::size_t j = i + 1;
    while (j < terms_.size() && terms_[j].owner == terms_[i].owner &&
           terms_[j].index == terms_[j - 1].index + 1 && terms_[j].coeff == terms_[i].coeff) {
      ++j;
    }
    const Term& first = terms_[i];
    const Term& last = terms_[j - 1];
    const std::int64_t c = first.coeff;
    if (c < 0) {
      out += out.empty() ? "-" : " - ";
    } else if (!out.empty()) {
      out += " + ";
    }
    const std::int64_t mag = c < 0 ? -c : c;
    if (mag != 1) out += std::to_string(mag) + "*";
    out += lane_letter(first.owner);
    out += std::to_string(first.index);
    if (last.index != first.index || style == SymStyle::Range) {
      out += ':';
      out += std::to_string(last.index);
    }
    i = j;
  }
  return out;
}

}  // namespace warpsim::sim
