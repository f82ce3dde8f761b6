// Per-lane local memory: an array private to each lane, which (unlike the
// register file) a lane may index with its own value.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/lane_mask.hpp"

namespace warpsim::sim {

template <class T>
class LocalArray {
 public:
  LocalArray(std::string name, std::size_t count, const T& init = T{})
      : name_(std::move(name)), count_(count), data_(count * kMaxLanes, init) {}

  std::size_t size() const { return count_; }
  const std::string& name() const { return name_; }
  T& at(int lane, std::size_t i) { return data_[static_cast<std::size_t>(lane) * count_ + i]; }
  const T& at(int lane, std::size_t i) const { return data_[static_cast<std::size_t>(lane) * count_ + i]; }

 private:
  std::string name_;
  std::size_t count_;
  std::vector<T> data_;
};

}  // namespace warpsim::sim
