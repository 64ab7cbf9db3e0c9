// <SignedIdentifiers> XML of Get Table ACL. Property: what parses writes back
// to XML that parses to the same policies.
#include "fuzz_common.hpp"

#include <aztables/detail/acl_xml.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto ids = aztables::detail::parse_signed_identifiers(body);
  if (ids) {
    auto again = aztables::detail::parse_signed_identifiers(aztables::detail::write_signed_identifiers(*ids));
    FUZZ_ASSERT(again);
    FUZZ_ASSERT(again->size() == ids->size());
    for (std::size_t i = 0; i < ids->size(); ++i) {
      // Times are written with whole seconds.
      const auto& x = (*ids)[i];
      const auto& y = (*again)[i];
      FUZZ_ASSERT(x.id == y.id);
      FUZZ_ASSERT(x.policy.permissions.str() == y.policy.permissions.str());
      FUZZ_ASSERT(x.policy.starts_on.has_value() == y.policy.starts_on.has_value());
      FUZZ_ASSERT(x.policy.expires_on.has_value() == y.policy.expires_on.has_value());
    }
  } else {
    FUZZ_ASSERT(ids.error().code == aztables::errc::invalid_response);
  }
  return 0;
}
