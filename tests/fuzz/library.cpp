// The library's non-template definitions, compiled once for all fuzz targets.
#include <aztables/src.hpp>
