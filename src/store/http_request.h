// The parts of HTTP/1.1 a read-only store server needs: the request head and
// the Range header (RFC 9110 §14, RFC 9112 §3).
//
// Both parsers take untrusted bytes from the network: they never read past
// their input, allocate only what the input's own size allows, and reject
// what they do not understand rather than guess. Pure and thread-safe.
#ifndef CHUNKWISE_STORE_HTTP_REQUEST_H_
#define CHUNKWISE_STORE_HTTP_REQUEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::store {

struct HttpRequest {
  std::string method;     // "GET", as sent (methods are case-sensitive).
  std::string path;       // The target's path, percent-decoded, without the query.
  int minor_version = 1;  // HTTP/1.<minor>.
  // Header names lowercased, values with surrounding blanks removed, in order.
  std::vector<std::pair<std::string, std::string>> headers;

  // The first header named `name` (lowercase), or nullopt.
  std::optional<std::string_view> Header(std::string_view name) const;
  // HTTP/1.1 keeps the connection unless "Connection: close"; 1.0 closes
  // unless "Connection: keep-alive".
  bool KeepAlive() const;
};

// Parses a request head: the request line and header lines, each ending in
// CRLF (a bare LF is accepted), up to and including the empty line.
// `head` must be exactly that head. InvalidArgument for a malformed request
// line, a version other than HTTP/1.x, a target that is not an absolute path
// ("/..."), bad percent-escapes or a NUL in the path, or a header line
// without a colon.
Result<HttpRequest> ParseHttpRequestHead(std::string_view head);

// The length of the head at the start of `data` (through the empty line),
// or 0 if `data` does not yet hold a whole head.
std::size_t HttpHeadLength(std::string_view data);

// A byte range resolved against a value's size: [first, last] inclusive.
struct HttpByteRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  bool operator==(const HttpByteRange&) const = default;
};

// What a Range header asks of a value of `size` bytes.
enum class RangeOutcome {
  kWhole,          // No usable range: send the whole value (200).
  kPartial,        // One satisfiable range (206).
  kUnsatisfiable,  // No part of the value (416).
};

// Parses `header` ("bytes=0-99", "bytes=100-", "bytes=-20") against `size`.
// A header that is not a single bytes range ("bytes=0-1,4-5", "items=1-2",
// garbage) yields kWhole, as RFC 9110 lets a server ignore it; a range
// starting at or past the end (or a zero-length suffix) is kUnsatisfiable.
RangeOutcome ParseHttpRange(std::string_view header, std::uint64_t size, HttpByteRange* range);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_HTTP_REQUEST_H_
