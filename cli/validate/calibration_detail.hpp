// What the calibration harness's files share (cli/validate/calibration.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::cli::validate::calibration::detail {

// w / sum(w) in long double.
inline std::vector<double> normalised(std::vector<double> w) {
  long double s = 0;
  for (double v : w) s += v;
  for (double& v : w) v = static_cast<double>(v / s);
  return w;
}

// Seeds of cells and runs: splitmix64 of two words, FNV-1a of a name.
inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a * 0x9e3779b97f4a7c15ULL + b + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline std::uint64_t hash_text(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace warpsim::cli::validate::calibration::detail
