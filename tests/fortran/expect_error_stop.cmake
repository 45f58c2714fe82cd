# Runs PROGRAM, which must fail (nonzero exit status) after printing EXPECTED on stderr.
#   cmake -DPROGRAM=<program> -DEXPECTED=<text> -P expect_error_stop.cmake
execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} succeeded; it should have stopped with an error\n${out}${err}")
endif()
string(FIND "${err}" "${EXPECTED}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${PROGRAM} stopped (${status}) without printing \"${EXPECTED}\":\n${out}${err}")
endif()
message(STATUS "stopped with status ${status} and the message: ${err}")
