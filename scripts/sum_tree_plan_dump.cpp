// Prints the sum-tree plan (layout, knobs, description, or a refusal) at
// 5,313,000 points: fp32 and fp64, five devices, M 1..2^20, K 1..2^25 + 1,
// S 1..65,536, 363 asks (forced knobs, out-of-range ones among them). Two
// commits' outputs compared say whether a change to the plan changed any
// plan (scripts/sum_tree_plan_diff.sh). Built against gpu/sum_tree_plan.hpp,
// or with -DOLD against gpu/sum_tree_sampler.hpp before the plan had a file
// of its own (its second_pass the integers -1..4).
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>
#ifdef OLD
#include "gpu/sum_tree_sampler.hpp"
#define PLANNER(T) warpsim::gpu::SumTreeSampler<T>
#define SP_INT(p) (p.second_pass)
#define SET_SP(a, v) (a.second_pass = (v))
#else
#include "gpu/sum_tree_plan.hpp"
#define PLANNER(T) warpsim::gpu::SumTreePlanner<T>
#define SP_INT(p) (static_cast<int>(p.second_pass) - 1)
#define SET_SP(a, v) (a.second_pass = static_cast<warpsim::gpu::SumTreePlan::SecondPass>((v) + 1))
#endif
using namespace warpsim::gpu;
template <class T>
void dump(const char* name) {
  const PlanDevice devices[] = {{132}, {132, 4814.0, std::size_t{60} << 20}, {16}, {114, 3352.0, std::size_t{50} << 20}, {1}};
  const int ms[] = {1, 2, 3, 5, 16, 17, 20, 33, 64, 100, 131, 132, 133, 248, 256, 265, 320, 397, 528, 1024, 1055, 4096, 65536, 1 << 20};
  std::vector<long long> ks = {1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 100, 127, 128, 129, 200, 255, 256, 257, 500, 511, 512, 513, 1000, 1024, 1025, 2048, 4095, 4096, 4097};
  for (long long s : {2, 3, 8, 9, 16, 17, 20, 32, 33, 35, 64, 65, 66, 128, 256, 257, 512, 513, 4096, 8192}) { ks.push_back(s * 2048); ks.push_back(s * 4096); ks.push_back(s * 4096 + 1); }
  const int draws[] = {1, 2, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 256, 1024, 65536};
  std::vector<SumTreePlan> asks(1);
  for (int sp = -1; sp <= 5; ++sp) for (int wpb : {0, 1, 2, 4, 8}) for (int walk : {-1, 0, 1}) {
    SumTreePlan a; a.layout = SumTreePlan::Layout::Segmented; a.warps_per_block = wpb; SET_SP(a, sp); a.warp_walk = walk; asks.push_back(a);
    SumTreePlan b = a; b.read_once = 1; asks.push_back(b);
    SumTreePlan c = a; c.row_blocks = 2; asks.push_back(c);
  }
  for (int keep : {-1, 0, 1, 2}) for (int walk : {-1, 0, 1}) for (int rb : {0, 1, 3}) {
    SumTreePlan a; a.layout = SumTreePlan::Layout::BlockPerRow; a.keep_rows = keep; a.warp_walk = walk; a.row_blocks = rb; asks.push_back(a);
  }
  for (auto l : {SumTreePlan::Layout::LanesPerRow, SumTreePlan::Layout::ThreadPerRow, SumTreePlan::Layout::WarpPerRow}) { SumTreePlan a; a.layout = l; asks.push_back(a); a.read_once = 0; asks.push_back(a); }
  { SumTreePlan a; a.read_once = 0; asks.push_back(a); a.read_once = 1; asks.push_back(a); a.read_once = 2; asks.push_back(a); a.warps_per_block = 4; a.read_once = -1; asks.push_back(a); }
  long n = 0;
  for (int d = 0; d < 5; ++d) for (int m : ms) for (long long k : ks) for (int s : draws) for (size_t ai = 0; ai < asks.size(); ++ai) {
    const bool few_m = m == 1 || m == 17 || m == 256 || m == 1055 || m == 65536;
    if (ai > 0 && !(few_m && (s == 1 || s == 5 || s == 64))) continue;  // (forced asks: fewer points)
    std::printf("%s d%d M%d K%lld S%d a%zu: ", name, d, m, k, s, ai);
    try {
      const SumTreePlan p = PLANNER(T)::plan_for(devices[d], m, k, asks[ai], s);
      std::printf("%d %d %d %d %d %d %d | %s\n", static_cast<int>(p.layout), p.warps_per_block, p.keep_rows, SP_INT(p), p.warp_walk, p.row_blocks, p.read_once, p.describe().c_str());
    } catch (const std::invalid_argument& e) {
      std::printf("throws\n");
    }
    ++n;
  }
  std::fprintf(stderr, "%s: %ld points\n", name, n);
}
int main() { dump<float>("fp32"); dump<double>("fp64"); }
