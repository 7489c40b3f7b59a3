# Fails unless PLUGIN (a tgraph plugin) defines exactly one dynamic symbol, TG_PluginInit,
# and has no NEEDED entry for libtgraph (plugins reach the core only through the table).
# Usage: cmake -DPLUGIN=path -P check_plugin.cmake
find_program(NM nm REQUIRED)
find_program(READELF readelf REQUIRED)
execute_process(COMMAND ${NM} -D --defined-only "${PLUGIN}"
  OUTPUT_VARIABLE _out RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${PLUGIN}")
endif()
string(REPLACE "\n" ";" _lines "${_out}")
set(_symbols "")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^[0-9a-fA-F]+ ([A-Za-z]) (.+)$")
    # The version node of the export map is listed as an absolute symbol.
    if(CMAKE_MATCH_1 STREQUAL "A")
      continue()
    endif()
    # Drop the version suffix ("TG_PluginInit@@TGRAPH_PLUGIN").
    string(REGEX REPLACE "@.*$" "" _sym "${CMAKE_MATCH_2}")
    list(APPEND _symbols "${_sym}")
  endif()
endforeach()
if(NOT _symbols STREQUAL "TG_PluginInit")
  message(FATAL_ERROR "${PLUGIN} must export exactly TG_PluginInit, but exports: ${_symbols}")
endif()

execute_process(COMMAND ${READELF} -d "${PLUGIN}"
  OUTPUT_VARIABLE _dyn RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${PLUGIN}")
endif()
string(REPLACE "\n" ";" _dyn_lines "${_dyn}")
set(_needed "")
foreach(_line IN LISTS _dyn_lines)
  if(_line MATCHES "\\(NEEDED\\).*\\[(.+)\\]")
    list(APPEND _needed "${CMAKE_MATCH_1}")
    if(CMAKE_MATCH_1 MATCHES "^libtgraph\\.so")
      message(FATAL_ERROR "${PLUGIN} links libtgraph (NEEDED ${CMAKE_MATCH_1}); plugins must not")
    endif()
  endif()
endforeach()
message(STATUS "${PLUGIN}: exports only TG_PluginInit; NEEDED: ${_needed}")
