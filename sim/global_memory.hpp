// Device global memory as the model sees it: byte-addressed allocations at
// realistic addresses, so that coalescing (which 32-byte sectors and which
// cache lines a warp-wide access touches) depends on alignment as on hardware.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

namespace warpsim::sim {

inline constexpr int kSectorBytes = 32;

template <class T>
struct DeviceArray {
  std::uint64_t address = 0;  // of element 0
  std::size_t size = 0;       // elements
  std::uint64_t at(std::size_t i) const { return address + i * sizeof(T); }
};

class GlobalMemory {
 public:
  // First allocation's address; like cudaMalloc's, allocations are 256-byte aligned.
  static constexpr std::uint64_t kBase = 0x7f0000000000ULL;

  template <class T>
  DeviceArray<T> allocate(std::size_t count, std::size_t alignment = 256) {
    return {allocate_bytes(count * sizeof(T), alignment), count};
  }
  std::uint64_t allocate_bytes(std::size_t bytes, std::size_t alignment = 256);

  // True when [address, address + bytes) lies inside one allocation.
  bool contains(std::uint64_t address, std::size_t bytes) const;

  // Host-side copies (cudaMemcpy); they throw std::out_of_range outside allocations.
  void write_bytes(std::uint64_t address, const void* src, std::size_t bytes);
  void read_bytes(std::uint64_t address, void* dst, std::size_t bytes) const;

  template <class T>
  void upload(const DeviceArray<T>& a, std::span<const T> host) {
    if (host.size() > a.size) throw std::out_of_range("GlobalMemory::upload: more elements than the array holds");
    write_bytes(a.address, host.data(), host.size_bytes());
  }
  template <class T>
  std::vector<T> download(const DeviceArray<T>& a) const {
    std::vector<T> out(a.size);
    read_bytes(a.address, out.data(), a.size * sizeof(T));
    return out;
  }

  // Unchecked element access for the warp, after it has checked bounds.
  template <class T>
  T load(std::uint64_t address) const {
    T v;
    std::memcpy(&v, &bytes_[address - kBase], sizeof(T));
    return v;
  }
  template <class T>
  void store(std::uint64_t address, const T& v) {
    std::memcpy(&bytes_[address - kBase], &v, sizeof(T));
  }

 private:
  struct Allocation {
    std::uint64_t address;
    std::size_t bytes;
  };
  std::vector<Allocation> allocations_;  // sorted by address
  std::vector<std::byte> bytes_;         // bytes_[a - kBase] is address a
};

}  // namespace warpsim::sim
