// RapidCheck generators for the weight vectors that matter to a sampler:
// each family stresses a different way a sum or a search can go wrong.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace warpsim::testing {

enum class WeightFamily { Uniform, PowerLaw, OneNonZero, Zeros, AllEqual, Integer, HugeRange, Subnormal };

inline const char* family_name(WeightFamily f) {
  switch (f) {
    case WeightFamily::Uniform: return "uniform";
    case WeightFamily::PowerLaw: return "shuffled power law";
    case WeightFamily::OneNonZero: return "one non-zero";
    case WeightFamily::Zeros: return "zeros anywhere";
    case WeightFamily::AllEqual: return "all equal";
    case WeightFamily::Integer: return "integer-valued";
    case WeightFamily::HugeRange: return "huge dynamic range";
    case WeightFamily::Subnormal: return "subnormals";
  }
  return "?";
}

// K weights of family f, finite, non-negative, not all zero.
template <class T>
rc::Gen<std::vector<T>> gen_weights(WeightFamily f, int k) {
  const auto n = static_cast<std::size_t>(k);
  auto positive_unit = rc::gen::map(rc::gen::inRange(1, 1 << 24), [](int v) { return static_cast<T>(v) / static_cast<T>(1 << 24); });
  switch (f) {
    case WeightFamily::Uniform:
      return rc::gen::container<std::vector<T>>(n, positive_unit);
    case WeightFamily::PowerLaw:
      return rc::gen::exec([k] {
        const double alpha = *rc::gen::inRange(5, 30) / 10.0;
        std::vector<T> v(static_cast<std::size_t>(k));
        for (int i = 0; i < k; ++i) v[static_cast<std::size_t>(i)] = static_cast<T>(std::pow(i + 1.0, -alpha));
        // a shuffle drawn from RapidCheck, so it shrinks and replays
        for (int i = k - 1; i > 0; --i) std::swap(v[static_cast<std::size_t>(i)], v[static_cast<std::size_t>(*rc::gen::inRange(0, i + 1))]);
        return v;
      });
    case WeightFamily::OneNonZero:
      return rc::gen::exec([k] {
        std::vector<T> v(static_cast<std::size_t>(k), T{0});
        v[static_cast<std::size_t>(*rc::gen::inRange(0, k))] = static_cast<T>(*rc::gen::inRange(1, 1000)) / T{7};
        return v;
      });
    case WeightFamily::Zeros:
      return rc::gen::exec([k, positive_unit] {
        std::vector<T> v(static_cast<std::size_t>(k));
        for (auto& x : v) x = *rc::gen::inRange(0, 3) == 0 ? *positive_unit : T{0};
        v[static_cast<std::size_t>(*rc::gen::inRange(0, k))] = T{1};
        return v;
      });
    case WeightFamily::AllEqual:
      return rc::gen::map(positive_unit, [n](T x) { return std::vector<T>(n, x); });
    case WeightFamily::Integer:
      return rc::gen::container<std::vector<T>>(n, rc::gen::map(rc::gen::inRange(1, 1 << 20), [](int v) { return static_cast<T>(v); }));
    case WeightFamily::HugeRange:
      return rc::gen::container<std::vector<T>>(n, rc::gen::map(rc::gen::inRange(-100, 100), [](int e) { return std::ldexp(T{1}, e); }));
    case WeightFamily::Subnormal:
      return rc::gen::exec([k] {
        std::vector<T> v(static_cast<std::size_t>(k));
        const T tiny = std::numeric_limits<T>::denorm_min();
        for (auto& x : v) x = tiny * static_cast<T>(*rc::gen::inRange(0, 1000));
        v[static_cast<std::size_t>(*rc::gen::inRange(0, k))] = std::numeric_limits<T>::min();  // smallest normal
        return v;
      });
  }
  return rc::gen::just(std::vector<T>(n, T{1}));
}

inline rc::Gen<WeightFamily> gen_family() {
  return rc::gen::element(WeightFamily::Uniform, WeightFamily::PowerLaw, WeightFamily::OneNonZero, WeightFamily::Zeros,
                          WeightFamily::AllEqual, WeightFamily::Integer, WeightFamily::HugeRange, WeightFamily::Subnormal);
}

}  // namespace warpsim::testing
