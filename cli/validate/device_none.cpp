// device.hpp without CUDA: nothing runs, and each entry says why.
#include "cli/errors.hpp"
#include "cli/validate/device.hpp"

namespace warpsim::cli::validate::device {

namespace {
const char* const kWhy = "this warpsim was built without CUDA (no nvcc at configure time)";
}

std::string unavailable() { return kWhy; }
int use_local_rank_device(int) { return -1; }
Buffer::Buffer(std::size_t, const std::string& what) { throw UsageError(what + ": " + kWhy); }
Buffer::~Buffer() = default;
void Buffer::upload(const void*, std::size_t) {}
void Buffer::download(void*, std::size_t) const {}
void Buffer::zero() {}
std::string synchronize_error() { return kWhy; }
bool can_count(const ArrayView&) { return false; }
int pointer_device(const void*) { return -1; }
DeviceLawCounts count_law(const ArrayView&, const std::vector<double>&, const std::vector<std::uint32_t>&, int, int) { throw UsageError(kWhy); }
void copy_to_host(void*, const void*, std::size_t, int, std::uintptr_t, const std::string& what) { throw UsageError(what + ": " + kWhy); }
struct LawTally::State {};
LawTally::LawTally(const std::vector<double>&, const std::vector<std::uint32_t>&, int, int) { throw UsageError(kWhy); }
LawTally::~LawTally() = default;
void LawTally::add(const std::int32_t*, std::uint64_t, std::uint64_t) {}
DeviceLawCounts LawTally::counts() const { return {}; }
HistogramFindings histogram(const Buffer&, std::uint64_t, const Buffer&, int, std::int64_t, Buffer&) { throw UsageError(kWhy); }

}  // namespace warpsim::cli::validate::device
