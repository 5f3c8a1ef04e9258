# Run a program and check its exit status and error text:
#   cmake -DPROGRAM=... -DARGS="a;b" -DSTATUS=2 -DPATTERN=regex -P expect-exit.cmake
# -DSTDOUT=regex: also fail when stdout does not match it
# -DSTDOUT_NOT=regex: also fail when stdout matches it (e.g. a run that should not have started)
# -DOUTPUT_NOT=regex: also fail when stdout or stderr matches it (e.g. "WRONG", "error:")
# -DULIMIT_V=kib: run the program under that address-space limit (ulimit -v)
# -DABSENT=path: removed before the run; fail when the run left it there (a refused run
# touches no file)
# CTest's PASS_REGULAR_EXPRESSION ignores the exit status; a test that needs both runs here
# (dlnet_expect_output in cmake/dlnet-testing.cmake).
if(DEFINED ABSENT)
  file(REMOVE_RECURSE ${ABSENT})
endif()
set(command ${PROGRAM} ${ARGS})
if(DEFINED ULIMIT_V)
  set(command /bin/sh -c "ulimit -v ${ULIMIT_V} && exec \"$0\" \"$@\"" ${command})
endif()
execute_process(COMMAND ${command}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status STREQUAL "${STATUS}")
  message(FATAL_ERROR "exit status ${status}, expected ${STATUS}\nstdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED PATTERN AND NOT err MATCHES "${PATTERN}")
  message(FATAL_ERROR "stderr does not match '${PATTERN}':\n${err}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "stdout does not match '${STDOUT}':\n${out}")
endif()
if(DEFINED STDOUT_NOT AND out MATCHES "${STDOUT_NOT}")
  message(FATAL_ERROR "stdout matches '${STDOUT_NOT}':\n${out}")
endif()
if(DEFINED OUTPUT_NOT AND "${out}${err}" MATCHES "${OUTPUT_NOT}")
  message(FATAL_ERROR "the output matches '${OUTPUT_NOT}':\nstdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED ABSENT AND EXISTS ${ABSENT})
  message(FATAL_ERROR "the refused run left ${ABSENT}")
endif()
message(STATUS "exit ${status}\nstdout: ${out}\nstderr: ${err}")
