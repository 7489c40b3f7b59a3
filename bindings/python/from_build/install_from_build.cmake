# Install step of the wheel from a build tree (CMakeLists.txt beside this file): runs at
# install time with CMAKE_INSTALL_PREFIX = the wheel's tgraph/_lib and the TGRAPH_* paths set
# by CMakeLists.txt.

# The build tree's install rules, into a staging prefix: the plugin list and the library's
# name are the project's, not repeated here.
file(REMOVE_RECURSE "${TGRAPH_STAGE_DIR}")
set(_strip "")
if(CMAKE_INSTALL_DO_STRIP)
  set(_strip --strip)
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" --install "${TGRAPH_BUILD_DIR}" --prefix "${TGRAPH_STAGE_DIR}" ${_strip}
  OUTPUT_QUIET RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "from_build: cmake --install ${TGRAPH_BUILD_DIR} failed (${_rc})")
endif()

set(_lib "${TGRAPH_STAGE_DIR}/${TGRAPH_LIBDIR}")
# libtgraph as one file named libtgraph.so (a wheel would store each versioned name's link
# as another copy): the binding loads it by path, and no plugin links it.
file(REAL_PATH "${_lib}/libtgraph.so" _libtgraph)
file(INSTALL "${_libtgraph}" DESTINATION "${CMAKE_INSTALL_PREFIX}/${TGRAPH_LIBDIR}"
     RENAME libtgraph.so)
# The plugins discovery loads in the build tree (<build>/plugins): a CPU wheel, as the wheel
# built from source is (TGRAPH_WITH_OPENCL/CUDA OFF in pyproject.toml). The GPU backends are
# installed by the project but built into plugins-opencl/ and plugins-cuda/, brought in on
# purpose (plugins/opencl/CMakeLists.txt says why).
file(GLOB _plugins RELATIVE "${_lib}/tgraph/plugins" "${_lib}/tgraph/plugins/*.so")
foreach(_plugin IN LISTS _plugins)
  if(EXISTS "${TGRAPH_BUILD_DIR}/plugins/${_plugin}")
    file(INSTALL "${_lib}/tgraph/plugins/${_plugin}"
         DESTINATION "${CMAKE_INSTALL_PREFIX}/${TGRAPH_LIBDIR}/tgraph/plugins")
  endif()
endforeach()

# The package: its sources, and the protobuf modules the build tree generated.
file(INSTALL "${TGRAPH_PACKAGE_SOURCE}/" DESTINATION "${TGRAPH_PACKAGE_DIR}"
     FILES_MATCHING PATTERN "*.py" PATTERN "py.typed")
file(INSTALL "${TGRAPH_BUILD_DIR}/python/tgraph/proto/" DESTINATION "${TGRAPH_PACKAGE_DIR}/proto"
     FILES_MATCHING PATTERN "*_pb2.py")
