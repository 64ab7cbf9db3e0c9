# Install rules: headers, the aztables::aztables target, a CMake package
# (aztablesConfig.cmake + version file, dependencies found for the user with
# find_dependency) and a pkg-config file. Conan and vcpkg recipes in
# packaging/ use exactly this flow (configure, build, `cmake --install`).
#
# Included by the top-level CMakeLists.txt after the target is defined.
# On by default when aztables is the top-level project (packagers, `cmake --install`);
# off under add_subdirectory/FetchContent unless the parent asks for it.
option(AZTABLES_INSTALL "Generate aztables' install rules" ${AZTABLES_MAIN_PROJECT})
if(NOT AZTABLES_INSTALL)
  return()
endif()

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(AZTABLES_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/aztables"
    CACHE STRING "Where aztablesConfig.cmake is installed (relative to the prefix)")

# Public headers, including detail/ and impl/ (header-only: the definitions live there).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/aztables" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.ipp")

install(TARGETS aztables EXPORT aztablesTargets)
install(EXPORT aztablesTargets NAMESPACE aztables:: FILE aztablesTargets.cmake
        DESTINATION "${AZTABLES_INSTALL_CMAKEDIR}")

configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/aztablesConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/aztablesConfig.cmake"
                              INSTALL_DESTINATION "${AZTABLES_INSTALL_CMAKEDIR}")
# 0.x: a minor version may break the API, so only the same minor version matches.
# Header-only: any architecture (and pointer size) may use it.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/aztablesConfigVersion.cmake"
                                 VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/aztablesConfig.cmake" "${PROJECT_BINARY_DIR}/aztablesConfigVersion.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/aztablesDependencies.cmake"
        DESTINATION "${AZTABLES_INSTALL_CMAKEDIR}")

# pkg-config: header-only, so it goes to the arch-independent datadir. The
# prefix is computed from the .pc file's own location, so the install is relocatable.
set(AZTABLES_PKGCONFIG_DIR "${CMAKE_INSTALL_DATADIR}/pkgconfig")
if(IS_ABSOLUTE "${AZTABLES_PKGCONFIG_DIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(AZTABLES_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _aztables_up "/prefix/${AZTABLES_PKGCONFIG_DIR}" "/prefix")
  string(REGEX REPLACE "/$" "" _aztables_up "${_aztables_up}")
  set(AZTABLES_PC_PREFIX "\${pcfiledir}/${_aztables_up}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(AZTABLES_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(AZTABLES_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/aztables.pc.in" "${PROJECT_BINARY_DIR}/aztables.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/aztables.pc" DESTINATION "${AZTABLES_PKGCONFIG_DIR}")
