# vcpkg overlay port for aztables (header-only).
#
#   vcpkg install aztables --overlay-ports=<aztables checkout>/packaging/vcpkg
#
# Builds from the checkout this port lives in and uses only the flow the
# consumer tests in tests/consumer prove: configure with tests and examples
# off, `cmake --install`, then vcpkg's standard fix-ups. For a registry port,
# replace SOURCE_PATH with vcpkg_from_github(OUT_SOURCE_PATH SOURCE_PATH ...).
# Not run in this repository's CI: vcpkg is not installed there.
set(VCPKG_BUILD_TYPE release)  # header-only: one configuration is enough

get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

vcpkg_cmake_configure(
    SOURCE_PATH "${SOURCE_PATH}"
    OPTIONS
        -DAZTABLES_BUILD_TESTS=OFF
        -DAZTABLES_BUILD_EXAMPLES=OFF
)
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME aztables CONFIG_PATH lib/cmake/aztables)
vcpkg_fixup_pkgconfig()

file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/lib")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
