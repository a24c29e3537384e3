# Writes what is generated from the command table (cli/Generate.h) by
# running the engram just built: the man page and the shell completions.
# cmake -DENGRAM=<binary> -DOUT=<dir> -P generate.cmake
foreach(var ENGRAM OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "generate.cmake: -D${var}= is required")
  endif()
endforeach()
# Each entry: the file, then the words of the command that prints it.
set(outputs
  "man/man1/engram.1 man"
  "bash-completion/completions/engram completions bash"
  "zsh/vendor-completions/_engram completions zsh"
  "fish/vendor_completions.d/engram.fish completions fish")
foreach(entry ${outputs})
  separate_arguments(parts UNIX_COMMAND "${entry}")
  list(GET parts 0 file)
  list(SUBLIST parts 1 -1 args)
  get_filename_component(dir "${OUT}/${file}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${ENGRAM}" ${args}
    OUTPUT_FILE "${OUT}/${file}.new" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "engram ${args} failed (${rc})")
  endif()
  # Replaced only when it changed, so installing again copies nothing new.
  execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different
    "${OUT}/${file}.new" "${OUT}/${file}")
  file(REMOVE "${OUT}/${file}.new")
endforeach()
