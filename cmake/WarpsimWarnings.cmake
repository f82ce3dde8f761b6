# Warnings and sanitizers for warpsim's own host targets (never for imported ones).
add_library(warpsim_host_flags INTERFACE)
target_compile_options(warpsim_host_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
if(WARPSIM_SANITIZE)
  target_compile_options(warpsim_host_flags INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer>)
  target_link_options(warpsim_host_flags INTERFACE -fsanitize=address,undefined)
endif()
if(WARPSIM_FUZZ)
  target_compile_options(warpsim_host_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
endif()
