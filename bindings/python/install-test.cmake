# CTest "python-install": cmake --install the build into a fresh prefix and
# import dlnet from it alone (PYTHONPATH = the prefix's dist-packages, run
# from an empty folder so that neither the build nor the sources are seen).
#
#   cmake -DPYTHON=/usr/bin/python3 -DBUILD=build -DPREFIX=/tmp/p \
#         -DPACKAGE_DIR=lib/python3/dist-packages/dlnet -P install-test.cmake
foreach(var PYTHON BUILD PREFIX PACKAGE_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "install-test.cmake: -D${var}=... is missing")
  endif()
endforeach()

file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${PREFIX}"
  OUTPUT_QUIET RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${status})")
endif()
foreach(file _core.cpython __init__.py __init__.pyi experiments.py py.typed)
  file(GLOB found "${PREFIX}/${PACKAGE_DIR}/${file}*")
  if(NOT found)
    message(FATAL_ERROR "not installed: ${PREFIX}/${PACKAGE_DIR}/${file}")
  endif()
endforeach()

get_filename_component(site "${PREFIX}/${PACKAGE_DIR}" DIRECTORY)
file(MAKE_DIRECTORY "${PREFIX}/empty")
# The imported package and the library its core loaded must both be the
# installed ones (not the build's, by a stale RPATH).
set(script "import dlnet, inspect, os
p = os.path.realpath(dlnet.__file__)
assert p.startswith(os.path.realpath('${PREFIX}')), p
libs = [l.split()[-1] for l in open('/proc/self/maps') if 'libns3-dlnet.so' in l]
assert libs and all(os.path.realpath(l).startswith(os.path.realpath('${PREFIX}/lib')) for l in libs), libs
assert 'min_bytes' in inspect.signature(dlnet.run_collective).parameters
out = dlnet.run_traffic(topology='star', hosts=2, pattern='point-to-point', message_bytes=4096)
assert out['result']['all_delivered'] is True
print('dlnet', dlnet.__version__, 'imported from', os.path.dirname(p))")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${site}" PYTHONDONTWRITEBYTECODE=1
    "${PYTHON}" -c "${script}"
  WORKING_DIRECTORY "${PREFIX}/empty"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "import dlnet from ${site} failed (${status})")
endif()
file(REMOVE_RECURSE "${PREFIX}")
