// A block's shared memory: 32 banks of 4 bytes. A warp-wide access takes as
// many wavefronts as the largest number of distinct 4-byte words that its
// lanes touch in any one bank (lanes reading one word share a broadcast).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace warpsim::sim {

inline constexpr int kSharedBanks = 32;
inline constexpr int kBankBytes = 4;

template <class T>
struct SharedArray {
  std::uint32_t offset = 0;  // byte address of element 0
  std::size_t size = 0;
  std::uint32_t at(std::size_t i) const { return offset + static_cast<std::uint32_t>(i * sizeof(T)); }
};

class SharedMemory {
 public:
  explicit SharedMemory(std::size_t bytes) : bytes_(bytes) {}

  template <class T>
  SharedArray<T> allocate(std::size_t count, std::size_t alignment = 16) {
    used_ = (used_ + alignment - 1) / alignment * alignment;
    SharedArray<T> a{static_cast<std::uint32_t>(used_), count};
    used_ += count * sizeof(T);
    if (used_ > bytes_.size()) throw std::length_error("SharedMemory::allocate: shared memory exhausted");
    return a;
  }

  std::size_t size() const { return bytes_.size(); }
  bool contains(std::uint64_t address, std::size_t bytes) const { return address + bytes <= bytes_.size(); }

  template <class T>
  T load(std::uint64_t address) const {
    T v;
    std::memcpy(&v, &bytes_[address], sizeof(T));
    return v;
  }
  template <class T>
  void store(std::uint64_t address, const T& v) {
    std::memcpy(&bytes_[address], &v, sizeof(T));
  }

  // Who last wrote each 4-byte word, and in which of the writing warp's
  // __syncwarp epochs: a lane that reads a word another lane wrote in the
  // same epoch reads without the ordering CUDA requires (under independent
  // thread scheduling the write need not be visible yet).
  struct WordWrite {
    int lane = -1;  // -1: never written
    std::uint64_t epoch = 0;
    std::uint64_t step = 0;
  };
  void note_write(std::uint64_t address, std::size_t bytes, int lane, std::uint64_t epoch, std::uint64_t step) {
    for (std::uint64_t w = address / kBankBytes; w <= (address + bytes - 1) / kBankBytes; ++w) writes_[w] = {lane, epoch, step};
  }
  // The write to [address, address + bytes) by a lane other than `lane` in
  // epoch `epoch`, if any.
  const WordWrite* unsynced_write(std::uint64_t address, std::size_t bytes, int lane, std::uint64_t epoch) const {
    for (std::uint64_t w = address / kBankBytes; w <= (address + bytes - 1) / kBankBytes; ++w) {
      const WordWrite& x = writes_[w];
      if (x.lane >= 0 && x.lane != lane && x.epoch == epoch) return &x;
    }
    return nullptr;
  }

 private:
  std::vector<std::byte> bytes_;
  std::vector<WordWrite> writes_ = std::vector<WordWrite>((bytes_.size() + kBankBytes - 1) / kBankBytes);
  std::size_t used_ = 0;
};

}  // namespace warpsim::sim
