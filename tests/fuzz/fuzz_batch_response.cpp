// $batch responses: multipart/mixed with nested changesets, as the service
// and Azurite send them and anything else. Input: the Content-Type line, a
// newline, then the body.
#include "fuzz_common.hpp"

#include <aztables/detail/multipart.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::size_t nl = all.find('\n');
  std::string_view content_type = nl == std::string_view::npos ? all : all.substr(0, nl);
  std::string_view body = nl == std::string_view::npos ? std::string_view() : all.substr(nl + 1);
  auto parts = aztables::detail::parse_batch_response(content_type, body);
  if (parts) {
    for (const auto& p : *parts) {
      FUZZ_ASSERT(p.body.size() <= body.size());
      FUZZ_ASSERT(p.status >= 0);
    }
  }
  return 0;
}
