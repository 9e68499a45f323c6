// libFuzzer target: the HTTP request head and Range parsers of the store
// server on arbitrary bytes. They must return a value or InvalidArgument;
// a partial range must lie inside the value whose size the first 8 bytes give.
#include <cstdlib>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "store/http_request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace store = chunkwise::store;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t head = store::HttpHeadLength(text);
  if (head > size) std::abort();
  const auto request = store::ParseHttpRequestHead(head > 0 ? text.substr(0, head) : text);
  if (!request.ok() && request.status().code() != chunkwise::StatusCode::kInvalidArgument) {
    std::abort();
  }
  if (request.ok() && (request->path.empty() || request->path.front() != '/')) std::abort();
  const std::uint64_t value_size =
      size >= 8 ? chunkwise::LoadLittleEndian<std::uint64_t>(data) % (1ULL << 40) : 0;
  store::HttpByteRange range;
  if (store::ParseHttpRange(text.substr(std::min<std::size_t>(size, 8)), value_size, &range) ==
      store::RangeOutcome::kPartial) {
    if (range.first > range.last || range.last >= value_size) std::abort();
  }
  return 0;
}
