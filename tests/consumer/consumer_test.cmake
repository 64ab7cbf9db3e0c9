# Consumer tests, run by ctest as `cmake -P consumer_test.cmake` with:
#   -DSTEP=install|find_package|add_subdirectory|pkg_config|recipes
#   -DSOURCE_DIR=<aztables source> -DWORK_DIR=<scratch dir in the build tree>
#   -DGENERATOR=<cmake generator> -DCXX=<C++ compiler>
# install:          configure aztables alone (tests and examples off), then
#                   `cmake --install` into WORK_DIR/prefix -- what conan and vcpkg do.
# find_package:     build tests/consumer against WORK_DIR/prefix and run it.
# add_subdirectory: build tests/consumer with aztables as a subdirectory and run it.
# pkg_config:       compile tests/consumer/main.cpp with `pkg-config --cflags --libs aztables`.
# recipes:          static checks of packaging/ (conan and vcpkg themselves are not available).
cmake_minimum_required(VERSION 3.16)

foreach(v STEP SOURCE_DIR WORK_DIR GENERATOR CXX)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "consumer_test.cmake: -D${v}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_src "${SOURCE_DIR}/tests/consumer")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "consumer test step '${STEP}' failed (${rc}): ${cmd}")
  endif()
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${WORK_DIR}/lib-build" "${prefix}")
  run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/lib-build" -G "${GENERATOR}"
      "-DCMAKE_CXX_COMPILER=${CXX}" -DCMAKE_BUILD_TYPE=Release
      -DAZTABLES_BUILD_TESTS=OFF -DAZTABLES_BUILD_EXAMPLES=OFF "-DCMAKE_INSTALL_PREFIX=${prefix}")
  run("${CMAKE_COMMAND}" --build "${WORK_DIR}/lib-build")
  run("${CMAKE_COMMAND}" --install "${WORK_DIR}/lib-build")
  file(GLOB_RECURSE installed RELATIVE "${prefix}" "${prefix}/*")
  foreach(f include/aztables/aztables.hpp include/aztables/detail/json_reader.hpp
            include/aztables/impl/table_client.ipp cmake/aztables/aztablesConfig.cmake
            cmake/aztables/aztablesConfigVersion.cmake cmake/aztables/aztablesTargets.cmake
            cmake/aztables/aztablesDependencies.cmake share/pkgconfig/aztables.pc)
    string(REGEX REPLACE "([.+])" "\\\\\\1" re "${f}")
    if(NOT installed MATCHES "(^|;)([^;]*/)?${re}(;|$)")
      message(FATAL_ERROR "consumer test: ${f} was not installed into ${prefix}")
    endif()
  endforeach()
  message(STATUS "consumer test: installed into ${prefix}")

elseif(STEP STREQUAL "find_package")
  set(b "${WORK_DIR}/find-package")
  file(REMOVE_RECURSE "${b}")
  run("${CMAKE_COMMAND}" -S "${consumer_src}" -B "${b}" -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}"
      -DAZTABLES_CONSUMER_MODE=package "-DCMAKE_PREFIX_PATH=${prefix}")
  run("${CMAKE_COMMAND}" --build "${b}")
  run("${b}/consumer")
  # A version the package must refuse (0.x: only the same minor version is compatible).
  file(WRITE "${WORK_DIR}/version-check/CMakeLists.txt"
       "cmake_minimum_required(VERSION 3.16)\nproject(v NONE)\nfind_package(aztables 0.99 CONFIG QUIET)\n"
       "if(aztables_FOUND)\n  message(FATAL_ERROR \"aztables 0.99 accepted\")\nendif()\n")
  run("${CMAKE_COMMAND}" -S "${WORK_DIR}/version-check" -B "${WORK_DIR}/version-check/build" "-DCMAKE_PREFIX_PATH=${prefix}")

elseif(STEP STREQUAL "add_subdirectory")
  set(b "${WORK_DIR}/add-subdirectory")
  file(REMOVE_RECURSE "${b}")
  run("${CMAKE_COMMAND}" -S "${consumer_src}" -B "${b}" -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}"
      -DAZTABLES_CONSUMER_MODE=subdirectory "-DAZTABLES_SOURCE_DIR=${SOURCE_DIR}")
  run("${CMAKE_COMMAND}" --build "${b}")
  run("${b}/consumer")

elseif(STEP STREQUAL "pkg_config")
  find_program(PKG_CONFIG pkg-config REQUIRED)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/share/pkgconfig")
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs aztables
                  OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs aztables failed (${rc})")
  endif()
  message(STATUS "pkg-config: ${flags}")
  separate_arguments(flag_list UNIX_COMMAND "${flags}")
  set(found_headers OFF)
  foreach(f IN LISTS flag_list)
    if(f MATCHES "^-I(.*)$")
      get_filename_component(inc "${CMAKE_MATCH_1}" REALPATH)
      get_filename_component(want "${prefix}/include" REALPATH)
      if(inc STREQUAL want AND EXISTS "${inc}/aztables/aztables.hpp")
        set(found_headers ON)
      endif()
    endif()
  endforeach()
  if(NOT found_headers)
    message(FATAL_ERROR "pkg-config flags do not point at ${prefix}/include: ${flags}")
  endif()
  file(MAKE_DIRECTORY "${WORK_DIR}/pkg-config")
  run("${CXX}" -std=c++17 -Wall -Wextra -Wpedantic -Werror "${consumer_src}/main.cpp"
      -o "${WORK_DIR}/pkg-config/consumer" ${flag_list})
  run("${WORK_DIR}/pkg-config/consumer")

elseif(STEP STREQUAL "recipes")
  # Conan and vcpkg are not installed here; check what can be checked without
  # them: the files parse, and the vcpkg version matches project(VERSION).
  file(READ "${SOURCE_DIR}/CMakeLists.txt" top)
  string(REGEX MATCH "project\\(aztables VERSION ([0-9.]+)" _ "${top}")
  set(version "${CMAKE_MATCH_1}")
  file(READ "${SOURCE_DIR}/packaging/vcpkg/aztables/vcpkg.json" manifest)
  string(JSON port_version ERROR_VARIABLE json_error GET "${manifest}" "version-semver")
  if(json_error OR NOT port_version STREQUAL version)
    message(FATAL_ERROR "packaging/vcpkg/aztables/vcpkg.json: version-semver '${port_version}' "
                        "does not match project version '${version}' ${json_error}")
  endif()
  find_program(PYTHON3 python3 REQUIRED)
  foreach(py packaging/conan/conanfile.py packaging/conan/test_package/conanfile.py)
    run("${PYTHON3}" -c "import ast,sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])" "${SOURCE_DIR}/${py}")
  endforeach()
  message(STATUS "recipes: vcpkg.json version ${port_version} = project version; conanfiles parse")

else()
  message(FATAL_ERROR "consumer_test.cmake: unknown STEP '${STEP}'")
endif()
