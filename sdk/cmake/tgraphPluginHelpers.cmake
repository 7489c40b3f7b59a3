# tgraph_add_plugin(<name> <sources>...): a tgraph plugin built against the installed SDK.
#
# The result is a MODULE library (lib<name>.so) linked to tgraph::plugin_sdk only. Its one
# exported symbol is TG_PluginInit: everything else is hidden (so two plugins that bundle
# different versions of the same library never clash), and undefined symbols are link
# errors (a plugin must not expect libtgraph's symbols: it gets the core through the
# TG_CoreApi table). Install it into TGRAPH_PLUGIN_INSTALL_DIR, or point
# TGRAPH_PLUGIN_PATH at it, or load it with TG_LoadPlugin.
function(tgraph_add_plugin name)
  set(_TGRAPH_PLUGIN_MAP "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tgraph_plugin.map")
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE tgraph::plugin_sdk)
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_SYSTEM_NAME MATCHES "Linux|BSD")
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS "${_TGRAPH_PLUGIN_MAP}")
    target_link_options(${name} PRIVATE
      "LINKER:--version-script=${_TGRAPH_PLUGIN_MAP}"
      "LINKER:--exclude-libs,ALL"
      "LINKER:--no-undefined")
  endif()
endfunction()
