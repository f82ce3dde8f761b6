import sys
src, dst = sys.argv[1], sys.argv[2]
s=open(src).read()
s=s.replace("""namespace warpsim::gpu {

namespace {
""","""namespace warpsim::gpu {

__device__ unsigned long long g_phase[64];
__device__ __forceinline__ unsigned long long phase_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void stamp(int lo, int hi) {
  if (threadIdx.x % 32 == 0) { const auto t = phase_now(); if (lo >= 0) atomicMin(&g_phase[lo], t); if (hi >= 0) atomicMax(&g_phase[hi], t); }
}

namespace {
""",1)
def rep(a,b):
    global s
    assert s.count(a)==1, a[:60]
    s=s.replace(a,b)
rep("""  __shared__ unsigned positive[kLanes];               // lane l's vectors whose sum is > 0 (bit j)
  detail::join_dependent_chain();""","""  __shared__ unsigned positive[kLanes];               // lane l's vectors whose sum is > 0 (bit j)
  stamp(0, 3);
  detail::join_dependent_chain();""")
rep("""  __syncwarp();  // (the walk reads other lanes' vectors)
""","""  __syncwarp();  // (the walk reads other lanes' vectors)
  stamp(9, 1);
""")
rep("""  const double v = butterfly_kept(acc, heap, lane);
  double root = v;""","""  const double v = butterfly_kept(acc, heap, lane);
  stamp(10, 2);
  double root = v;""")
rep("""      all = __all_sync(~0u, here);
    }""","""      all = __all_sync(~0u, here);
    }
    stamp(11, 5);""")
rep("""  __syncwarp();  // (before, positive, heap)""","""  stamp(12, 6);
  __syncwarp();  // (before, positive, heap)""")
rep("""      row_out[s] = static_cast<int>(vector_first<T>(base, l, j) + in_vector<T>(x, __dsub_rn(t, before[j][l])));
    }
  }
}""","""      row_out[s] = static_cast<int>(vector_first<T>(base, l, j) + in_vector<T>(x, __dsub_rn(t, before[j][l])));
      atomicMax(&g_phase[7], phase_now());
    }
  }
  stamp(13, 8);
}""")
open(dst,'w').write(s)
