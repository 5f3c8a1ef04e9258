# Run an example twice into two folders and require byte-identical results:
#   cmake -DPROGRAM=... -DARGS="a;b" -DOUT=dir -DFILES="x.csv;y.json" -P same-files.cmake
foreach(run a b)
  file(REMOVE_RECURSE ${OUT}/${run})
  execute_process(COMMAND ${PROGRAM} ${ARGS} --results=${OUT}/${run}
    RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "run ${run} failed (${status}): ${err}")
  endif()
endforeach()
foreach(f ${FILES})
  file(SHA256 ${OUT}/a/${f} ha)
  file(SHA256 ${OUT}/b/${f} hb)
  if(NOT ha STREQUAL hb)
    message(FATAL_ERROR "${f} differs between two runs of the same config and seed")
  endif()
  message(STATUS "${f}: identical (${ha})")
endforeach()
