# Runs CMD with ARGS and fails unless it exits with EXPECT_RC and prints a message on stderr.
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "expected exit code ${EXPECT_RC}, got ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
if(err STREQUAL "" AND NOT EXPECT_STDERR STREQUAL "NO")
  message(FATAL_ERROR "expected an error message on stderr, got none")
endif()
message(STATUS "exit ${rc}: ${err}")
