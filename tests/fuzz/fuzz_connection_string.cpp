// Connection strings. Properties: a string that parses names an endpoint
// that parses; an error message does not depend on the AccountKey value.
#include "fuzz_common.hpp"

#include <aztables/detail/url.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view cs(reinterpret_cast<const char*>(data), size);
  auto cfg = aztables::parse_connection_string(cs);
  if (cfg) {
    FUZZ_ASSERT(aztables::detail::parse_endpoint(cfg->table_endpoint));
  } else {
    FUZZ_ASSERT(cfg.error().code == aztables::errc::invalid_argument);
    // The message does not depend on the AccountKey value: swapping the case
    // of its letters (base64 stays base64) must give the same message.
    std::size_t p = cs.find("AccountKey=");
    if (p != std::string_view::npos && (p == 0 || cs[p - 1] == ';')) {  // a segment of its own
      std::string other(cs);
      for (std::size_t i = p + 11; i < other.size() && other[i] != ';'; ++i) {
        char& c = other[i];
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
        else if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
      auto cfg2 = aztables::parse_connection_string(other);
      FUZZ_ASSERT(!cfg2);
      FUZZ_ASSERT(cfg2.error().message == cfg.error().message);
    }
  }
  return 0;
}
