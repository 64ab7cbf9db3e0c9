# The library's dependencies, found the same way for the build tree and for
# installed packages (aztablesConfig.cmake includes this file).
include(CMakeFindDependencyMacro)
include(GNUInstallDirs)
find_dependency(CURL)
find_dependency(OpenSSL)
find_dependency(simdjson CONFIG)
find_dependency(Threads)
