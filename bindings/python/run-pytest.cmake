# Run pytest over the test folders that exist (CTest test "pytest").
#
#   cmake -DPYTHON=/usr/bin/python3 -DTEST_DIRS=dir1|dir2 -P run-pytest.cmake
#
# Folders that do not exist (test/python before anybody writes a Python test
# there) are left out; at least one must remain. Any non-zero pytest status
# fails the test, 5 (no tests collected) included: we always have tests; so does
# a skipped test.
if(NOT PYTHON OR NOT TEST_DIRS)
  message(FATAL_ERROR "usage: cmake -DPYTHON=... -DTEST_DIRS=dir1|dir2 -P run-pytest.cmake")
endif()

string(REPLACE "|" ";" dirs "${TEST_DIRS}")
set(existing "")
foreach(dir IN LISTS dirs)
  if(IS_DIRECTORY "${dir}")
    list(APPEND existing "${dir}")
  else()
    message(STATUS "pytest: skipping ${dir} (no such folder)")
  endif()
endforeach()
if(NOT existing)
  message(FATAL_ERROR "pytest: none of the test folders exist: ${TEST_DIRS}")
endif()

# -p no:cacheprovider: do not write .pytest_cache into the source tree.
# -rs: name each skipped test and why. A skip fails the run: ./dlnet installs every
# package a test imports (a test skipped for a missing package checked nothing, yet pytest
# exits 0).
execute_process(
  COMMAND "${PYTHON}" -m pytest -q -rs -p no:cacheprovider ${existing}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(status EQUAL 5)
  message(FATAL_ERROR "pytest collected no tests in: ${existing}")
elseif(NOT status EQUAL 0)
  message(FATAL_ERROR "pytest failed (status ${status})")
elseif(out MATCHES "[0-9]+ skipped")
  message(FATAL_ERROR "pytest skipped tests (above: SKIPPED and why); install what they need")
endif()
