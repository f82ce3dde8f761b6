// Arrays the caller already holds, read in place: the Python package's way
// in (python/), where a NumPy array or a PyTorch, JAX or CuPy device array
// stands where the command line names a file. A view is described, never
// copied: its address, element type and shape (C order: 0, 1 or 2
// dimensions), and for a device array the CUDA device and the stream the
// caller's work on it is ordered by.
//
// Through ViewInputs every reader of files (open_array, read_whole_array,
// read_weights) reads views as it reads .npy files, so `warpsim.validate`
// runs the command's own checks: one implementation. A host view is read
// where it lies; a device view is read in chunks through a staging buffer
// by the readers that need each value on the host, and is counted on the
// device where the check allows it (cli/validate/files.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/input/element_kind.hpp"
#include "cli/input/sources.hpp"

namespace warpsim::cli {

class ArrayReader;
struct ArrayInfo;

struct ArrayView {
  const void* data = nullptr;
  ElementKind kind = ElementKind::Float;  // Float, Signed or Unsigned
  int bytes = 8;                          // element size: 1, 2, 4 or 8
  std::vector<std::uint64_t> shape;       // C-contiguous, at most 2 dimensions
  int device = -1;                        // -1: host memory; else a CUDA device's ordinal
  std::uintptr_t stream = 0;              // device views: the cudaStream_t that orders the caller's work
  std::uint64_t elements() const {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

// Named views; any other name is a file (a CDF table a law names).
class ViewInputs final : public InputSource {
 public:
  std::map<std::string, ArrayView> arrays;
  std::unique_ptr<std::istream> open(const std::string& path) const override;
  std::unique_ptr<ArrayReader> open_view(const std::string& path, const ArrayLimits& limits) const override;
};

// The reader of a device view: chunks of 2^22 elements copied to the host
// on the view's stream (cli/validate/device.hpp); a UsageError where no
// device can be used.
std::unique_ptr<ArrayReader> open_device_view(const ArrayView& view, ArrayInfo info);

}  // namespace warpsim::cli
