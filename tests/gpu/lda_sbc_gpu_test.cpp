// The LDA chain on the GPU's kernels (properties/lda_sbc.hpp's gpu_lda_sweep)
// passes its simulation-based calibration, and theta's off-by-one count
// fails it, as on the host.
#include <gtest/gtest.h>

#include "properties/lda_sbc.hpp"
#include "require_gpu.hpp"

using namespace warpsim::properties;

TEST(GpuLdaSbc, TheKernelsChainIsCalibratedAndAFaultIsCaught) {
  WARPSIM_REQUIRE_GPU();
  auto sweep = gpu_lda_sweep();
  ASSERT_TRUE(sweep);
  LdaSbcConfig c;
  c.replications = 400;
  const auto r = run_lda_sbc(c, *sweep);
  for (const auto& q : r.quantities) EXPECT_FALSE(q.rejected) << q.name << ": p " << q.p_value;
  c.fault = LdaSbcFault::ThetaCountOffByOne;
  EXPECT_FALSE(run_lda_sbc(c, *sweep).ok);
}
