// Error responses: JSON odata.error, XML <Error>, empty or garbage bodies,
// with hostile x-ms-error-code / x-ms-request-id headers. Properties: the
// texts stay bounded and a redacted text never grows a "sig=" value back.
#include "fuzz_common.hpp"

#include <aztables/detail/client_core.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  aztables::http_response resp;
  resp.status = in.ConsumeIntegralInRange<int>(100, 599);
  if (in.ConsumeBool()) resp.headers.add("x-ms-error-code", in.ConsumeRandomLengthString(512));
  if (in.ConsumeBool()) resp.headers.add("x-ms-request-id", in.ConsumeRandomLengthString(512));
  resp.body = in.ConsumeRemainingBytesAsString();

  std::string copy = resp.body, code, message;
  aztables::detail::parse_error_body(copy, code, message);
  FUZZ_ASSERT(code.size() <= 1024 * 4 && message.size() <= 1024 * 4);

  aztables::error e = aztables::detail::client_core::error_from_response(resp);
  aztables::detail::scrub_error(e, {"SECRETSECRETSECRET"});
  FUZZ_ASSERT(e.message.size() <= 4096 && e.service_code.size() <= 128 && e.request_id.size() <= 128);
  FUZZ_ASSERT(e.to_string().find("SECRETSECRETSECRET") == std::string::npos);
  return 0;
}
