#include "sim/lane_mask.hpp"

#include <cstdio>

namespace warpsim::sim {

std::string format_mask(LaneMask mask, int width) {
  const int digits = width <= 4 ? 1 : width / 4;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(mask));
  return buf;
}

char lane_letter(int lane) {
  static constexpr char kLetters[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789#$";
  static_assert(sizeof kLetters - 1 == kMaxLanes);
  return (lane >= 0 && lane < kMaxLanes) ? kLetters[lane] : '?';
}

}  // namespace warpsim::sim
