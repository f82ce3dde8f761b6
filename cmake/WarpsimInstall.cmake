# `cmake --install BUILD --prefix P` installs warpsim as a CMake package:
#   find_package(warpsim) gives
#     warpsim::sim         the warp model (sim/)
#     warpsim::stats       the statistical tests (stats/)
#     warpsim::oracle      the seeds' algorithms on the model (header-only)
#     warpsim::properties  the registry, generators and properties (RapidCheck)
#     warpsim::sum_tree_plan  the sum-tree draw's plan (host code: gpu/sum_tree_plan.hpp)
#     warpsim::gpu         the CUDA kernels (where warpsim was built with CUDA)
#     warpsim::plugin      the plugin ABI (warpsim/plugin.h) and rng/'s Philox mapping
#   and bin/warpsim. Headers go to include/warpsim/ (sim/, stats/, ...; users
#   include "sim/warp.hpp" as inside the tree, and <warpsim/plugin.h>).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(warpsim_plugin INTERFACE)
add_library(warpsim::plugin ALIAS warpsim_plugin)
target_include_directories(warpsim_plugin INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
  $<INSTALL_INTERFACE:include> $<INSTALL_INTERFACE:include/warpsim>)
target_link_libraries(warpsim_plugin INTERFACE $<BUILD_INTERFACE:warpsim_random123> $<INSTALL_INTERFACE:warpsim::Random123>)

set(_targets warpsim_sim warpsim_stats warpsim_oracle warpsim_value_samplers warpsim_properties warpsim_plugin warpsim_sum_tree_plan)
if(WARPSIM_HAVE_CUDA)
  list(APPEND _targets warpsim_gpu)
endif()
foreach(t IN LISTS _targets)
  string(REPLACE "warpsim_" "" _name ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${_name})
endforeach()

install(TARGETS ${_targets} EXPORT warpsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/warpsim)
install(TARGETS warpsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir sim sim/insn stats oracle oracle/alias oracle/rejection oracle/token properties properties/detail rng gpu gpu/detail)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${dir})
    file(GLOB _headers ${PROJECT_SOURCE_DIR}/${dir}/*.hpp ${PROJECT_SOURCE_DIR}/${dir}/*.cuh)
    install(FILES ${_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/warpsim/${dir})
  endif()
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/include/warpsim/plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/warpsim)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/plugin DESTINATION ${CMAKE_INSTALL_DATADIR}/warpsim/examples)

install(EXPORT warpsimTargets NAMESPACE warpsim:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpsim)
set(WARPSIM_PACKAGE_HAS_CUDA ${WARPSIM_HAVE_CUDA})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/warpsimConfig.cmake.in ${PROJECT_BINARY_DIR}/warpsimConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpsim)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/warpsimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/warpsimConfig.cmake ${PROJECT_BINARY_DIR}/warpsimConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warpsim)
