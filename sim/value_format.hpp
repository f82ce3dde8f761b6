// Text for one lane's value: shortest round-trip decimal for floating point,
// seed 002's notation for symbolic values.
#pragma once

#include <charconv>
#include <concepts>
#include <string>

#include "sim/symbolic.hpp"

namespace warpsim::sim {

template <class T>
std::string format_value(const T& v) {
  if constexpr (std::same_as<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::same_as<T, Sym>) {
    return v.to_string();
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc{} ? std::string(buf, end) : std::string("?");
  } else {
    return std::to_string(v);
  }
}

}  // namespace warpsim::sim
