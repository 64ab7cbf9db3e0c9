# ctest runs of the typed-entity / query examples against Azurite (included by
# tests/CMakeLists.txt). Without AZTABLES_TEST_CONNECTION_STRING (set by
# tests/run.sh) each reports itself skipped (exit 77).
set(_aztables_typed_with_azurite
    [=[test -n "$AZTABLES_TEST_CONNECTION_STRING" || { echo "SKIPPED: AZTABLES_TEST_CONNECTION_STRING is not set"; exit 77; }; AZTABLES_CONNECTION_STRING="$AZTABLES_TEST_CONNECTION_STRING" exec "$@"]=])
foreach(example quickstart foot_race orders core_tour)
  if(TARGET ${example})
    add_test(NAME examples:${example} COMMAND sh -c "${_aztables_typed_with_azurite}" sh $<TARGET_FILE:${example}>)
    set_tests_properties(examples:${example} PROPERTIES SKIP_RETURN_CODE 77 LABELS "azurite;examples" TIMEOUT 120)
  endif()
endforeach()

# The README's typed-queries code blocks are snippets of these examples.
find_program(AZTABLES_TYPED_PYTHON3 python3)
if(AZTABLES_TYPED_PYTHON3)
  add_test(NAME docs:readme_typed_queries
           COMMAND ${AZTABLES_TYPED_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/readme_snippets.py ${PROJECT_SOURCE_DIR}
                   intro typed-queries)
  add_test(NAME docs:readme_core
           COMMAND ${AZTABLES_TYPED_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/readme_snippets.py ${PROJECT_SOURCE_DIR} core)
endif()
