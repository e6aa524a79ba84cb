# The trace backends, read from core/backends.def (the list C++ reads as an X-macro) into
# PTBENCH_TRACE_BACKENDS: name:DEFINE:stage for each line, in its order. core/ compiles each
# backend's descriptor, core/trace/<name>.cpp; shaders/ compiles each tracing kernel once per
# backend and generates the #if chain that includes its shaders/trace/trace_<name>.glsl.
# Editing the list reconfigures.
function(ptbench_read_trace_backends)
  set(def ${PROJECT_SOURCE_DIR}/core/backends.def)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${def})
  set(backends)
  file(STRINGS ${def} lines)
  foreach(line IN LISTS lines)
    # Every line C++ would read is one CMake reads too, or an error: the two never disagree.
    if(line MATCHES "^[ \t]*(//.*)?$" OR line STREQUAL "#undef PTBENCH_TRACE_BACKEND")
      continue()
    endif()
    if(NOT line MATCHES "^PTBENCH_TRACE_BACKEND\\(([A-Za-z0-9]+), ([a-z0-9]+), ([A-Z0-9_]+), (comp|rgen)\\)$")
      message(FATAL_ERROR "core/backends.def: \"${line}\" is not a line "
                          "PTBENCH_TRACE_BACKEND(Enumerator, name, DEFINE, comp or rgen)")
    endif()
    set(name ${CMAKE_MATCH_2})
    list(APPEND backends ${name}:${CMAKE_MATCH_3}:${CMAKE_MATCH_4})
    foreach(needed core/trace/${name}.cpp shaders/trace/trace_${name}.glsl)
      if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${needed})
        message(FATAL_ERROR "core/backends.def lists the backend ${name}, which has no ${needed}")
      endif()
    endforeach()
  endforeach()
  set(PTBENCH_TRACE_BACKENDS ${backends} PARENT_SCOPE)
endfunction()

ptbench_read_trace_backends()
