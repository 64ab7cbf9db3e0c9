# Conan test package: builds the same consumer project as the repository's
# consumer tests (tests/consumer, find_package mode) and runs it.
import os

from conan import ConanFile
from conan.tools.build import can_run
from conan.tools.cmake import CMake, cmake_layout


class AztablesTestPackage(ConanFile):
    settings = "os", "arch", "compiler", "build_type"
    generators = "CMakeDeps", "CMakeToolchain"

    def requirements(self):
        self.requires(self.tested_reference_str)

    def layout(self):
        cmake_layout(self)

    def build(self):
        cmake = CMake(self)
        consumer = os.path.join(self.source_folder, "..", "..", "..", "tests", "consumer")
        cmake.configure(build_script_folder=os.path.abspath(consumer),
                        variables={"AZTABLES_CONSUMER_MODE": "package"})
        cmake.build()

    def test(self):
        if can_run(self):
            self.run(os.path.join(self.cpp.build.bindir, "consumer"), env="conanrun")
