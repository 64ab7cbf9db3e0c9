# ctest registration of the consumer tests (included by tests/CMakeLists.txt).
# Names have no spaces (CMP0110 is OLD under cmake_minimum_required 3.16).
# Each test runs consumer_test.cmake; "install" is a fixture the find_package
# and pkg-config tests need. They configure and build small projects, so they
# take a few seconds each; no network (Azurite is used when its env var is set).
set(_aztables_consumer_args
    "-DSOURCE_DIR=${PROJECT_SOURCE_DIR}" "-DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/consumer"
    "-DGENERATOR=${CMAKE_GENERATOR}" "-DCXX=${CMAKE_CXX_COMPILER}")
foreach(step install find_package add_subdirectory pkg_config recipes)
  add_test(NAME "consumer:${step}"
           COMMAND ${CMAKE_COMMAND} -DSTEP=${step} ${_aztables_consumer_args}
                   -P "${CMAKE_CURRENT_SOURCE_DIR}/consumer/consumer_test.cmake")
endforeach()
set_tests_properties("consumer:install" PROPERTIES FIXTURES_SETUP aztables_installed)
set_tests_properties("consumer:find_package" "consumer:pkg_config" PROPERTIES FIXTURES_REQUIRED aztables_installed)
set_tests_properties("consumer:install" "consumer:find_package" "consumer:add_subdirectory" "consumer:pkg_config"
                     "consumer:recipes"
                     PROPERTIES LABELS consumer TIMEOUT 600)
