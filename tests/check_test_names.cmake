# cmake -DBIN=<gtest binary> -DNAMES="Suite.Test;..." -P tests/check_test_names.cmake
# Fails naming every listed test the binary does not have. ctest silently ignores set_tests_properties on an
# unknown test name, so a test renamed in the C++ without its name in tests/CMakeLists.txt would quietly lose
# its fixture; this check (the ctest entry nmt_smoke_names) makes that rename fail instead.
set(missing "")
foreach(name IN LISTS NAMES)
  execute_process(COMMAND ${BIN} --gtest_list_tests --gtest_filter=${name} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  string(REPLACE "." ";" parts "${name}")
  list(GET parts 1 test)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\n  ${test}\n")
    list(APPEND missing ${name})
  endif()
endforeach()
if(missing)
  list(JOIN missing ", " missing)
  message(FATAL_ERROR "${BIN} has no test named ${missing}: update the names in tests/CMakeLists.txt")
endif()
list(LENGTH NAMES n)
message(STATUS "all ${n} tests named in tests/CMakeLists.txt exist in ${BIN}")
