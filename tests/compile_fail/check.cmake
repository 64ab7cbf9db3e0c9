# Compiles one translation unit that must NOT compile and checks that the
# compiler's output carries the expected diagnostic (the first line of the
# source that starts with "// expect: "). A TU whose name starts with "ok_"
# must compile: it proves the setup itself works.
#   cmake -DCXX=... -DSRC=... -DINCLUDE=... -DSTD=17 -P check.cmake
file(STRINGS "${SRC}" expect_lines REGEX "^// expect: ")
get_filename_component(name "${SRC}" NAME)
execute_process(
  COMMAND "${CXX}" -std=c++${STD} -fsyntax-only -I "${INCLUDE}" "${SRC}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(name MATCHES "^ok_")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} should compile but did not:\n${err}")
  endif()
  message(STATUS "${name}: compiles, as it should")
  return()
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "${name} compiled, but it must be rejected")
endif()
list(GET expect_lines 0 expect)
string(REPLACE "// expect: " "" expect "${expect}")
string(FIND "${out}${err}" "${expect}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "${name} was rejected, but without the expected message '${expect}':\n${err}")
endif()
message(STATUS "${name}: rejected with '${expect}'")
