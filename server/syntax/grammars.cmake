# The tree-sitter runtime and every grammar, each its own static library, built
# from the npm packages pinned in package-lock.json. Grammar C is generated
# code: it is compiled without our warning flags.
set(TS_ROOT "${ENGRAM_NODE_MODULES}/tree-sitter/vendor/tree-sitter/lib")
add_library(ts_runtime STATIC "${TS_ROOT}/src/lib.c")
target_include_directories(ts_runtime PUBLIC "${TS_ROOT}/include" PRIVATE "${TS_ROOT}/src")
target_compile_options(ts_runtime PRIVATE -O2 -w)
if(ENGRAM_FUZZ)
  # Comparison tracing in the parser's inner loops halves the fuzzers' speed
  # and guides nothing: engram's own code is what they explore.
  target_compile_options(ts_runtime PRIVATE -fno-sanitize-coverage=trace-cmp)
endif()
if(ENGRAM_SANITIZE AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  target_compile_options(ts_runtime PRIVATE
    -fsanitize-ignorelist=${CMAKE_CURRENT_LIST_DIR}/sanitize-ignore.txt)
endif()
if(ENGRAM_FUZZ)
  target_compile_options(ts_runtime PRIVATE
    -fsanitize-coverage-ignorelist=${CMAKE_CURRENT_LIST_DIR}/sanitize-ignore.txt)
endif()
set_target_properties(ts_runtime PROPERTIES POSITION_INDEPENDENT_CODE ON)

# ts_grammar(<name> <src dir>): parser.c plus scanner.c when the grammar has one.
function(ts_grammar name dir)
  set(srcs "${dir}/parser.c")
  if(EXISTS "${dir}/scanner.c")
    list(APPEND srcs "${dir}/scanner.c")
  endif()
  add_library(ts_grammar_${name} STATIC ${srcs})
  target_include_directories(ts_grammar_${name} PRIVATE "${dir}")
  target_compile_options(ts_grammar_${name} PRIVATE -O2 -w)
  if(ENGRAM_SANITIZE)
    target_compile_options(ts_grammar_${name} PRIVATE -fno-sanitize=all)
  endif()
  set_target_properties(ts_grammar_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

set(NM "${ENGRAM_NODE_MODULES}")
ts_grammar(python "${NM}/tree-sitter-python/src")
ts_grammar(javascript "${NM}/tree-sitter-javascript/src")
ts_grammar(typescript "${NM}/tree-sitter-typescript/typescript/src")
ts_grammar(tsx "${NM}/tree-sitter-typescript/tsx/src")
ts_grammar(c "${NM}/tree-sitter-c/src")
ts_grammar(cpp "${NM}/tree-sitter-cpp/src")
ts_grammar(go "${NM}/tree-sitter-go/src")
ts_grammar(rust "${NM}/tree-sitter-rust/src")
ts_grammar(java "${NM}/tree-sitter-java/src")
set(ENGRAM_GRAMMARS python javascript typescript tsx c cpp go rust java)
