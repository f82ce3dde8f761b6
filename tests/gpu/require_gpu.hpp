// GPU tests skip, saying why, where no CUDA device can be used; CTest then
// reports them as skipped (SKIP_REGULAR_EXPRESSION), never as passed.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "gpu/device.hpp"

#define WARPSIM_REQUIRE_GPU()                                              \
  do {                                                                     \
    std::string why_no_gpu;                                                \
    if (!::warpsim::gpu::first_device(&why_no_gpu)) {                      \
      GTEST_SKIP() << "no usable CUDA device: " << why_no_gpu;             \
    }                                                                      \
  } while (0)
