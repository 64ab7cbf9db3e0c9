# API reference from the public headers (cmake/Doxyfile.in):
#   cmake --build <build> --target aztables_docs   -> <build>/docs/html/index.html
# With tests on, the ctest `docs:api` runs the same configuration and fails on
# any doxygen warning, including an undocumented public declaration.
# tests/deps.sh installs doxygen (Debian package); without it the target is
# absent and the test reports itself skipped.
find_program(AZTABLES_DOXYGEN doxygen)
set(AZTABLES_DOCS_DIR "${PROJECT_BINARY_DIR}/docs")
configure_file("${CMAKE_CURRENT_LIST_DIR}/Doxyfile.in" "${PROJECT_BINARY_DIR}/Doxyfile" @ONLY)

if(AZTABLES_DOXYGEN AND AZTABLES_MAIN_PROJECT)  # not in a parent project's target list
  add_custom_target(aztables_docs
    COMMAND "${AZTABLES_DOXYGEN}" "${PROJECT_BINARY_DIR}/Doxyfile"
    WORKING_DIRECTORY "${PROJECT_BINARY_DIR}"
    COMMENT "aztables API reference -> ${AZTABLES_DOCS_DIR}/html/index.html"
    VERBATIM)
endif()

if(AZTABLES_BUILD_TESTS)
  if(AZTABLES_DOXYGEN)
    add_test(NAME docs:api COMMAND "${AZTABLES_DOXYGEN}" "${PROJECT_BINARY_DIR}/Doxyfile"
             WORKING_DIRECTORY "${PROJECT_BINARY_DIR}")
  else()
    add_test(NAME docs:api COMMAND sh -c "echo 'SKIPPED: doxygen not found (tests/deps.sh installs it)'; exit 77")
    set_tests_properties(docs:api PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  set_tests_properties(docs:api PROPERTIES LABELS docs)
  if(AZTABLES_DOXYGEN)
    # The gate itself: the same configuration plus one undocumented public
    # function must fail (and a `detail` one must not be what fails it).
    set(_fixture "${PROJECT_BINARY_DIR}/docs-check-fixture")
    file(WRITE "${_fixture}/undocumented.hpp"
         "/// \\file undocumented.hpp\n/// A fixture for the docs:api gate.\n#pragma once\n"
         "namespace aztables { inline namespace v1 {\nint undocumented_function(int x);\n"
         "namespace detail { int internal_function(); }\n} }\n")
    file(READ "${PROJECT_BINARY_DIR}/Doxyfile" _doxyfile)
    string(REGEX REPLACE "\nINPUT( +)= ([^\n]*)" "\nINPUT\\1= \\2 ${_fixture}" _doxyfile "${_doxyfile}")
    string(REGEX REPLACE "\nOUTPUT_DIRECTORY( +)= [^\n]*" "\nOUTPUT_DIRECTORY\\1= ${_fixture}/out" _doxyfile "${_doxyfile}")
    file(WRITE "${_fixture}/Doxyfile" "${_doxyfile}")
    add_test(NAME docs:gate-catches-undocumented COMMAND "${AZTABLES_DOXYGEN}" "${_fixture}/Doxyfile"
             WORKING_DIRECTORY "${_fixture}")
    set_tests_properties(docs:gate-catches-undocumented PROPERTIES LABELS docs
                         PASS_REGULAR_EXPRESSION "undocumented_function.*is not documented"
                         FAIL_REGULAR_EXPRESSION "internal_function")
  endif()
endif()
