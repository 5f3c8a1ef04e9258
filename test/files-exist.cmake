# Run an example and require its output files:
#   cmake -DPROGRAM=... -DARGS="a;b" -DOUT=dir -DFILES="x.csv;y.png" -P files-exist.cmake
# Its stdout is printed, for PASS_REGULAR_EXPRESSION.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PROGRAM} ${ARGS} --results=${OUT}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "exit status ${status}: ${err}")
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
