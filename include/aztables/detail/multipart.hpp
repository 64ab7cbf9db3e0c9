// SPDX-License-Identifier: MIT
// Internal: our own multipart/mixed writer for `$batch` requests and the
// parser for `$batch` responses. Std-only.
//
// Request layout (one changeset; CRLF everywhere; the layout Azurite's regex
// based parser and the service both accept):
//
//   --batch_<id>
//   Content-Type: multipart/mixed; boundary=changeset_<id>
//
//   --changeset_<id>
//   Content-Type: application/http
//   Content-Transfer-Encoding: binary
//
//   POST https://acct.table.core.windows.net/t HTTP/1.1      <- absolute URL
//   Accept: application/json;odata=minimalmetadata
//   Content-Type: application/json
//   Prefer: return-no-content
//   DataServiceVersion: 3.0;
//
//   {"PartitionKey":"p","RowKey":"r"}                         <- JSON on one line
//   --changeset_<id>
//   ...
//   --changeset_<id>--
//
//   --batch_<id>--
#pragma once

#include <aztables/config.hpp>
#include <aztables/error.hpp>
#include <aztables/transport.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AZTABLES_NAMESPACE_BEGIN
namespace detail {

inline constexpr std::string_view crlf = "\r\n";

/// The start of a batch body: the batch delimiter and the changeset's header.
inline void append_batch_start(std::string& out, std::string_view batch_boundary, std::string_view changeset_boundary) {
  out += "--";
  out += batch_boundary;
  out += "\r\nContent-Type: multipart/mixed; boundary=";
  out += changeset_boundary;
  out += "\r\n\r\n";
}

/// The head of one sub-request of a changeset: its delimiter line, the MIME
/// headers, the request line with the absolute `url`, the request headers
/// (`header_lines`: complete "Name: value\r\n" lines) and the blank line.
/// The caller then appends the body (one line, possibly empty) and CRLF.
inline void append_changeset_part_head(std::string& out, std::string_view changeset_boundary, std::string_view method,
                                       std::string_view url, std::string_view header_lines) {
  out += "--";
  out += changeset_boundary;
  out += "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n";
  out += method;
  out += ' ';
  out += url;
  out += " HTTP/1.1\r\n";
  out += header_lines;
  out += "\r\n";
}

/// One whole sub-request: head, `body` (one line; our JSON writer never emits
/// a raw line break) and the line break that ends it.
inline void append_changeset_part(std::string& out, std::string_view changeset_boundary, std::string_view method,
                                  std::string_view url, std::string_view header_lines, std::string_view body) {
  append_changeset_part_head(out, changeset_boundary, method, url, header_lines);
  out += body;
  out += "\r\n";
}

/// The end of a batch body: the changeset's and the batch's close delimiters.
inline void append_batch_end(std::string& out, std::string_view batch_boundary, std::string_view changeset_boundary) {
  out += "--";
  out += changeset_boundary;
  out += "--\r\n\r\n--";
  out += batch_boundary;
  out += "--\r\n";
}

/// Bytes that `append_batch_start` + `append_batch_end` add around the parts
/// for boundaries of these lengths.
inline std::size_t batch_envelope_size(std::size_t batch_boundary_len, std::size_t changeset_boundary_len) {
  std::string b(batch_boundary_len, 'b'), c(changeset_boundary_len, 'c'), out;
  append_batch_start(out, b, c);
  append_batch_end(out, b, c);
  return out.size();
}

/// The value of the `boundary` parameter of a multipart Content-Type
/// (quotes removed); empty if there is none.
inline std::string_view multipart_boundary(std::string_view content_type) {
  std::size_t p = 0;
  while ((p = content_type.find("boundary=", p)) != std::string_view::npos) {
    if (p == 0 || content_type[p - 1] == ';' || content_type[p - 1] == ' ' || content_type[p - 1] == '\t') break;
    p += 9;
  }
  if (p == std::string_view::npos) return {};
  std::string_view v = content_type.substr(p + 9);
  if (!v.empty() && v.front() == '"') {
    v.remove_prefix(1);
    return v.substr(0, v.find('"'));
  }
  return v.substr(0, v.find_first_of("; \t\r\n"));
}

/// One HTTP response found inside a batch response.
struct batch_response_part {
  int status = 0;
  http_headers headers;
  std::string body;  ///< without the line break before the next delimiter
};

namespace multipart_impl {

inline error malformed(const std::string& what) {
  return error::make(errc::invalid_response, "malformed $batch response: " + what);
}

/// Splits off the next line (without CR/LF); false at the end of `s`.
inline bool next_line(std::string_view s, std::size_t& pos, std::string_view& line) {
  if (pos >= s.size()) return false;
  std::size_t nl = s.find('\n', pos);
  std::size_t end = nl == std::string_view::npos ? s.size() : nl;
  line = s.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos = nl == std::string_view::npos ? s.size() : nl + 1;
  return true;
}

inline std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

/// Reads "Name: value" lines up to an empty line (or the end); advances pos.
inline void read_headers(std::string_view s, std::size_t& pos, http_headers& out) {
  std::string_view line;
  while (next_line(s, pos, line)) {
    if (line.empty()) return;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // tolerate a stray line
    out.add(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  }
}

/// Finds the next delimiter line at or after `from`.
inline std::size_t find_delimiter(std::string_view s, std::size_t from, std::string_view delim) {
  std::size_t p = from;
  while ((p = s.find(delim, p)) != std::string_view::npos) {
    if (p == from || p == 0 || s[p - 1] == '\n') return p;
    ++p;
  }
  return std::string_view::npos;
}

/// An HTTP response message (status line, headers, body), tolerating stray
/// lines before the status line (Azurite's 100-operation error part has one).
inline std::optional<error> parse_http_message(std::string_view s, std::vector<batch_response_part>& out) {
  std::size_t pos = 0;
  std::string_view line;
  for (;;) {
    if (!next_line(s, pos, line)) return malformed("a part holds no HTTP status line");
    if (line.rfind("HTTP/", 0) == 0) break;
  }
  std::size_t sp = line.find(' ');
  if (sp == std::string_view::npos || sp + 4 > line.size()) return malformed("bad status line");
  int status = 0;
  for (std::size_t i = sp + 1; i < sp + 4; ++i) {
    if (line[i] < '0' || line[i] > '9') return malformed("bad status line");
    status = status * 10 + (line[i] - '0');
  }
  batch_response_part part;
  part.status = status;
  read_headers(s, pos, part.headers);
  std::string_view body = pos < s.size() ? s.substr(pos) : std::string_view();
  while (!body.empty() && (body.back() == '\r' || body.back() == '\n')) body.remove_suffix(1);
  part.body = std::string(body);
  out.push_back(std::move(part));
  return std::nullopt;
}

inline std::optional<error> parse_multipart(std::string_view s, std::string_view boundary, int depth,
                                            std::vector<batch_response_part>& out) {
  if (boundary.empty()) return malformed("no multipart boundary");
  if (depth > 2) return malformed("nested too deeply");
  const std::string delim = "--" + std::string(boundary);
  std::size_t p = find_delimiter(s, 0, delim);
  if (p == std::string_view::npos) return malformed("boundary '" + std::string(boundary.substr(0, 80)) + "' not found");
  for (;;) {
    std::size_t after = p + delim.size();
    if (s.compare(after, 2, "--") == 0) return std::nullopt;  // close delimiter
    std::size_t nl = s.find('\n', after);
    if (nl == std::string_view::npos) return malformed("truncated after a boundary");
    const std::size_t start = nl + 1;
    std::size_t next = find_delimiter(s, start, delim);
    if (next == std::string_view::npos) return malformed("no closing boundary (truncated?)");
    std::size_t end = next;
    if (end > start && s[end - 1] == '\n') --end;
    if (end > start && s[end - 1] == '\r') --end;
    std::string_view part = s.substr(start, end - start);
    std::size_t hpos = 0;
    http_headers mime;
    read_headers(part, hpos, mime);
    std::string_view content = hpos < part.size() ? part.substr(hpos) : std::string_view();
    std::string_view ct = mime.get("Content-Type");
    if (ct.rfind("multipart/", 0) == 0) {
      if (auto e = parse_multipart(content, multipart_boundary(ct), depth + 1, out)) return e;
    } else {
      if (auto e = parse_http_message(content, out)) return e;
    }
    p = next;
  }
}

}  // namespace multipart_impl

/// Parses a `$batch` response body into the HTTP responses it holds, in
/// order, with nested changesets flattened. The boundary comes from
/// `content_type`, or from the body's first delimiter line when the header
/// has none. Structural problems are `invalid_response` errors.
inline result<std::vector<batch_response_part>> parse_batch_response(std::string_view content_type,
                                                                      std::string_view body) {
  std::string_view boundary = multipart_boundary(content_type);
  std::string fallback;
  if (boundary.empty()) {
    std::size_t first = body.find("--");
    if (first != std::string_view::npos && (first == 0 || body[first - 1] == '\n')) {
      std::size_t end = body.find_first_of("\r\n", first);
      fallback = std::string(body.substr(first + 2, end == std::string_view::npos ? std::string_view::npos : end - first - 2));
      boundary = fallback;
    }
  }
  std::vector<batch_response_part> parts;
  if (auto e = multipart_impl::parse_multipart(body, boundary, 0, parts)) return std::move(*e);
  return parts;
}

}  // namespace detail
AZTABLES_NAMESPACE_END
