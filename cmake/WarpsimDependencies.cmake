# Every third-party library comes from a Debian package. A missing one stops
# configuration with the name of the package that provides it.

function(warpsim_require_package name debian_package)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR
      "warpsim needs ${name}, which was not found.\n"
      "Install it with:  apt-get install ${debian_package}\n"
      "(or run scripts/setup.sh, which installs everything warpsim needs)")
  endif()
endfunction()

warpsim_require_package(GTest libgtest-dev CONFIG)
warpsim_require_package(rapidcheck librapidcheck-dev CONFIG)
warpsim_require_package(Eigen3 libeigen3-dev 3.3 CONFIG)
warpsim_require_package(Boost libboost1.81-dev 1.81 CONFIG)
warpsim_require_package(CLI11 libcli11-dev CONFIG)
warpsim_require_package(nlohmann_json nlohmann-json3-dev 3.10 CONFIG)
if(WARPSIM_BENCHMARKS)
  warpsim_require_package(benchmark libbenchmark-dev CONFIG)
endif()

# Random123 is header-only and ships no CMake package.
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h)
if(NOT RANDOM123_INCLUDE_DIR)
  message(FATAL_ERROR
    "warpsim needs Random123 (Random123/philox.h), which was not found.\n"
    "Install it with:  apt-get install librandom123-dev")
endif()
add_library(warpsim_random123 INTERFACE)
target_include_directories(warpsim_random123 SYSTEM INTERFACE ${RANDOM123_INCLUDE_DIR})
add_library(Random123::Random123 ALIAS warpsim_random123)

# MPI (dist/): optional unless WARPSIM_MPI is ON.
set(WARPSIM_HAVE_MPI OFF)
if(NOT WARPSIM_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(WARPSIM_HAVE_MPI ON)
  elseif(WARPSIM_MPI STREQUAL "ON")
    message(FATAL_ERROR "WARPSIM_MPI=ON, but MPI was not found.\nInstall it with:  apt-get install libopenmpi-dev openmpi-bin")
  endif()
endif()
