#include "cli/input/array_view.hpp"

#include <algorithm>

#include "cli/errors.hpp"
#include "cli/input/arrays.hpp"
#include "cli/validate/device.hpp"

namespace warpsim::cli {

namespace {

// A host view, converted to doubles chunk by chunk as a .npy file is.
class HostViewReader final : public ArrayReader {
 public:
  HostViewReader(const ArrayView& view, ArrayInfo info) : view_(view) {
    info_ = std::move(info);
    remaining_ = view.elements();
  }
  std::size_t read(std::span<double> values, std::span<std::uint64_t> rows) override {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(values.size(), remaining_));
    const auto* p = static_cast<const unsigned char*>(view_.data) + consumed_ * static_cast<std::uint64_t>(view_.bytes);
    elements_to_doubles(p, want, view_.kind, view_.bytes, values.data());
    for (std::size_t j = 0; j < want; ++j) rows[j] = (consumed_ + j) / info_.columns;
    consumed_ += want;
    remaining_ -= want;
    return want;
  }

 private:
  ArrayView view_;
  std::uint64_t remaining_ = 0;
};

// A device view, read on the host through a staging buffer of 2^22
// elements filled on the view's stream.
class DeviceViewReader final : public ArrayReader {
 public:
  DeviceViewReader(const ArrayView& view, ArrayInfo info) : view_(view) {
    info_ = std::move(info);
    remaining_ = view.elements();
  }
  const ArrayView* device_array() const override { return &view_; }
  std::size_t read(std::span<double> values, std::span<std::uint64_t> rows) override {
    if (staged_ == used_) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kStage, remaining_));
      if (n == 0) return 0;
      stage_.resize(n * static_cast<std::size_t>(view_.bytes));
      const auto* p = static_cast<const unsigned char*>(view_.data) + consumed_ * static_cast<std::uint64_t>(view_.bytes);
      validate::device::copy_to_host(stage_.data(), p, stage_.size(), view_.device, view_.stream, "copying " + info_.quoted + " from the device");
      staged_ = n;
      used_ = 0;
      remaining_ -= n;
    }
    const std::size_t want = std::min(values.size(), staged_ - used_);
    elements_to_doubles(stage_.data() + used_ * static_cast<std::size_t>(view_.bytes), want, view_.kind, view_.bytes, values.data());
    for (std::size_t j = 0; j < want; ++j) rows[j] = (consumed_ + j) / info_.columns;
    consumed_ += want;
    used_ += want;
    return want;
  }

 private:
  static constexpr std::size_t kStage = std::size_t{1} << 22;
  ArrayView view_;
  std::vector<unsigned char> stage_;
  std::size_t staged_ = 0, used_ = 0;
  std::uint64_t remaining_ = 0;
};

}  // namespace

std::unique_ptr<ArrayReader> open_device_view(const ArrayView& view, ArrayInfo info) {
  if (const std::string why = validate::device::unavailable(); !why.empty()) {
    throw UsageError(info.quoted + " lies in device memory (CUDA device " + std::to_string(view.device) + "), and " + why + ": pass a host array (NumPy)");
  }
  return std::make_unique<DeviceViewReader>(view, std::move(info));
}

std::unique_ptr<std::istream> ViewInputs::open(const std::string& path) const { return FileInputs().open(path); }

std::unique_ptr<ArrayReader> ViewInputs::open_view(const std::string& path, const ArrayLimits& limits) const {
  const auto it = arrays.find(path);
  if (it == arrays.end()) return nullptr;  // a file
  const ArrayView& v = it->second;
  ArrayInfo info;
  info.path = path;
  info.quoted = "'" + printable(path) + "'";
  info.npy = true;  // shaped and typed, as a .npy file is
  info.kind = v.kind;
  info.bytes = v.bytes;
  info.shape = v.shape;
  info.columns = v.shape.size() == 2 ? v.shape[1] : 1;
  if (v.shape.size() > 2) {
    throw UsageError(info.quoted + " has " + std::to_string(v.shape.size()) + " dimensions; warpsim reads at most 2");
  }
  const bool known = (v.kind == ElementKind::Float && (v.bytes == 4 || v.bytes == 8)) ||
                     ((v.kind == ElementKind::Signed || v.kind == ElementKind::Unsigned) && (v.bytes == 1 || v.bytes == 2 || v.bytes == 4 || v.bytes == 8));
  if (!known) throw UsageError(info.quoted + " holds " + info.dtype() + "; warpsim reads float32, float64 and integers of 1 to 8 bytes");
  std::uint64_t n = 1;
  for (auto d : v.shape) {
    if (d != 0 && n > limits.max_elements / d) {
      throw UsageError(info.quoted + " holds more than " + std::to_string(limits.max_elements) + " elements, the most one input may hold");
    }
    n *= d;
  }
  if (n > 0 && v.data == nullptr) throw UsageError(info.quoted + " has no data (a null address)");
  if (v.device >= 0) return open_device_view(v, std::move(info));
  return std::make_unique<HostViewReader>(v, std::move(info));
}

}  // namespace warpsim::cli
