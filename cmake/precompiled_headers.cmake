# Precompiled headers for the Qt targets (-DSTALLSCOPE_PRECOMPILED_HEADERS=ON; scripts/build-and-test.sh
# turns it on). Parsing Qt's and the standard library's headers is about a third of each Qt
# translation unit's compile time, and CI compiles every one of them twice (release and ASan) on two
# cores. Off by default because ccache cannot cache compiles that use a precompiled header unless its
# sloppiness is loosened, and developers here build through ccache.
#
# How: one header set per Qt level (Core, or Core + Gui + Widgets), compiled once per level as
# position-independent library code, and reused by every target of that level. Executables compile
# with -fPIC too (GCC refuses a header precompiled with -fPIC in a -fPIE unit; they still link as
# PIE): two headers to precompile a build instead of four. A target whose flags do not
# match a producer's (another -std, other defines that the headers look at) falls back to reading
# the headers, which is only slower: -Winvalid-pch says so in the build log.

set(STALLSCOPE_PCH_STANDARD_HEADERS <algorithm> <atomic> <cstdint> <functional> <map> <memory>
  <optional> <string> <string_view> <unordered_map> <utility> <vector>)
set(STALLSCOPE_PCH_CORE_HEADERS ${STALLSCOPE_PCH_STANDARD_HEADERS} <QtCore/QtCore>)
set(STALLSCOPE_PCH_WIDGETS_HEADERS ${STALLSCOPE_PCH_CORE_HEADERS} <QtGui/QtGui>
  <QtWidgets/QtWidgets>)

# The highest Qt level in `target`'s compile-time usage requirements: widgets, core (QtCore, or QtGui
# without widgets: the QtCore header set suits it) or none; `python` for a target that embeds Python
# (Python.h must come before Qt's `slots` keyword, so a precompiled Qt cannot go first). Its own
# link libraries count whatever their scope; a dependency's count only when they are part of its
# interface (a static library's private dependencies appear there as $<LINK_ONLY:…>).
function(stallscope_qt_level target out_var)
  set(level none)
  get_target_property(pending ${target} LINK_LIBRARIES)
  set(seen "")
  while(pending)
    list(POP_FRONT pending item)
    if(NOT item OR item MATCHES "^\\$<LINK_ONLY:" OR item IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${item})
    if(item MATCHES "^Python3::")
      set(level python)
      break()
    elseif(item MATCHES "^Qt6::(Widgets|PrintSupport)$")
      set(level widgets)
    elseif(item MATCHES "^Qt6::" AND level STREQUAL "none")
      set(level core)
    elseif(TARGET ${item})
      get_target_property(imported ${item} IMPORTED)
      if(NOT imported)
        get_target_property(interface ${item} INTERFACE_LINK_LIBRARIES)
        if(interface)
          list(APPEND pending ${interface})
        endif()
      endif()
    endif()
  endwhile()
  set(${out_var} ${level} PARENT_SCOPE)
endfunction()

# Every C++ target below `dir`, recursively.
function(stallscope_targets_below dir out_var)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    stallscope_targets_below(${subdir} below)
    list(APPEND targets ${below})
  endforeach()
  set(${out_var} ${targets} PARENT_SCOPE)
endfunction()

# Called once, after every folder has been added.
function(stallscope_apply_precompiled_headers)
  if(NOT STALLSCOPE_PRECOMPILED_HEADERS)
    return()
  endif()
  stallscope_targets_below(${PROJECT_SOURCE_DIR} targets)
  set(pch_dir ${PROJECT_BINARY_DIR}/precompiled_headers)
  foreach(level core widgets)
    string(TOUPPER ${level} upper)
    set(qt_target Qt6::Core)
    if(level STREQUAL "widgets")
      set(qt_target Qt6::Widgets)
    endif()
    file(WRITE ${pch_dir}/${level}.cpp "// compiles the ${level} precompiled header\n")
    add_library(stallscope_pch_${level} OBJECT ${pch_dir}/${level}.cpp)
    set_target_properties(stallscope_pch_${level} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_link_libraries(stallscope_pch_${level} PRIVATE ${qt_target})
    target_precompile_headers(stallscope_pch_${level} PRIVATE ${STALLSCOPE_PCH_${upper}_HEADERS})
  endforeach()
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    if(NOT sources MATCHES "\\.(cpp|cc)(;|$)" OR sources MATCHES "\\.cu(;|$)")
      continue()
    endif()
    stallscope_qt_level(${target} level)
    if(level MATCHES "^(none|python)$")
      continue()
    endif()
    if(type STREQUAL "EXECUTABLE")
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fPIC>)
    endif()
    target_precompile_headers(${target} REUSE_FROM stallscope_pch_${level})
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Winvalid-pch>)
  endforeach()
endfunction()
