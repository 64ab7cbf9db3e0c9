// Entity JSON in every metadata level (nometadata, minimal, full: the input
// decides), through the response reader and the public from_json. Property:
// an entity that parses writes back to JSON that parses to an equal entity.
#include "fuzz_common.hpp"

#include <aztables/detail/json_reader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  auto e = aztables::detail::parse_entity(body);
  auto pub = aztables::from_json(std::string_view(reinterpret_cast<const char*>(data), size));
  if (pub) {
    // Lossless: what we read, we write and read back the same. (Writing may
    // refuse what the service would refuse, e.g. a bad key: that is fine.)
    auto text = aztables::to_json(*pub);
    if (text) {
      auto again = aztables::from_json(*text);
      FUZZ_ASSERT(again);
      FUZZ_ASSERT(*again == *pub);
    }
  }
  (void)e;
  return 0;
}
