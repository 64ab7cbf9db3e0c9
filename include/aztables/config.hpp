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

/// Major version: changes when the API breaks (while 0, a minor version may break it).
#define AZTABLES_VERSION_MAJOR 0
/// Minor version.
#define AZTABLES_VERSION_MINOR 1
/// Patch version.
#define AZTABLES_VERSION_PATCH 0
/// The version as "major.minor.patch" (also sent in the User-Agent).
#define AZTABLES_VERSION_STRING "0.1.0"

#if defined(AZTABLES_SEPARATE_COMPILATION)
#define AZTABLES_DECL
#else
/// Defined (to 1) in header-only mode: the public headers include their definitions.
#define AZTABLES_HEADER_ONLY 1
/// Marks non-template definitions: `inline` in header-only mode, nothing in
/// separate-compilation mode.
#define AZTABLES_DECL inline
#endif

/// Opens `namespace aztables { inline namespace v1 {` (the ABI version).
#define AZTABLES_NAMESPACE_BEGIN \
  namespace aztables {           \
  inline namespace v1 {
/// Closes what `AZTABLES_NAMESPACE_BEGIN` opened.
#define AZTABLES_NAMESPACE_END \
  }                            \
  }
