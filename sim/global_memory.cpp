#include "sim/global_memory.hpp"

#include <algorithm>

namespace warpsim::sim {

std::uint64_t GlobalMemory::allocate_bytes(std::size_t bytes, std::size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    throw std::invalid_argument("GlobalMemory::allocate: alignment must be a power of two");
  }
  std::uint64_t next = kBase + bytes_.size();
  next = (next + alignment - 1) / alignment * alignment;
  bytes_.resize(next - kBase + bytes);
  allocations_.push_back({next, bytes});
  return next;
}

bool GlobalMemory::contains(std::uint64_t address, std::size_t bytes) const {
  auto it = std::upper_bound(allocations_.begin(), allocations_.end(), address,
                             [](std::uint64_t a, const Allocation& al) { return a < al.address; });
  if (it == allocations_.begin()) return false;
  --it;
  return address >= it->address && address + bytes <= it->address + it->bytes && address + bytes >= address;
}

void GlobalMemory::write_bytes(std::uint64_t address, const void* src, std::size_t bytes) {
  if (!contains(address, bytes)) throw std::out_of_range("GlobalMemory: write outside every allocation");
  if (bytes != 0) std::memcpy(&bytes_[address - kBase], src, bytes);
}

void GlobalMemory::read_bytes(std::uint64_t address, void* dst, std::size_t bytes) const {
  if (!contains(address, bytes)) throw std::out_of_range("GlobalMemory: read outside every allocation");
  if (bytes != 0) std::memcpy(dst, &bytes_[address - kBase], bytes);
}

}  // namespace warpsim::sim
