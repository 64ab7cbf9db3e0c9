// The library's non-template definitions, compiled once for all test programs
// (tests/CMakeLists.txt defines AZTABLES_SEPARATE_COMPILATION for them).
#include <aztables/src.hpp>
