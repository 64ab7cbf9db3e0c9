// SPDX-License-Identifier: MIT
/// \file json.hpp
/// An entity as one line of the service's own JSON: `PartitionKey`, `RowKey`,
/// the properties, and an `Name@odata.type` annotation wherever the JSON type
/// alone would lose the Edm type (Int64 travels as a string). What `to_json`
/// writes, `from_json` (and the service, and the other SDKs) read back type for
/// type. The `aztables` command-line tool prints and reads entities this way.
#pragma once

#include <aztables/config.hpp>
#include <aztables/entity.hpp>
#include <aztables/error.hpp>

#include <string>
#include <string_view>

AZTABLES_NAMESPACE_BEGIN

/// Writes an entity as one JSON object (no newline): `odata.etag` when the
/// entity has an ETag, `PartitionKey`, `RowKey`, the properties in order, and
/// `Timestamp` (annotated Edm.DateTime) when the entity has one. The entity is
/// checked against every rule a write checks (keys, property names, sizes,
/// UTF-8), so anything `to_json` returns can be written back.
///
/// \returns the JSON text, or `invalid_argument` naming the field at fault.
///
/// \code
/// aztables::entity e("p", "r");
/// e.set("Count", std::int64_t{5});
/// aztables::to_json(e).value();
/// // {"PartitionKey":"p","RowKey":"r","Count":"5","Count@odata.type":"Edm.Int64"}
/// \endcode
AZTABLES_DECL result<std::string> to_json(const entity& e);

/// Reads one entity from JSON in the service's form (any metadata level;
/// annotations before or after their value). Without an annotation a string
/// is an Edm.String, a number with a fraction or exponent an Edm.Double, and
/// an integer an Edm.Int32 (Edm.Int64 when it does not fit); `null` means
/// absent. `odata.etag` sets the ETag and `Timestamp` the timestamp; other
/// `odata.*` keys are ignored. Nothing is validated beyond the JSON and the
/// annotated types: a write of the entity checks the service's rules.
///
/// \returns the entity, or `invalid_argument` for text that is not one JSON
///          object (trailing text included) or a value that does not fit its
///          annotation (e.g. `"Count@odata.type":"Edm.Int64"` with `"Count":"x"`).
AZTABLES_DECL result<entity> from_json(std::string_view json);

AZTABLES_NAMESPACE_END

#if defined(AZTABLES_HEADER_ONLY)
#include <aztables/impl/json.ipp>
#endif
