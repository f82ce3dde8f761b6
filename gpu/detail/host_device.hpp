// WARPSIM_HD: __host__ __device__ under nvcc, nothing in host-only code --
// for the gpu/detail/ headers that the host tests compile too.
#pragma once

#if defined(__CUDACC__)
#define WARPSIM_HD __host__ __device__
#else
#define WARPSIM_HD
#endif
