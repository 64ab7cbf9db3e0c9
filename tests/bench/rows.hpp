// SPDX-License-Identifier: MIT
// The rows of the suite, one function per file.
#pragma once

#include "harness.hpp"

#include <cstdint>
#include <string>

namespace bench {

void rows_decode(context& ctx);   // rows 1, 2  (rows_decode.cpp)
void rows_write(context& ctx);    // row 3      (rows_write.cpp)
void rows_sign(context& ctx);     // row 4      (rows_sign.cpp)
void rows_http(context& ctx);     // row 5      (rows_http.cpp)
void rows_ingest(context& ctx);   // row 6      (rows_ingest.cpp)
void rows_compile(context& ctx);  // row 7      (rows_compile.cpp)

// The library's decoders as timed loops over a copy of `page` (ours_decode.cpp).
// reuse: every page decodes into the same vector, overwriting the entities in
// place (the pager's range-for and next_page(page&) after the first page);
// otherwise into a new vector each time (next_page() returning a new page).
timed_fn decode_typed_fn(const std::string& page, bool reuse);
timed_fn decode_dynamic_fn(const std::string& page, bool reuse);
/// checksum() of the typed decode of `page`, to check it against the baseline.
std::uint64_t decode_typed_checksum(const std::string& page);

/// Description of the build: compiler, flags, simdjson implementations.
std::string simdjson_builtin();  // the implementation our On-Demand code was compiled for
std::string simdjson_active();   // the one simdjson's runtime dispatch picked (used for stage 1)

}  // namespace bench
