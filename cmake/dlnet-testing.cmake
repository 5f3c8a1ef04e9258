# dlnet_expect_output(NAME name [STDOUT regex] [OUTPUT_NOT regex] [STATUS n] [PATTERN regex]
#                     [ULIMIT_V kib] [TIMEOUT s] COMMAND program args...)
#
# A test that runs a program and requires its exit status (0 unless STATUS says otherwise)
# and, with STDOUT, a match of its stdout; OUTPUT_NOT fails it when stdout or stderr match,
# PATTERN when stderr does not. CTest's PASS_REGULAR_EXPRESSION would ignore the exit status,
# so these checks run in test/expect-exit.cmake.
function(dlnet_expect_output)
  cmake_parse_arguments(PARSE_ARGV 0 T "" "NAME;STDOUT;OUTPUT_NOT;STATUS;PATTERN;ULIMIT_V;TIMEOUT"
    "COMMAND")
  if(NOT T_NAME OR NOT T_COMMAND)
    message(FATAL_ERROR "dlnet_expect_output: NAME and COMMAND are required")
  endif()
  list(POP_FRONT T_COMMAND program)
  if(NOT DEFINED T_STATUS)
    set(T_STATUS 0)
  endif()
  set(options "")
  foreach(key STDOUT OUTPUT_NOT PATTERN ULIMIT_V)
    if(DEFINED T_${key})
      list(APPEND options "-D${key}=${T_${key}}")
    endif()
  endforeach()
  add_test(NAME ${T_NAME}
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=${program} "-DARGS=${T_COMMAND}" -DSTATUS=${T_STATUS}
            ${options} -P ${PROJECT_SOURCE_DIR}/test/expect-exit.cmake)
  if(T_TIMEOUT)
    set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
endfunction()
