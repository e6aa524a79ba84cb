# Writes OUT from IN (core/version.cpp.in) with the source tree's git revision and whether its
# tracked files differ from it, read when the build runs (cmake -P, every build), so that a
# binary built from edited files says so. configure_file leaves OUT untouched when nothing
# changed, and nothing is recompiled then.
#   cmake -DSOURCE_DIR=... -DIN=... -DOUT=... -DPROJECT_VERSION=... -DCMAKE_BUILD_TYPE=... -P GitRevision.cmake
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE PTBENCH_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE git_status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT PTBENCH_GIT_REVISION)
  set(PTBENCH_GIT_REVISION "unknown")
endif()
if(git_status)
  set(PTBENCH_GIT_DIRTY true)
else()
  set(PTBENCH_GIT_DIRTY false)
endif()
configure_file(${IN} ${OUT} @ONLY)
