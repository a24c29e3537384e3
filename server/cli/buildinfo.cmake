# Writes OUT, the definition of engram::cli::buildCommit(), from the git
# checkout at SOURCE (or "unknown" outside one); the file is replaced only
# when its content changes.
# cmake -DSOURCE=<dir> -DOUT=<file> -P buildinfo.cmake
set(commit unknown)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE}" rev-parse --short=12 HEAD
    OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND head)
    set(commit "${head}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE}" diff --quiet HEAD --
      RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "// Written by server/cli/buildinfo.cmake at build time.
#include \"cli/BuildInfo.h\"

const char* engram::cli::buildCommit() {
    return \"${commit}\";
}
")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
