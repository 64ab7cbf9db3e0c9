// aztables: a C++17 client for Azure Table Storage and the Cosmos DB Table API.
// SPDX-License-Identifier: MIT
/// \file config.hpp
/// Version, namespace macros and the header-only / separate-compilation switch.
///
/// By default aztables is header-only: every definition is `inline` and compiled
/// in each translation unit that includes the client headers. Define
/// `AZTABLES_SEPARATE_COMPILATION` in every TU and include `<aztables/src.hpp>`
/// in exactly one TU to compile the heavy parts (simdjson, curl, OpenSSL) once.
#pragma once

#define AZTABLES_VERSION_MAJOR 0
#define AZTABLES_VERSION_MINOR 1
#define AZTABLES_VERSION_PATCH 0
#define AZTABLES_VERSION_STRING "0.1.0"

#if defined(AZTABLES_SEPARATE_COMPILATION)
#define AZTABLES_DECL
#else
#define AZTABLES_HEADER_ONLY 1
#define AZTABLES_DECL inline
#endif

#define AZTABLES_NAMESPACE_BEGIN \
  namespace aztables {           \
  inline namespace v1 {
#define AZTABLES_NAMESPACE_END \
  }                            \
  }
