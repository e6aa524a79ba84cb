# One CTest test per GoogleTest suite of a binary, named `Suite.*`, which runs the suite's tests
# in one process: the GPU tests share their Vulkan context within a process (tests/gpu_test.h),
# so that a pipeline a suite's tests have in common is compiled once. Each suite writes
# GoogleTest's XML report to RESULTS_DIR/Suite.xml (a parameterised suite `P/Suite` to
# P_Suite.xml), from which scripts/count_tests.py counts the tests, not the processes.
#
#   ptbench_gtest_suites(TARGET RESULTS_DIR DIR [PROPERTIES name value...])
#
# As gtest_discover_tests does, the list is taken from the built binary after each build, and
# CTest reads it through the directory's TEST_INCLUDE_FILES. Each suite's COST is its test count,
# so that CTest starts the largest first.
function(ptbench_gtest_suites target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "RESULTS_DIR" "PROPERTIES")
  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -D "TEST_EXECUTABLE=$<TARGET_FILE:${target}>" -D "LIST_FILE=${list_file}"
            -D "RESULTS_DIR=${arg_RESULTS_DIR}" -D "TEST_PROPERTIES=${arg_PROPERTIES}"
            -P "${PROJECT_SOURCE_DIR}/cmake/GTestSuites.cmake"
    BYPRODUCTS "${list_file}"
    VERBATIM)
  # A build of other targets only (the sanitizer build's) has no list: CTest then names the
  # binary to build, in a test of no label, as gtest_discover_tests does.
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake")
  file(WRITE "${include_file}"
    "if(EXISTS [==[${list_file}]==])\n"
    "  include([==[${list_file}]==])\n"
    "else()\n"
    "  add_test([==[${target}_NOT_BUILT]==] [==[${target}_NOT_BUILT]==])\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE status
                  TIMEOUT 60)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests exited ${status}:\n${listing}")
  endif()
  string(REPLACE ";" "\\;" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(suites "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ #][^ ]*)\\.")  # a suite's line; its tests' lines are indented
      set(suite "${CMAKE_MATCH_1}")
      list(APPEND suites "${suite}")
      set(count_${suite} 0)
    elseif(line MATCHES "^  [^ ]" AND DEFINED suite)
      math(EXPR count_${suite} "${count_${suite}} + 1")
    endif()
  endforeach()
  set(script "")
  foreach(suite IN LISTS suites)
    string(REPLACE "/" "_" report "${suite}")
    string(APPEND script
      "add_test([==[${suite}.*]==] [==[${TEST_EXECUTABLE}]==] [==[--gtest_filter=${suite}.*]==] "
      "[==[--gtest_output=xml:${RESULTS_DIR}/${report}.xml]==])\n"
      "set_tests_properties([==[${suite}.*]==] PROPERTIES COST ${count_${suite}}")
    foreach(property IN LISTS TEST_PROPERTIES)
      string(APPEND script " [==[${property}]==]")
    endforeach()
    string(APPEND script ")\n")
  endforeach()
  file(WRITE "${LIST_FILE}" "${script}")
endif()
