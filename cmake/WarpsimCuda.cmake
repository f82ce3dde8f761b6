# CUDA is optional. Without nvcc the CPU parts build and test; with it, the
# CUDA parts compile for sm_90 machine code plus compute_90 PTX.

set(WARPSIM_HAVE_CUDA OFF)
set(WARPSIM_HAVE_CUDA_TEXT "off")
if(NOT WARPSIM_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90-real 90-virtual)
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know how to ask nvcc for C++20; kernels are written in C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    # Link the CUDA runtime statically so test binaries run on a device
    # machine that has the driver but none of this machine's libraries.
    set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
    find_package(CUDAToolkit REQUIRED)
    set(WARPSIM_HAVE_CUDA ON)
    set(WARPSIM_HAVE_CUDA_TEXT "on (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(WARPSIM_CUDA STREQUAL "ON")
    message(FATAL_ERROR "WARPSIM_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
