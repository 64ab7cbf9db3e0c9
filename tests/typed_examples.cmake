# ctest runs of the typed-entity / query examples against Azurite (included by
# tests/CMakeLists.txt). Without AZTABLES_TEST_CONNECTION_STRING (set by
# tests/run.sh) each reports itself skipped (exit 77).
set(_aztables_typed_with_azurite
    [=[test -n "$AZTABLES_TEST_CONNECTION_STRING" || { echo "SKIPPED: AZTABLES_TEST_CONNECTION_STRING is not set"; exit 77; }; AZTABLES_CONNECTION_STRING="$AZTABLES_TEST_CONNECTION_STRING" exec "$@"]=])
foreach(example quickstart foot_race orders)
  if(TARGET ${example})
    add_test(NAME examples:${example} COMMAND sh -c "${_aztables_typed_with_azurite}" sh $<TARGET_FILE:${example}>)
    set_tests_properties(examples:${example} PROPERTIES SKIP_RETURN_CODE 77 LABELS "azurite;examples" TIMEOUT 120)
  endif()
endforeach()
