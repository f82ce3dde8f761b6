// samplers.hpp's device halves without CUDA: each says why it cannot run.
#include "python/src/samplers.hpp"

namespace warpsim::python::detail {

namespace {
[[noreturn]] void none() { throw BadInput("this warpsim was built without CUDA: device arrays cannot be sampled here (pass NumPy arrays)"); }
}  // namespace

struct DeviceAliasTable {};
DeviceWeightFindings check_weights_device(const Array&, bool, std::uint64_t, std::uint64_t) { none(); }
void synchronize(const Array&) { none(); }
std::vector<double> download(const Array&, bool, std::uint64_t) { none(); }
void multinomial_device(const Array&, bool, int, std::int64_t, const Array&, int, std::uint64_t) { none(); }
std::shared_ptr<DeviceAliasTable> alias_build_device(const Array&, bool, std::uint64_t) { none(); }
void alias_sample_device(const DeviceAliasTable&, const Array&, std::uint64_t, std::uint64_t, std::uint64_t) { none(); }
void alias_counts_device(const DeviceAliasTable&, const Array&, std::uint64_t, std::uint64_t) { none(); }
void gamma_device(const Array&, bool, std::uint64_t, const Array&, std::uint64_t, std::uint64_t) { none(); }
void dirichlet_device(const std::vector<double>&, const Array&, std::uint64_t, std::uint64_t) { none(); }
std::vector<std::int64_t> sample_tokens_device(const Array&, int, int, std::int64_t, const TokenRows&, const Array&, int) { none(); }

}  // namespace warpsim::python::detail
