# Linkage tests (included by tests/CMakeLists.txt):
# - linkage_separate: AZTABLES_SEPARATE_COMPILATION in every TU, two user TUs
#   plus one TU including <aztables/src.hpp>: builds, links (no missing or
#   duplicate definition) and runs.
# - linkage_odr: header-only mode, two TUs including every header, linked
#   together: no duplicate definitions, and both compute the same results.
file(GLOB _aztables_all_headers CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/include/aztables/*.hpp ${PROJECT_SOURCE_DIR}/include/aztables/detail/*.hpp)
set(_aztables_all_includes "// Generated: every aztables header except src.hpp.\n#pragma once\n")
foreach(h IN LISTS _aztables_all_headers)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/include ${h})
  if(NOT rel STREQUAL "aztables/src.hpp")
    string(APPEND _aztables_all_includes "#include <${rel}>\n")
  endif()
endforeach()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/linkage/all_headers.hpp.in "${_aztables_all_includes}")
configure_file(${CMAKE_CURRENT_BINARY_DIR}/linkage/all_headers.hpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/linkage/all_headers.hpp COPYONLY)

set(_aztables_linkage_dir ${CMAKE_CURRENT_SOURCE_DIR}/linkage)
add_executable(linkage_separate ${_aztables_linkage_dir}/main.cpp ${_aztables_linkage_dir}/tu_a.cpp
                                ${_aztables_linkage_dir}/tu_b.cpp ${_aztables_linkage_dir}/src_tu.cpp)
target_compile_definitions(linkage_separate PRIVATE AZTABLES_SEPARATE_COMPILATION)
add_executable(linkage_odr ${_aztables_linkage_dir}/main.cpp ${_aztables_linkage_dir}/tu_a.cpp
                           ${_aztables_linkage_dir}/tu_b.cpp)
foreach(t linkage_separate linkage_odr)
  target_link_libraries(${t} PRIVATE aztables::aztables aztables_project_flags)
  target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/linkage)
  add_test(NAME ${t} COMMAND ${t})
endforeach()
