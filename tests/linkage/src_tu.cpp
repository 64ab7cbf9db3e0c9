// SPDX-License-Identifier: MIT
// The one TU that compiles the library's definitions (separate-compilation mode).
#include <aztables/src.hpp>
