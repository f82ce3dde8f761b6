// Text for one lane's value: shortest round-trip decimal for floating point,
// seed 002's notation for symbolic values, a struct's own to_string() or
// else its bytes in hex (a 16-byte row moved by one access).
#pragma once

#include <charconv>
#include <concepts>
#include <string>
#include <type_traits>

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
  } else if constexpr (std::is_arithmetic_v<T>) {
    return std::to_string(v);
  } else if constexpr (requires { { v.to_string() } -> std::convertible_to<std::string>; }) {
    return v.to_string();
  } else {
    // A plain struct moved as one access (a row, an int4): its bytes in hex.
    static_assert(std::is_trivially_copyable_v<T>, "a register holds arithmetic, symbolic or trivially copyable values");
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    static const char* const kHex = "0123456789abcdef";
    std::string s = "0x";
    for (std::size_t i = sizeof(T); i-- > 0;) {
      s.push_back(kHex[p[i] >> 4]);
      s.push_back(kHex[p[i] & 15]);
    }
    return s;
  }
}

}  // namespace warpsim::sim
