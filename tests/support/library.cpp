// The library's non-template definitions, compiled once for the test programs
// and for the fuzz targets (their CMake files define AZTABLES_SEPARATE_COMPILATION).
#include <aztables/src.hpp>
