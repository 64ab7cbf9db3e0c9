# Conan 2 recipe for aztables (a header-only library).
#
#   conan create packaging/conan --build=missing      # from the repository root
#
# It uses only the flow the consumer tests in tests/consumer prove: configure
# the project with tests and examples off, then `cmake --install`. Consumers
# get the package's own aztablesConfig.cmake (cmake_find_mode "none"), which
# finds CURL, OpenSSL and simdjson through the Conan-generated configs.
# Not run in this repository's CI: Conan is not installed there.
import os

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load

required_conan_version = ">=2.0"


class AztablesConan(ConanFile):
    name = "aztables"
    description = "C++17 client for Azure Table Storage and the Cosmos DB Table API"
    license = "MIT"
    topics = ("azure", "table-storage", "cosmosdb", "nosql", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    no_copy_source = True

    @property
    def _repo_root(self):
        return os.path.join(self.recipe_folder, "..", "..")

    def set_version(self):
        # The single source of the version: project(... VERSION x.y.z) in CMakeLists.txt.
        import re
        text = load(self, os.path.join(self._repo_root, "CMakeLists.txt"))
        self.version = re.search(r"project\(aztables VERSION ([0-9.]+)", text).group(1)

    def export_sources(self):
        for pattern in ("CMakeLists.txt", "LICENSE", "cmake/*", "include/*"):
            copy(self, pattern, self._repo_root, self.export_sources_folder)

    def layout(self):
        cmake_layout(self)

    def requirements(self):
        self.requires("libcurl/[>=7.78 <9]")
        self.requires("openssl/[>=3.0 <4]")
        self.requires("simdjson/[>=3.0 <4]")

    def validate(self):
        check_min_cppstd(self, 17)

    def generate(self):
        CMakeDeps(self).generate()
        tc = CMakeToolchain(self)
        tc.cache_variables["AZTABLES_BUILD_TESTS"] = False
        tc.cache_variables["AZTABLES_BUILD_EXAMPLES"] = False
        tc.generate()

    def build(self):
        CMake(self).configure()  # header-only: nothing to compile; install needs a configured tree

    def package(self):
        CMake(self).install()
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))

    def package_id(self):
        self.info.clear()

    def package_info(self):
        # Use the installed aztablesConfig.cmake (target aztables::aztables).
        self.cpp_info.set_property("cmake_find_mode", "none")
        self.cpp_info.builddirs.append(os.path.join("lib", "cmake", "aztables"))
        self.cpp_info.set_property("pkg_config_name", "aztables")
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        self.cpp_info.requires = ["libcurl::curl", "openssl::crypto", "simdjson::simdjson"]
        if self.settings.os in ("Linux", "FreeBSD"):
            self.cpp_info.system_libs = ["pthread"]
