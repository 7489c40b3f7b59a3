# The tests every device backend runs: the sources in this folder (with
# tests/plugins/device_test_util.h), built once per backend by tests/plugins/<backend>/
# CMakeLists.txt, which includes this file and calls
#
#   tgraph_device_tests(<backend> PLUGIN <plugin target> NAME <name in messages>
#                       [REQUIRE_DEVICE <why a device must be there>] [LACKS <kernel>...]
#                       [SOURCES <the backend's own tests>...])
#
# That makes <backend>_tests (every *_test.cc here but swap_test.cc, plus SOURCES; ctest
# names "<backend>.<Suite>.<Test>") and <backend>_swap_test (ctest
# "<backend>.swap_cpu_then_<backend>.<optimizer>", a process per optimizer: a loaded plugin
# stays loaded). LACKS names kernels the backend does not have (none today): their tests
# are compiled out (TGRAPH_DEVICE_LACKS_<kernel>). Without a device the tests skip, saying
# why; with REQUIRE_DEVICE they fail instead (OpenCL runs on PoCL in CI and must not skip).
#
# tgraph_device_test_executable(<name> <source>...) then builds one of the backend's own
# test executables (an environment or a load order of its own) with the same settings.
set(TGRAPH_DEVICE_TEST_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(tgraph_device_test_executable name)
  add_executable(${name} ${ARGN})
  target_include_directories(${name} PRIVATE "${TGRAPH_DEVICE_TEST_DIR}/..")
  target_link_libraries(${name} PRIVATE tgraph GTest::gtest_main tgraph_warnings)
  target_compile_definitions(${name} PRIVATE ${TGRAPH_DEVICE_TEST_DEFS})
  add_dependencies(${name} tgraph_cpu ${TGRAPH_DEVICE_TEST_PLUGIN})
endfunction()

macro(tgraph_device_tests backend)
  cmake_parse_arguments(_dt "" "PLUGIN;NAME;REQUIRE_DEVICE" "LACKS;SOURCES" ${ARGN})
  # Directory-scope (a macro): tgraph_device_test_executable uses them for the backend's
  # own executables too.
  set(TGRAPH_DEVICE_TEST_PLUGIN ${_dt_PLUGIN})
  set(TGRAPH_DEVICE_TEST_DEFS
    TGRAPH_CPU_PLUGIN_PATH="${TGRAPH_CPU_PLUGIN_FILE}"
    TGRAPH_DEVICE_PLUGIN_PATH="$<TARGET_FILE:${_dt_PLUGIN}>"
    TGRAPH_DEVICE_NAME="${_dt_NAME}")
  if(_dt_REQUIRE_DEVICE)
    list(APPEND TGRAPH_DEVICE_TEST_DEFS TGRAPH_DEVICE_REQUIRED="${_dt_REQUIRE_DEVICE}")
  endif()
  foreach(_kernel IN LISTS _dt_LACKS)
    list(APPEND TGRAPH_DEVICE_TEST_DEFS TGRAPH_DEVICE_LACKS_${_kernel})
  endforeach()

  file(GLOB _dt_shared CONFIGURE_DEPENDS "${TGRAPH_DEVICE_TEST_DIR}/*_test.cc")
  list(REMOVE_ITEM _dt_shared "${TGRAPH_DEVICE_TEST_DIR}/swap_test.cc")
  tgraph_device_test_executable(${backend}_tests ${_dt_shared} ${_dt_SOURCES})
  gtest_discover_tests(${backend}_tests TEST_PREFIX "${backend}." DISCOVERY_TIMEOUT 120
    PROPERTIES TIMEOUT 300)

  # Swapping backends at run time: the process starts with the CPU plugin only and loads the
  # device plugin half-way.
  tgraph_device_test_executable(${backend}_swap_test "${TGRAPH_DEVICE_TEST_DIR}/swap_test.cc")
  foreach(_optimizer GradientDescent Adam)
    add_test(NAME ${backend}.swap_cpu_then_${backend}.${_optimizer}
      COMMAND ${backend}_swap_test "--gtest_filter=*SwapTest*/${_optimizer}")
    set_tests_properties(${backend}.swap_cpu_then_${backend}.${_optimizer} PROPERTIES
      TIMEOUT 300 SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
  endforeach()
endmacro()
