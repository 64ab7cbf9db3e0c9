# ctest run of the SAS example against Azurite (included by tests/CMakeLists.txt).
# Without AZTABLES_TEST_CONNECTION_STRING (set by tests/run.sh) it reports
# itself skipped (exit 77).
if(TARGET sas_token)
  add_test(NAME examples:sas_token
           COMMAND sh -c [=[test -n "$AZTABLES_TEST_CONNECTION_STRING" || { echo "SKIPPED: AZTABLES_TEST_CONNECTION_STRING is not set"; exit 77; }; AZTABLES_CONNECTION_STRING="$AZTABLES_TEST_CONNECTION_STRING" exec "$@"]=]
                   sh $<TARGET_FILE:sas_token>)
  set_tests_properties(examples:sas_token PROPERTIES SKIP_RETURN_CODE 77 LABELS "azurite;examples" TIMEOUT 120)
endif()
