// Registers of the model: Reg<T> is one register across the lanes of a warp
// (one value per lane); RegArray<T> is an array of registers per lane, indexed
// by a value every lane agrees on (what an unrolled loop's constant index
// compiles to). Indexing it by a lane-dependent value is a separate, flagged
// warp instruction (Warp::read_indexed), because NVIDIA hardware lacks it.
//
// Host code reads and writes lanes directly with operator[]; that is set-up and
// inspection, not a simulated instruction.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/lane_mask.hpp"

namespace warpsim::sim {

template <class T>
class Reg {
 public:
  using value_type = T;

  explicit Reg(std::string name = {}, const T& init = T{}) : name_(std::move(name)) { std::fill_n(lanes_, kMaxLanes, init); }

  WARPSIM_SIM_INLINE T& operator[](int lane) { return lanes_[lane]; }
  WARPSIM_SIM_INLINE const T& operator[](int lane) const { return lanes_[lane]; }

  const std::string& name() const { return name_; }
  void rename(std::string name) { name_ = std::move(name); }

 private:
  std::string name_;
  T lanes_[kMaxLanes];  // (a plain array: its index is no call unoptimised; WARPSIM_SIM_INLINE)
};

template <class T>
class RegArray {
 public:
  RegArray(std::string name, int registers, const T& init = T{}) : name_(std::move(name)) {
    regs_.reserve(static_cast<std::size_t>(registers));
    for (int r = 0; r < registers; ++r) regs_.emplace_back(name_ + "[" + std::to_string(r) + "]", init);
  }

  int size() const { return static_cast<int>(regs_.size()); }
  Reg<T>& operator[](int r) { return regs_.at(static_cast<std::size_t>(r)); }
  const Reg<T>& operator[](int r) const { return regs_.at(static_cast<std::size_t>(r)); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::vector<Reg<T>> regs_;
};

// An instruction operand that is either one value for every lane (an
// immediate or uniform register) or a register with a value per lane.
template <class T>
class PerLane {
 public:
  PerLane(const T& uniform) : uniform_(uniform) {}  // NOLINT: implicit by design
  PerLane(const Reg<T>& reg) : reg_(&reg) {}        // NOLINT: implicit by design

  WARPSIM_SIM_INLINE T operator()(int lane) const { return reg_ ? (*reg_)[lane] : uniform_; }
  WARPSIM_SIM_INLINE bool is_uniform() const { return reg_ == nullptr; }

 private:
  T uniform_{};
  const Reg<T>* reg_ = nullptr;
};

}  // namespace warpsim::sim
