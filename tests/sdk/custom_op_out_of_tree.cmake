# The SDK end to end, as a third party would use it:
#   1. install this build of tgraph into a fresh prefix, and check that the install ships
#      its docs (share/doc/tgraph: the SDK's README.md, ARCHITECTURE.md) and the custom-op
#      example's sources (share/tgraph/examples/custom_op), identical to the source tree's;
#   2. configure and build that installed copy of the example out of tree against the prefix
#      only (find_package(tgraph)), with clang/clang++ (the core is built with g++);
#   3. check the plugin exports only TG_PluginInit and does not link libtgraph;
#   4. run the example's C client against the installed libtgraph: once loading the plugin
#      through TGRAPH_PLUGIN_PATH (discovery), once through TG_LoadPlugin; it builds a graph
#      with the op (the plugin's shape function runs);
#   5. run RUNNER (linked to the core) on the installed plugin: it executes the op's kernel
#      through KernelRunner and checks the numbers (sessions arrive with the next release).
#
# cmake -DBUILD_DIR=<tgraph build> -DSOURCE_DIR=<tgraph source> -DWORK_DIR=<scratch>
#       -DRUNNER=<custom_op_runner> [-DGENERATOR=Ninja] [-DRUN_ENV=<VAR=value;...>]
#       -P custom_op_out_of_tree.cmake
cmake_minimum_required(VERSION 3.20)
foreach(_var BUILD_DIR SOURCE_DIR WORK_DIR RUNNER)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "${_var} is required")
  endif()
endforeach()

find_program(CLANG clang)
find_program(CLANGXX clang++)
if(NOT CLANG OR NOT CLANGXX)
  message(FATAL_ERROR "clang/clang++ not found: the out-of-tree build must use another compiler")
endif()

function(run)
  cmake_parse_arguments(ARG "" "WHAT" "COMMAND" ${ARGN})
  execute_process(COMMAND ${ARG_COMMAND} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${ARG_WHAT} failed (${_rc}):\n${_out}\n${_err}")
  endif()
  message(STATUS "${ARG_WHAT}: ok\n${_out}")
endfunction()

set(_prefix "${WORK_DIR}/prefix")
set(_example_build "${WORK_DIR}/custom_op_build")
file(REMOVE_RECURSE "${_prefix}" "${_example_build}")

# 1. install
run(WHAT "install tgraph into ${_prefix}"
    COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${_prefix}")

# 1b. the docs and the example's sources came with it, as they are in the source tree
set(_installed_example "${_prefix}/share/tgraph/examples/custom_op")
set(_shipped
  "${SOURCE_DIR}/sdk/README.md" "${_prefix}/share/doc/tgraph/README.md"
  "${SOURCE_DIR}/docs/ARCHITECTURE.md" "${_prefix}/share/doc/tgraph/ARCHITECTURE.md")
set(_example_dir "${SOURCE_DIR}/sdk/examples/custom_op")
# The patterns sdk/CMakeLists.txt installs (a build directory inside the example is not).
file(GLOB _example_sources LIST_DIRECTORIES false RELATIVE "${_example_dir}"
  "${_example_dir}/CMakeLists.txt" "${_example_dir}/*.md" "${_example_dir}/*.c"
  "${_example_dir}/*.cc" "${_example_dir}/*.h")
if(NOT _example_sources)
  message(FATAL_ERROR "no example sources found in ${_example_dir}")
endif()
foreach(_name IN LISTS _example_sources)
  list(APPEND _shipped "${_example_dir}/${_name}" "${_installed_example}/${_name}")
endforeach()
while(_shipped)
  list(POP_FRONT _shipped _source _installed)
  if(NOT EXISTS "${_installed}")
    message(FATAL_ERROR "the install lacks ${_installed} (from ${_source})")
  endif()
  run(WHAT "installed ${_installed} matches the source tree"
      COMMAND ${CMAKE_COMMAND} -E compare_files "${_source}" "${_installed}")
endwhile()

# 2. configure + build the installed example with clang, against the prefix only
set(_gen_args "")
if(GENERATOR)
  set(_gen_args -G "${GENERATOR}")
endif()
run(WHAT "configure the installed examples/custom_op with clang"
    COMMAND ${CMAKE_COMMAND} -S "${_installed_example}" -B "${_example_build}"
            ${_gen_args}
            -DCMAKE_C_COMPILER=${CLANG} -DCMAKE_CXX_COMPILER=${CLANGXX}
            -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_PREFIX_PATH=${_prefix}
            -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
            -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
file(STRINGS "${_example_build}/CMakeCache.txt" _tgraph_dir REGEX "^tgraph_DIR:")
if(NOT _tgraph_dir MATCHES "${_prefix}")
  message(FATAL_ERROR "find_package(tgraph) did not find the temporary install: ${_tgraph_dir}")
endif()
run(WHAT "build the example" COMMAND ${CMAKE_COMMAND} --build "${_example_build}")
file(STRINGS "${_example_build}/CMakeCache.txt" _compiler_id REGEX "^CMAKE_CXX_COMPILER:")
message(STATUS "example compiler: ${_compiler_id}")

set(_plugin "${_example_build}/libtgraph_bias_gelu.so")
set(_client "${_example_build}/bias_gelu_client")
if(NOT EXISTS "${_plugin}" OR NOT EXISTS "${_client}")
  message(FATAL_ERROR "the example did not produce ${_plugin} and ${_client}")
endif()

# 3. exports
run(WHAT "plugin exports only TG_PluginInit"
    COMMAND ${CMAKE_COMMAND} -DPLUGIN=${_plugin} -P "${SOURCE_DIR}/tests/abi/check_plugin.cmake")

# 4. the C client: discovery, then explicit load
run(WHAT "client, plugin found through TGRAPH_PLUGIN_PATH"
    COMMAND ${CMAKE_COMMAND} -E env ${RUN_ENV} "TGRAPH_PLUGIN_PATH=${_example_build}"
            "${_client}" --search)
run(WHAT "client, plugin loaded with TG_LoadPlugin"
    COMMAND ${CMAKE_COMMAND} -E env ${RUN_ENV} --unset=TGRAPH_PLUGIN_PATH
            "${_client}" --load "${_plugin}")

# 5. the kernel runs
run(WHAT "BiasGelu kernel through KernelRunner" COMMAND "${RUNNER}" "${_plugin}")
