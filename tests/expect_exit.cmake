# Runs CMD with ARGS and fails unless it exits with EXPECT_RC and prints a
# message on stderr (unless EXPECT_STDERR is NO); with EXPECT_MATCH, stdout
# and stderr together must match that regular expression.
if(NOT WORKDIR)
  set(WORKDIR .)
endif()
execute_process(COMMAND ${CMD} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "expected exit code ${EXPECT_RC}, got ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
if(err STREQUAL "" AND NOT EXPECT_STDERR STREQUAL "NO")
  message(FATAL_ERROR "expected an error message on stderr, got none")
endif()
if(DEFINED EXPECT_MATCH AND NOT "${out}${err}" MATCHES "${EXPECT_MATCH}")
  message(FATAL_ERROR "the output does not match '${EXPECT_MATCH}'\nstdout: ${out}\nstderr: ${err}")
endif()
message(STATUS "exit ${rc}: ${err}")
