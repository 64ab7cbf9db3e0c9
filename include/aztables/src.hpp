// SPDX-License-Identifier: MIT
/// \file src.hpp
/// Include in exactly one translation unit, with AZTABLES_SEPARATE_COMPILATION
/// defined in every translation unit, to compile the library's non-template
/// code (and simdjson, curl and OpenSSL headers) once.
#pragma once

#if !defined(AZTABLES_SEPARATE_COMPILATION)
#error "Define AZTABLES_SEPARATE_COMPILATION in every translation unit to use <aztables/src.hpp>"
#endif

#include <aztables/impl/access_policy.ipp>
#include <aztables/impl/batch.ipp>
#include <aztables/impl/bulk.ipp>
#include <aztables/impl/credentials.ipp>
#include <aztables/impl/curl_transport.ipp>
#include <aztables/impl/json.ipp>
#include <aztables/impl/keys.ipp>
#include <aztables/impl/query.ipp>
#include <aztables/impl/sas.ipp>
#include <aztables/impl/service_client.ipp>
#include <aztables/impl/table_client.ipp>
