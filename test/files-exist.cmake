# Run an example and require its exit status 0 and its output files:
#   cmake -DPROGRAM=... -DARGS="a;b" -DOUT=dir -DFILES="x.csv;y.png" -P files-exist.cmake
# -DSTDOUT=regex: also fail when stdout does not match it
# (Not CTest's PASS_REGULAR_EXPRESSION, which would ignore this script's failures.)
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PROGRAM} ${ARGS} --results=${OUT}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "exit status ${status}: ${err}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "stdout does not match '${STDOUT}'")
endif()
foreach(f ${FILES})
  if(NOT EXISTS ${OUT}/${f})
    message(FATAL_ERROR "${f} was not written in ${OUT}")
  endif()
  file(SIZE ${OUT}/${f} size)
  if(size EQUAL 0)
    message(FATAL_ERROR "${f} is empty")
  endif()
endforeach()
message(STATUS "all of ${FILES} written")
