# ctest registration of the tools and pattern examples (included by
# tests/CMakeLists.txt): the `aztables` CLI scenarios (tests/tools/cli_test.py),
# a short partition_stress run, and runs of the design-pattern examples. All
# need Azurite (AZTABLES_TEST_CONNECTION_STRING, set by tests/run.sh); without
# it each reports itself skipped (exit 77).
find_program(AZTABLES_PYTHON3 python3)

# Runs an example program with AZTABLES_CONNECTION_STRING taken from the test
# environment, or skips.
set(_aztables_with_azurite
    [=[test -n "$AZTABLES_TEST_CONNECTION_STRING" || { echo "SKIPPED: AZTABLES_TEST_CONNECTION_STRING is not set"; exit 77; }; AZTABLES_CONNECTION_STRING="$AZTABLES_TEST_CONNECTION_STRING" exec "$@"]=])

if(TARGET aztables_cli AND AZTABLES_PYTHON3)
  foreach(scenario roundtrip query batch import errors sas)
    add_test(NAME cli:${scenario}
             COMMAND ${AZTABLES_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/cli_test.py
                     --cli $<TARGET_FILE:aztables_cli> ${scenario})
    set_tests_properties(cli:${scenario} PROPERTIES SKIP_RETURN_CODE 77 LABELS "azurite;cli" TIMEOUT 300)
  endforeach()
endif()

if(TARGET partition_stress)
  add_test(NAME examples:partition_stress
           COMMAND sh -c "${_aztables_with_azurite}" sh $<TARGET_FILE:partition_stress>
                   --duration 2 --partitions 2 --entities 200 --concurrency 4 --max-operations 5000)
  set_tests_properties(examples:partition_stress PROPERTIES SKIP_RETURN_CODE 77 LABELS "azurite;examples" TIMEOUT 120)
endif()

if(TARGET bulk_import)
  # Cancelled from its progress callback after 1,000 of 4,000 rows, then run again.
  add_test(NAME examples:bulk_import_cancel
           COMMAND sh -c "${_aztables_with_azurite}" sh $<TARGET_FILE:bulk_import> 4000 --stop-after 1000)
  set_tests_properties(examples:bulk_import_cancel PROPERTIES SKIP_RETURN_CODE 77 LABELS "azurite;examples" TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "cancelled after [0-9]+ rows: [0-9]+ rows are stored.*OK: all 4000 valid rows written")
endif()

foreach(example time_series log_tail hot_partition dual_row_batch bulk_import)
  if(TARGET ${example})
    add_test(NAME examples:${example} COMMAND sh -c "${_aztables_with_azurite}" sh $<TARGET_FILE:${example}>)
    set_tests_properties(examples:${example} PROPERTIES SKIP_RETURN_CODE 77 LABELS "azurite;examples" TIMEOUT 120)
  endif()
endforeach()
